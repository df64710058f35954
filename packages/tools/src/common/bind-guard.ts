import { TrustError, keysOf, bindReachedBy, bindTableOf, comboModifiers, toHypruseError, type Bind, type KeyCombo, type ToolContext } from '@hypruse/core';
import { compositorOf } from './desktop.js';

const HINT = 'list the bindings with binds and run one with use_bind (the person decides what use_bind may do); to send keys to an app, use a combination that is not bound';

function refuse(reason: string, hint = HINT): never {
  throw new TrustError({ layer: 'keyboard', code: 'refused.bind', reason, hint });
}

/**
 * A combination the compositor would take as one of the person's bindings is
 * refused: the keyboard tool sends keys to apps, bindings run only through
 * use_bind. Both sides are compared normalized (core `bindReach`); a binding
 * that cannot be ruled out, or a binding table that cannot be read, refuses
 * (fail closed). Runs in the tool's intent, so a dry run refuses alike.
 */
export async function refuseCompositorBind(ctx: ToolContext, combo: KeyCombo): Promise<void> {
  const comp = compositorOf(ctx);
  let binds;
  try {
    binds = await bindTableOf(comp);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    refuse(`cannot read ${comp.displayName}'s key bindings (${toHypruseError(err).message}), so ${combo.source} cannot be ruled out as one of them`);
  }
  if (binds === null) {
    if (comboModifiers(combo).has('logo')) {
      refuse(`${comp.displayName}'s key bindings cannot be read, and ${combo.source} holds super, the modifier of compositor bindings: it may run one`, 'send keys without super; bindings are the person\'s to press');
    }
    return;
  }
  const hit = bindReachedBy(combo, binds);
  if (!hit) return;
  const what = `${hit.bind.combo} (${hit.bind.lua ? 'a Lua binding' : `${hit.bind.action} ${hit.bind.arg}`.trim()})`;
  if (hit.exact) refuse(`${combo.source} is the compositor binding ${what}: the keyboard tool sends keys to the focused app, and bindings run only through use_bind`);
  refuse(`${combo.source} may run the compositor binding ${what}: ${hit.why ?? 'it cannot be ruled out'}, so it is refused`);
}

/** The key a typed character presses (what the virtual keyboard sends for it). */
function keyOfChar(ch: string): string {
  return ch === '\n' || ch === '\r' ? 'Return' : ch === '\t' ? 'Tab' : ch === ' ' ? 'space' : ch;
}

/**
 * Typing holds no modifier, so it reaches only bindings without one (`bindsym
 * Print exec ...`, a bare letter or Return bound by the person): text holding
 * such a key is refused like the combination would be.
 */
export async function refuseTypedBinds(ctx: ToolContext, text: string): Promise<void> {
  const comp = compositorOf(ctx);
  let binds: Bind[] | null;
  try {
    binds = await bindTableOf(comp);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    refuse(`cannot read ${comp.displayName}'s key bindings (${toHypruseError(err).message}), so the text cannot be ruled out as pressing one of them`);
  }
  const bare = (binds ?? []).filter((b) => {
    const k = keysOf(b);
    return !b.mode && k.kind !== 'pointer' && k.modifiers.length === 0 && !(k.kind === 'unknown' && k.unknownModifiers);
  });
  if (bare.length === 0) return;
  for (const ch of new Set(text)) {
    const key = keyOfChar(ch);
    const hit = bindReachedBy({ modifiers: [], key, source: key }, bare);
    if (!hit) continue;
    const what = `${hit.bind.combo} (${hit.bind.lua ? 'a Lua binding' : `${hit.bind.action} ${hit.bind.arg}`.trim()})`;
    refuse(`the text holds ${JSON.stringify(ch)}, which presses ${key}, the compositor binding ${what}${hit.exact ? '' : ` (${hit.why ?? 'it cannot be ruled out'})`}: typing sends keys to the focused app, and bindings run only through use_bind`);
  }
}
