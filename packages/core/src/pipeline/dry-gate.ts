import { DryRunError } from '../errors.js';
import { Tokens, type Token } from '../tokens.js';
import type { ToolServices } from '../contracts/tool.js';

const MUTATING: Map<symbol, Set<string>> = new Map([
  [
    Tokens.Compositor as symbol,
    new Set([
      'focusWindow', 'switchWorkspace', 'moveToWorkspace', 'closeWindow', 'toggleFullscreen', 'toggleFloating',
      'moveCursor', 'launch', 'runBind', 'tagWindow', 'notify', 'installMarkRule',
    ]),
  ],
  [Tokens.Input as symbol, new Set(['click', 'drag', 'scroll', 'moveAbsolute', 'type', 'key'])],
  [Tokens.Clipboard as symbol, new Set(['write'])],
]);

/**
 * The delivery boundary of dry run: backends resolved during a dry-run call
 * throw DryRunError from every method that would deliver something, so a tool
 * that forgot to honour `ctx.dryRun` still delivers nothing.
 */
export function dryRunServices(inner: ToolServices): ToolServices {
  const cache = new Map<symbol, unknown>();
  return {
    has: (t) => inner.has(t),
    get<T>(token: Token<T>): T {
      const blocked = MUTATING.get(token as symbol);
      const target = inner.get(token);
      if (!blocked || typeof target !== 'object' || target === null) return target;
      if (cache.has(token)) return cache.get(token) as T;
      const proxy = new Proxy(target as object, {
        get(obj, prop, recv) {
          const v = Reflect.get(obj, prop, recv);
          if (typeof prop === 'string' && blocked.has(prop) && typeof v === 'function') {
            return () => Promise.reject(new DryRunError(`${String(prop)}()`));
          }
          return typeof v === 'function' ? v.bind(obj) : v;
        },
      });
      cache.set(token, proxy);
      return proxy as T;
    },
  };
}
