import {
  TRUST_ORDER, Tokens, TrustError, contains, toHypruseError, type Desktop, type Intent, type LayerSurface, type TrustCall,
  type TrustLayer, type Window,
} from '@hypruse/core';
import { isAuthLayer, isAuthWindow } from '../auth-match.js';
import { deliversInput, describeWindow, desktopOf, focusedWindow, pointerPoints, targetsOf, mayOverlap, possibleAreas, visibleWorkspaces } from '../desktop-view.js';

const LIFT = 'do not act on authentication prompts yourself; ask the person to handle it, and only if they explicitly asked you to, call again with allow_auth: true';

function refuse(reason: string, hint = LIFT): never {
  throw new TrustError({ layer: 'auth', code: 'refused.auth', reason, hint });
}

/** Auth windows shown over a rectangle (a prompt floating over the target control). */
function authOver(d: Desktop, area: Window['geometry'], prompts: readonly string[]): Window[] {
  const shown = visibleWorkspaces(d);
  return d.windows.filter((w) => isAuthWindow(w, prompts) && (w.visible || (w.workspace !== null && shown.has(w.workspace))) && mayOverlap(d, w, area));
}

function layersReadable(call: TrustCall, d: Desktop): LayerSurface[] | 'unsupported' | null {
  if (d.layers) return d.layers;
  const caps = call.services.get(Tokens.Compositor).capabilities;
  return caps.has('layers') ? null : 'unsupported';
}

/**
 * Auth guard (on by default): no pointer or keyboard input into polkit,
 * keyring, askpass, pinentry or compositor permission dialogs, recognised by
 * window class and by layer namespace (prompts drawn by the shell). Strict
 * mode also refuses typing into a password field. `allow_auth` lifts it; a
 * desktop it cannot read refuses (fail closed).
 */
export const authLayer: TrustLayer = {
  name: 'auth',
  order: TRUST_ORDER.auth,
  appliesTo: (call) => call.kind === 'act' && call.config.authGuard !== 'off' && !call.allowAuth,
  async handle(call, next) {
    const intent: Intent | null = await call.intent();
    if (!deliversInput(intent)) return next();
    let d: Desktop;
    try {
      d = await desktopOf(call);
    } catch (err) {
      refuse(`cannot read the desktop to rule out an authentication prompt (${toHypruseError(err).message})`, 'retry; if the compositor keeps failing, ask the person');
    }
    const t = targetsOf(intent, d);
    if (t.pointUnknown) refuse('cannot tell where the cursor is, so cannot rule out an authentication prompt under it', 'pass x and y explicitly');
    const prompts = call.services.has(Tokens.CompositorManifest) ? (call.services.get(Tokens.CompositorManifest).promptClasses ?? []) : [];
    const hit = [...t.named, ...t.underPoint, ...(t.focused ? [t.focused] : [])].find((w) => isAuthWindow(w, prompts));
    if (hit) refuse(`${describeWindow(hit)} is an authentication dialog`);
    if (intent.control) {
      for (const w of t.named) {
        // a window without a reported position (niri: tiled) may be anywhere on its monitor
        const over = possibleAreas(d, w).flatMap((area) => authOver(d, area, prompts)).filter((a) => a.address !== w.address);
        if (over.length) refuse(`the authentication dialog ${describeWindow(over[0])} floats over the target window`);
      }
    }

    const layers = layersReadable(call, d);
    if (layers === null) refuse('the compositor could not list its layer surfaces, so a shell-drawn authentication prompt cannot be ruled out', 'retry; if it persists, ask the person');
    if (layers !== 'unsupported') {
      const auth = layers.filter(isAuthLayer);
      if (auth.length) {
        if (intent.input === 'pointer') {
          const pts = pointerPoints(intent, d) ?? [];
          const under = auth.find((l) => pts.some((p) => contains(l.geometry, p)));
          if (under) refuse(`the shell's authentication prompt (layer '${under.namespace}') covers the point`);
        } else {
          const grab = auth.find((l) => l.keyboardInteractive !== false);
          if (grab) refuse(`the shell's authentication prompt (layer '${grab.namespace}') holds the keyboard, so the keys would go to it`);
        }
      }
    }

    if (call.config.authGuard === 'strict' && intent.input === 'keyboard' && intent.text !== undefined) {
      await guardPasswordField(call, t.named[0] ?? t.focused ?? focusedWindow(d));
    }
    return next();
  },
};

/** Strict: typing into a focused password field refuses; an unreadable tree refuses too (fail closed). */
async function guardPasswordField(call: TrustCall, target: Window | null): Promise<void> {
  if (!target) return; // nothing focused: the keys reach no application
  const cannot: (why: string) => never = (why) =>
    refuse(`strict auth guard: cannot tell whether the focused field of ${describeWindow(target)} is a password field (${why})`, 'ask the person, or have them set HYPRUSE_AUTH_GUARD=on (not strict)');
  if (target.pid === null) cannot('the window has no process id');
  if (!call.services.has(Tokens.Accessibility)) cannot('no accessibility backend');
  let focused;
  try {
    focused = await call.services.get(Tokens.Accessibility).focusedText(target.pid, call.signal);
  } catch (err) {
    cannot(toHypruseError(err).message);
  }
  if (focused?.element.password) {
    refuse(`the focused field${focused.element.name ? ` '${focused.element.name}'` : ''} of ${describeWindow(target)} is a password field`);
  }
}
