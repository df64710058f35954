import { CancelledError, HypruseError, slowMachineHint } from '@hypruse/core';

/**
 * The ceiling of an operation (an app read, a refresh): every bus call made
 * under it races `promise`, which rejects with a typed error when the party
 * has not answered anything for `ms` (a hung app), when the whole operation
 * passes `TOTAL_FACTOR × ms` (an app that answers but never finishes), or
 * when the caller's signal aborts. A slow but answering app on a loaded
 * machine therefore completes; a silent one fails within `ms`. `what` names
 * the party that failed to answer and may change as the operation proceeds.
 */
export class Deadline {
  readonly promise: Promise<never>;
  /** Set once the deadline fired (timeout or abort). */
  fired = false;
  /** The error it fired with. */
  error: unknown;
  what: string;
  /**
   * Callbacks of in-flight calls, told when it fires. (Calls register here
   * rather than racing `promise`: a reaction per call on one long-lived
   * promise would pile up for the whole read.)
   */
  readonly waiters = new Set<(err: unknown) => void>();
  private timer: NodeJS.Timeout | undefined;
  private readonly signal: AbortSignal | undefined;
  private readonly onAbort: () => void;

  constructor(readonly ms: number, what: string, signal?: AbortSignal) {
    this.what = what;
    this.signal = signal;
    let rejectPromise!: (e: unknown) => void;
    this.promise = new Promise<never>((_, rej) => {
      rejectPromise = rej;
    });
    const reject = (err: unknown) => {
      this.error = err;
      rejectPromise(err);
      for (const w of [...this.waiters]) w(err);
      this.waiters.clear();
    };
    // Nobody may be racing when it fires; the rejection is observed through race().
    this.promise.catch(() => undefined);
    this.onAbort = () => {
      this.fired = true;
      this.clear();
      reject(new CancelledError(`cancelled while reading accessibility of ${this.what}`));
    };
    if (signal?.aborted) {
      this.onAbort();
      return;
    }
    signal?.addEventListener('abort', this.onAbort, { once: true });
    this.fire = () => {
      this.fired = true;
      this.clear();
      reject(
        new HypruseError('error.a11y', `${this.what} did not answer within ${formatSeconds(ms)}`, {
          hint: `The application is busy or hung; retry later, or use screenshot + zoom instead (${slowMachineHint()}).`,
          data: { timeoutMs: ms },
        }),
      );
    };
    this.started = Date.now();
    this.arm(ms);
  }

  private fire!: () => void;
  private started = Date.now();

  private arm(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(this.fire, ms);
    this.timer.unref?.();
  }

  /** A reply arrived: the party is alive, so the idle ceiling starts again (bounded by the total ceiling). */
  progress(): void {
    if (this.fired || !this.timer) return;
    const left = this.started + this.ms * TOTAL_FACTOR - Date.now();
    this.arm(Math.max(0, Math.min(this.ms, left)));
  }

  race<T>(p: Promise<T>): Promise<T> {
    return Promise.race([p, this.promise]);
  }

  /** Stop the timer and the abort listener (always call when the operation is over). */
  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.signal?.removeEventListener('abort', this.onAbort);
  }
}

/** The whole operation may take this many idle ceilings at most. */
export const TOTAL_FACTOR = 5;

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

/** Run `fn` under a fresh deadline and always clear it afterwards. */
export async function withDeadline<T>(ms: number, what: string, signal: AbortSignal | undefined, fn: (d: Deadline) => Promise<T>): Promise<T> {
  const d = new Deadline(ms, what, signal);
  if (d.fired) return d.promise;
  try {
    return await d.race(fn(d));
  } finally {
    d.clear();
  }
}
