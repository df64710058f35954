import { Tokens, type Token } from '../tokens.js';
import type { ToolServices } from '../contracts/tool.js';
import type { Accessibility } from '../contracts/accessibility.js';
import { DRY_RUN_ALLOWED } from './dry-gate.js';

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
export function inputForgettingServices(inner: ToolServices): ToolServices {
  const cache = new Map<symbol, unknown>();
  const forget = () => {
    if (inner.has(Tokens.Accessibility)) (inner.get(Tokens.Accessibility) as Accessibility).forget?.();
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
          const v = Reflect.get(obj, prop, recv);
          if (typeof v !== 'function') return v;
          if (typeof prop !== 'string' || observing.has(prop) || HARMLESS.has(prop)) return (v as (...x: unknown[]) => unknown).bind(obj);
          return (...a: unknown[]) => {
            forget();
            let r: unknown;
            try {
              r = (v as (...x: unknown[]) => unknown).apply(obj, a);
            } catch (err) {
              forget();
              throw err;
            }
            if (r instanceof Promise) return r.finally(forget);
            forget();
            return r;
          };
        },
      });
      cache.set(token, { target, proxy });
      return proxy as T;
    },
  };
}
