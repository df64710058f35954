/**
 * Tells the person's seat activity from the agent's own by timing.
 *
 * The compositor's idle notifications (ext-idle-notify-v1, org_kde_kwin_idle)
 * count every input on the seat, the agent's virtual pointer and keyboard
 * included, with no device named. With a short idle timeout `idleMs` they
 * arrive as bursts: `resumed` when input starts after `idleMs` of quiet,
 * `idle` `idleMs` after the last input. The agent brackets its own input
 * (`agentBegin`/`agentEnd`, each behind a round trip on the idle connection,
 * so every notification its input caused has arrived before the bracket
 * closes). Activity outside the brackets (plus `slackMs` for the
 * compositor's idle timer) is the person's. Inside a bracket the person
 * cannot be seen.
 *
 * Pure: every time is a number of ms on one monotonic clock, given by the caller.
 */
export interface TakeoverTrackerOptions {
  /** The idle timeout asked of the compositor (burst granularity). */
  idleMs: number;
  /** takeover_ms: how long after the person's last input acting stays refused. */
  windowMs: number;
  /** Allowance for the compositor's idle timer and event delivery. */
  slackMs: number;
}

interface Burst {
  start: number;
  end: number | null;
  /** Opened with the watcher: the compositor starts every idle timer as "active". */
  initial: boolean;
}

interface Bracket {
  start: number;
  end: number | null;
}

export class TakeoverTracker {
  private bursts: Burst[] = [];
  private readonly brackets = new Map<number, Bracket>();
  private closedBrackets: Bracket[] = [];
  private nextId = 1;
  private openedAt: number | null = null;
  private primed = false;

  constructor(readonly opts: TakeoverTrackerOptions) {}

  /** The idle notification object was created at `at`. */
  opened(at: number): void {
    this.openedAt = at;
    this.primed = false;
    this.bursts = [{ start: at, end: null, initial: true }];
  }

  /** Whether the tracker has heard enough to judge (the first `idle`, or the initial burst outlived idleMs + slack). */
  isPrimed(now: number): boolean {
    return this.primed || (this.openedAt !== null && now - this.openedAt > this.opts.idleMs + this.opts.slackMs);
  }

  /** When it will be primed at the latest. */
  primedBy(): number {
    return (this.openedAt ?? 0) + this.opts.idleMs + this.opts.slackMs;
  }

  resumed(at: number): void {
    const last = this.bursts.at(-1);
    if (last && last.end === null) return; // already active
    this.bursts.push({ start: at, end: null, initial: false });
  }

  idled(at: number): void {
    this.primed = true;
    const last = this.bursts.at(-1);
    if (!last || last.end !== null) return;
    last.end = Math.max(last.start, at - this.opts.idleMs);
  }

  agentBegin(at: number): number {
    const id = this.nextId++;
    this.brackets.set(id, { start: at, end: null });
    return id;
  }

  agentEnd(id: number, at: number): void {
    const b = this.brackets.get(id);
    if (!b) return;
    this.brackets.delete(id);
    b.end = at;
    this.closedBrackets.push(b);
  }

  /** Time of the person's last input seen, or null. */
  lastPersonActivity(now: number): number | null {
    this.prune(now);
    const { idleMs, slackMs } = this.opts;
    const covers: Array<[number, number]> = [
      ...this.closedBrackets.map((b): [number, number] => [b.start, (b.end as number) + slackMs]),
      ...[...this.brackets.values()].map((b): [number, number] => [b.start, now + slackMs]),
    ].sort((a, b) => a[0] - b[0]);
    let last: number | null = null;
    for (const burst of this.bursts) {
      let s = burst.start;
      let e = burst.end ?? now - idleMs;
      if (burst.initial) {
        // the timer starts "active" without any input: only activity past idleMs + slack counts
        s = burst.start + slackMs;
        if (e <= s) continue;
      }
      if (e < s) e = s;
      const t = lastUncovered(s, e, covers);
      if (t !== null && (last === null || t > last)) last = t;
    }
    return last;
  }

  /** Refuse (with the ms left) while the person's last input is within windowMs. */
  verdict(now: number): { active: boolean; retryAfterMs: number } {
    const last = this.lastPersonActivity(now);
    if (last === null) return { active: false, retryAfterMs: 0 };
    const left = this.opts.windowMs - (now - last);
    return left > 0 ? { active: true, retryAfterMs: Math.ceil(left) } : { active: false, retryAfterMs: 0 };
  }

  private prune(now: number): void {
    const horizon = now - this.opts.windowMs - this.opts.idleMs - this.opts.slackMs;
    this.bursts = this.bursts.filter((b) => b.end === null || b.end >= horizon);
    this.closedBrackets = this.closedBrackets.filter((b) => (b.end as number) + this.opts.slackMs >= horizon);
  }
}

/** The latest point of [s, e] outside every cover interval, or null when all of it is covered. */
export function lastUncovered(s: number, e: number, covers: ReadonlyArray<readonly [number, number]>): number | null {
  let t = e;
  // walk back from e past every cover that contains t
  for (;;) {
    const c = covers.find(([a, b]) => a <= t && t <= b);
    if (!c) return t >= s ? t : null;
    t = c[0] - 1e-6;
    if (t < s) return null;
  }
}
