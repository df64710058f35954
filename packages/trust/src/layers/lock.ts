import { TRUST_ORDER, Tokens, TrustError, type Intent, type TrustCall, type TrustLayer } from '@hypruse/core';
import { deliversInput } from '../desktop-view.js';
import { systemLockProbe, type LockProbe } from '../lock-probe.js';

export interface LockState {
  locked: boolean;
  /** How it was told: compositor, logind, or the locker's process name. */
  by: string;
}

/**
 * Is the session locked? The compositor first (`locked()`); when it cannot
 * tell, logind's LockedHint; then a known locker process on this desktop;
 * else not locked. The lock check fails open (a compositor error counts as
 * "cannot tell"), because every other guard still runs.
 */
export async function lockState(call: TrustCall, probe: LockProbe, env: NodeJS.ProcessEnv): Promise<LockState> {
  let fromCompositor: boolean | null = null;
  try {
    fromCompositor = await call.services.get(Tokens.Compositor).locked();
  } catch {
    fromCompositor = null;
  }
  if (fromCompositor !== null) return { locked: fromCompositor, by: 'compositor' };
  const hint = await probe.logind(env, call.signal).catch(() => null);
  if (hint !== null) return { locked: hint, by: 'logind' };
  const locker = await probe.locker(env).catch(() => null);
  if (locker) return { locked: true, by: locker };
  return { locked: false, by: 'none' };
}

function refuse(reason: string, hint: string): never {
  throw new TrustError({ layer: 'lock', code: 'refused.lock', reason, hint });
}

/**
 * No input while the session is locked (§5.7, §10.1 item 10): a window-
 * targeted keystroke or a control click always refuses (the window is not
 * what receives it); under confinement everything refuses; pointer input and
 * keystrokes to "whatever is focused" need `allow_auth` and then go to the
 * credential prompt, said in a note.
 */
/** `env` overrides the session environment of each call (tests). */
export function createLockLayer(probe: LockProbe = systemLockProbe, env?: NodeJS.ProcessEnv): TrustLayer {
  return {
    name: 'lock',
    order: TRUST_ORDER.lock,
    appliesTo: (call) => call.kind === 'act',
    async handle(call, next) {
      const intent: Intent | null = await call.intent();
      if (!deliversInput(intent)) return next();
      const state = await lockState(call, probe, env ?? call.env);
      if (!state.locked) return next();
      const how = state.by === 'compositor' || state.by === 'logind' ? `(${state.by} reports it)` : `(${state.by} is running)`;
      const unlock = 'the person must unlock the session first';
      if (intent.control) {
        refuse(`the session is locked ${how}; a control click would not reach ${intent.control.name ? `'${intent.control.name}'` : 'the window'}`, unlock);
      }
      if (intent.input === 'keyboard' && intent.windows?.length && !intent.focusedWindow) {
        refuse(`the session is locked ${how}; keys meant for window ${intent.windows.join(', ')} would go to the lock screen`, unlock);
      }
      if (call.config.confine.length) {
        refuse(`the session is locked ${how}, and confinement is on, which never allows input to the lock screen`, unlock);
      }
      if (!call.allowAuth) {
        refuse(
          `the session is locked ${how}; the input would go to the lock screen's credential prompt`,
          `${unlock}; only if the person asked you to type into the unlock prompt, call again with allow_auth: true`,
        );
      }
      call.notes.push('NOTE: the session is locked, so the input went to the lock screen\'s credential prompt (allow_auth)');
      return next();
    },
  };
}

export const lockLayer: TrustLayer = createLockLayer();
