import { Tokens, type Token } from '../tokens.js';
import type { ToolServices } from '../contracts/tool.js';
import type { Accessibility } from '../contracts/accessibility.js';
import { DRY_RUN_ALLOWED } from './dry-gate.js';
import { scaledMs } from '../time.js';

/**
 * A tree read that starts this soon after input waits until the input is this old (scaled by the
 * time policy). The compositor has passed the input on once its round trip returned, but the
 * application handles it over several turns of its main loop (GTK 3 takes one queued Wayland event
 * per turn, answers D-Bus calls in between, and holds events back while it paints a frame), so a
 * read sent at once can find a check box clicked but not yet toggled. Nothing the application
 * sends confirms in general that it has handled input; where a tool reads the input's effect back
 * (a clicked check box now toggled), it says so (`inputHandled`) and the next read does not wait.
 * Measured on sway 1.7: a `ui` right after a pointer click read the old state in 2 of 3 runs of
 * the coordinates test at load 6 with no wait, and still failed CI runs at 50 ms, on the 1.5-scale
 * output, where gtk3-widget-factory paints its animated widgets at buffer scale 2. An agent's next call comes later than this anyway; the wait
 * is felt only by an observation inside the same call (`then: "ui"`, a plan's `ui` step).
 */
export const INPUT_SETTLE_MS = 150;

/** The backends whose acting methods send input to applications (or change what they show). */
const SENDING: readonly symbol[] = [Tokens.Input, Tokens.Compositor, Tokens.Accessibility];
/** Acting methods that deliver nothing to an application. */
const HARMLESS = new Set(['dispose', 'releaseAll', 'forget']);

/**
 * Tool services that tell the accessibility backend (`forget`) whenever a tool sends input: any
 * acting method of the input, compositor or accessibility backend (a click, a key, a cursor move,
 * a focus change, an element action), before it starts and once it settled. A tree read taken
 * before is then never reused. Observing methods (the dry-run allowlist) pass through untouched.
 */
export function inputForgettingServices(inner: ToolServices, settleMs: () => number = () => scaledMs(INPUT_SETTLE_MS)): ToolServices {
  const cache = new Map<symbol, unknown>();
  let lastInput = -Infinity;
  let inFlight = 0;
  const forget = () => {
    lastInput = performance.now();
    if (inner.has(Tokens.Accessibility)) (inner.get(Tokens.Accessibility) as Accessibility).forget?.();
  };
  const begin = () => {
    inFlight++;
    forget();
  };
  const done = () => {
    inFlight--;
    forget();
  };
  /** An application showed the effect of all input sent: no wait for it (not while more input is on its way). */
  const handled = () => {
    if (inFlight === 0) lastInput = -Infinity;
  };
  /** A tree read waits until the last input is settleMs old (see INPUT_SETTLE_MS). */
  const settled = async (signal: AbortSignal | undefined) => {
    // a timer may fire up to a millisecond early: look again until the input really is that old
    for (let wait = lastInput + settleMs() - performance.now(); wait > 0; wait = lastInput + settleMs() - performance.now()) {
      await new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const onAbort = () => { clearTimeout(t); reject(signal!.reason); };
        const t = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, Math.ceil(wait));
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    }
  };
  return {
    has: (t) => inner.has(t),
    get<T>(token: Token<T>): T {
      const target = inner.get(token);
      if (!SENDING.includes(token) || typeof target !== 'object' || target === null) return target;
      const hit = cache.get(token);
      if (hit && (hit as { target: unknown }).target === target) return (hit as { proxy: T }).proxy;
      const observing = DRY_RUN_ALLOWED.get(token) ?? new Set<string>();
      const proxy = new Proxy(target as object, {
        get(obj, prop, recv) {
          if (token === Tokens.Accessibility && prop === 'inputHandled') return handled;
          const v = Reflect.get(obj, prop, recv);
          if (typeof v !== 'function') return v;
          if (token === Tokens.Accessibility && prop === 'read') {
            return async (...a: unknown[]) => {
              await settled((a[1] as { signal?: AbortSignal } | undefined)?.signal);
              return (v as (...x: unknown[]) => unknown).apply(obj, a);
            };
          }
          if (typeof prop !== 'string' || observing.has(prop) || HARMLESS.has(prop)) return (v as (...x: unknown[]) => unknown).bind(obj);
          return (...a: unknown[]) => {
            begin();
            let r: unknown;
            try {
              r = (v as (...x: unknown[]) => unknown).apply(obj, a);
            } catch (err) {
              done();
              throw err;
            }
            if (r instanceof Promise) return r.finally(done);
            done();
            return r;
          };
        },
      });
      cache.set(token, { target, proxy });
      return proxy as T;
    },
  };
}
