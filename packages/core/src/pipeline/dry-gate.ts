import { DryRunError } from '../errors.js';
import { Tokens, type Token } from '../tokens.js';
import type { ToolServices } from '../contracts/tool.js';
import type { Accessibility } from '../contracts/accessibility.js';
import type { Capture, Imaging } from '../contracts/capture.js';
import type { Clipboard } from '../contracts/clipboard.js';
import type { Compositor } from '../contracts/compositor.js';
import type { Input } from '../contracts/input.js';
import type { Presence } from '../contracts/presence.js';
import type { Indicator } from '../contracts/indicator.js';

/** The method names of a contract. */
export type ContractMethods<T> = { [K in keyof T]-?: NonNullable<T[K]> extends (...a: never[]) => unknown ? K : never }[keyof T] & string;

/**
 * Every method of a contract classified: `true` = it only observes (allowed in
 * a dry run), `false` = it acts. The record type makes a new contract method a
 * compile error until it is classified here.
 */
function observing<T>(methods: Record<ContractMethods<T>, boolean>): ReadonlySet<string> {
  return new Set(Object.entries(methods).filter(([, observes]) => observes).map(([m]) => m));
}

/**
 * The dry-run allowlist: per backend contract, the methods that only observe.
 * Anything else a backend has (a contract method marked acting, a method of
 * the implementation outside its contract, a backend of a token not listed
 * here) is refused in a dry run.
 */
export const DRY_RUN_ALLOWED: ReadonlyMap<symbol, ReadonlySet<string>> = new Map<symbol, ReadonlySet<string>>([
  [
    Tokens.Compositor,
    observing<Compositor>({
      unsupportedReason: true, version: true, snapshot: true, subscribe: true, binds: true, configuredBinds: true, locked: true, doctorDetail: true,
      focusWindow: false, switchWorkspace: false, moveToWorkspace: false, closeWindow: false, toggleFullscreen: false, toggleFloating: false,
      moveCursor: false, launch: false, runBind: false, tagWindow: false, notify: false, installMarkRule: false, registerChord: false, dispose: false,
    }),
  ],
  [
    Tokens.Input,
    observing<Input>({ describe: true, click: false, holdModifiers: false, drag: false, scroll: false, moveAbsolute: false, type: false, key: false, releaseAll: false, dispose: false }),
  ],
  [
    Tokens.Presence,
    observing<Presence>({ verdict: true, current: true, onChange: true, takeover: true, chord: true, agentInput: false, stop: false, pause: false, resume: false, dispose: false }),
  ],
  // hiding before a capture is part of observing; showing what the agent does is not
  [Tokens.Indicator, observing<Indicator>({ hideForCapture: true, probe: true, acting: false, idle: false, dispose: false })],
  [Tokens.Capture, observing<Capture>({ describe: true, capture: true, dispose: false })],
  [Tokens.Imaging, observing<Imaging>({ encode: true, crop: true, drawMarks: true, raw: true })],
  [
    Tokens.Accessibility,
    observing<Accessibility>({
      describe: true, apps: true, read: true, forget: true, inputHandled: true, exists: true, refresh: true, focusedText: true, text: true, textRange: true, documentText: true, sessionStatus: true, options: true, visibleArea: true,
      doAction: false, sendAction: false, setText: false, insertText: false, focus: false, scrollTo: false, selectOption: false, selectRow: false, dispose: false,
    }),
  ],
  [Tokens.Clipboard, observing<Clipboard>({ describe: true, read: true, write: false })],
]);

/** Tokens whose values are not backends (configuration, logging): passed through unchanged. */
const NOT_BACKENDS: ReadonlySet<symbol> = new Set([Tokens.Config, Tokens.Logger]);

/**
 * The delivery boundary of dry run: backends resolved during a dry-run call
 * throw DryRunError from every method not on the allowlist of observing
 * methods, so a tool that forgot to honour `ctx.dryRun` still delivers nothing.
 */
export function dryRunServices(inner: ToolServices): ToolServices {
  const cache = new Map<symbol, unknown>();
  return {
    has: (t) => inner.has(t),
    get<T>(token: Token<T>): T {
      const target = inner.get(token);
      if (NOT_BACKENDS.has(token) || typeof target !== 'object' || target === null) return target;
      if (cache.has(token)) return cache.get(token) as T;
      const allowed = DRY_RUN_ALLOWED.get(token) ?? new Set<string>();
      const proxy = new Proxy(target as object, {
        get(obj, prop, recv) {
          const v = Reflect.get(obj, prop, recv);
          if (typeof v !== 'function') return v;
          if (typeof prop === 'string' && allowed.has(prop)) return v.bind(obj);
          return () => Promise.reject(new DryRunError(`${String(prop)}()`));
        },
      });
      cache.set(token, proxy);
      return proxy as T;
    },
  };
}
