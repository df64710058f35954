import { TRUST_ORDER, TrustError, contains, type LayerKind, type LayerSurface, type Point, type TrustLayer } from '@hypruse/core';
import { deliversInput, desktopOf, pointerPoints } from '../desktop-view.js';

const LEVEL_RANK = { background: 0, bottom: 1, top: 2, overlay: 3 } as const;
/** Surfaces that take input away from the windows beneath them. */
const FOCUS_STEALING: ReadonlySet<LayerKind> = new Set(['launcher', 'lock', 'osk']);
/** Surfaces that hold the keyboard while shown. */
const KEYBOARD_GRABBING: ReadonlySet<LayerKind> = new Set(['launcher', 'lock']);

export const DISMISS: Record<string, string> = {
  lock: 'the person must unlock the session first',
  osk: 'dismiss the on-screen keyboard first',
  launcher: 'drive the launcher with the keyboard (without window=), or close it (usually Escape)',
};

/** Layers above windows (top/overlay); background/bottom surfaces sit under windows and take nothing from them. */
function aboveWindows(l: LayerSurface): boolean {
  return LEVEL_RANK[l.level] >= LEVEL_RANK.top;
}

/** Topmost of the given surfaces: by level, later surface wins within a level. */
function topmost(ls: LayerSurface[]): LayerSurface | null {
  let best: LayerSurface | null = null;
  let bestRank = -1;
  for (const l of ls) {
    const r = LEVEL_RANK[l.level] ?? -1;
    if (r >= bestRank) {
      best = l;
      bestRank = r;
    }
  }
  return best;
}

/** The focus-stealing surface covering a point, if any. */
export function coveringLayer(layers: LayerSurface[], p: Point): LayerSurface | null {
  return topmost(layers.filter((l) => FOCUS_STEALING.has(l.kind) && aboveWindows(l) && contains(l.geometry, p)));
}

/** The surface holding the keyboard grab, if any (a lock outranks a launcher). */
export function keyboardGrab(layers: LayerSurface[]): LayerSurface | null {
  const grabbing = layers.filter((l) => KEYBOARD_GRABBING.has(l.kind) && aboveWindows(l) && l.keyboardInteractive !== false);
  return topmost(grabbing.filter((l) => l.kind === 'lock')) ?? topmost(grabbing);
}

/**
 * Layer guard (always on): pointer input under a launcher, lock screen or
 * on-screen keyboard would go to that surface, not the window beneath, so it
 * refuses. Typing while a launcher or lock holds the keyboard refuses when a
 * window was named or confinement is on (the keys would not reach it), and a
 * lock needs allow_auth; otherwise the keys go to the launcher, said in a
 * note. A compositor that cannot list layers is not guessed at (fail open:
 * the lock and auth guards cover what matters).
 */
export const layerGuard: TrustLayer = {
  name: 'layer',
  order: TRUST_ORDER.layer,
  appliesTo: (call) => call.kind === 'act',
  async handle(call, next) {
    const intent = await call.intent();
    if (!deliversInput(intent)) return next();
    const d = await desktopOf(call);
    if (!d.layers) return next();
    if (intent.input === 'pointer') {
      for (const p of pointerPoints(intent, d) ?? []) {
        const l = coveringLayer(d.layers, p);
        if (l) {
          throw new TrustError({
            layer: 'layer',
            code: 'refused.layer',
            reason: `the ${l.kind} layer '${l.namespace}' covers (${p.x}, ${p.y}), so the input would go to it, not to any window beneath`,
            hint: DISMISS[l.kind] ?? 'dismiss it first',
          });
        }
      }
      return next();
    }
    const grab = keyboardGrab(d.layers);
    if (!grab) return next();
    const named = (intent.windows?.length ?? 0) > 0 && !intent.focusedWindow;
    const refuse = (why: string): never => {
      throw new TrustError({
        layer: 'layer',
        code: 'refused.layer',
        reason: `the ${grab.kind} layer '${grab.namespace}' holds the keyboard grab, so the keys would go to it${why}`,
        hint: DISMISS[grab.kind] ?? 'dismiss it first',
      });
    };
    if (named) refuse(`, not to window ${intent.windows!.join(', ')}`);
    if (call.config.confine.length) refuse(', which confinement never allows');
    if (grab.kind === 'lock' && !call.allowAuth) refuse('; only if the person asked you to type into the unlock prompt, call again with allow_auth: true');
    call.notes.push(`NOTE: the ${grab.kind} layer '${grab.namespace}' holds the keyboard grab, so the keys went to it, not to the focused window`);
    return next();
  },
};
