/**
 * Compositor bindings and the keys hypruse presses, compared in one normalized
 * form. A compositor plugin turns its own binding syntax into `BindKeys` with
 * `bindKeysOf` and its syntax table (it knows the syntax); the keyboard tool and
 * the confinement layer compare an agent's combination against those with
 * `bindReach` (they know nothing of any syntax). What is not understood is
 * matched as widely as the understood parts allow: fail closed.
 */
import type { Bind, BindKeys, Compositor } from './contracts/compositor.js';
import type { KeyCombo } from './contracts/input.js';
import { canonicalKey } from './keysyms.js';

/** Modifier keys, by keysym, as the modifier they hold. */
const MODIFIER_KEYSYMS: Record<string, string> = {
  shift_l: 'shift', shift_r: 'shift', control_l: 'ctrl', control_r: 'ctrl', alt_l: 'alt', alt_r: 'alt', meta_l: 'alt', meta_r: 'alt',
  super_l: 'logo', super_r: 'logo', hyper_l: 'logo', hyper_r: 'logo', iso_level3_shift: 'altgr', mode_switch: 'altgr',
};

/**
 * The XKB keycodes (evdev + 8) at which hypruse's virtual keyboard always
 * places these keys (their usual US positions); other keysyms get free codes
 * that change from one keymap to the next.
 */
export const STANDARD_KEYCODES: ReadonlyMap<string, number> = new Map<string, number>([
  ['Shift_L', 50], ['Control_L', 37], ['Alt_L', 64], ['Super_L', 133], ['ISO_Level3_Shift', 108],
  ['Escape', 9], ['BackSpace', 22], ['Tab', 23], ['Return', 36], ['space', 65], ['Caps_Lock', 66],
  ['F1', 67], ['F2', 68], ['F3', 69], ['F4', 70], ['F5', 71], ['F6', 72], ['F7', 73], ['F8', 74], ['F9', 75], ['F10', 76],
  ['F11', 95], ['F12', 96], ['KP_Enter', 104], ['Print', 107], ['Home', 110], ['Up', 111], ['Page_Up', 112], ['Left', 113],
  ['Right', 114], ['End', 115], ['Down', 116], ['Page_Down', 117], ['Insert', 118], ['Delete', 119], ['Pause', 127],
  ['Menu', 135], ['F13', 191], ['F14', 192], ['F15', 193], ['F16', 194], ['F17', 195], ['F18', 196], ['F19', 197],
  ['F20', 198], ['F21', 199], ['F22', 200], ['F23', 201], ['F24', 202],
  ...[...'1234567890'].map((c, i) => [c, 10 + i] as [string, number]),
  ...[...'qwertyuiop'].map((c, i) => [c, 24 + i] as [string, number]),
  ...[...'asdfghjkl'].map((c, i) => [c, 38 + i] as [string, number]),
  ...[...'zxcvbnm'].map((c, i) => [c, 52 + i] as [string, number]),
]);

let codeByKey: Map<string, number> | null = null;
function standardCode(key: string): number | undefined {
  codeByKey ??= new Map([...STANDARD_KEYCODES].map(([k, c]) => [canonicalKey(k) ?? k.toLowerCase(), c]));
  return codeByKey.get(key);
}

/** A compositor's binding syntax, as its plugin declares it. */
export interface BindSyntax {
  /** Modifier names, lowercase, to hypruse's: ctrl, shift, alt, logo, altgr (and caps, mod2, mod3, which hypruse never holds). */
  modifiers: Readonly<Record<string, string>>;
  /** Key parts that are a mouse button, wheel, touchpad gesture or switch (no key press reaches them). */
  pointer?: (key: string) => boolean;
  /** A key part naming a raw keycode, as its XKB keycode; null when the part is not one. */
  keycode?: (key: string) => number | null;
}

/** Normalize one binding's combo (`Mod4+Shift+q`, `SUPER+Return`, `Mod+T`) by the compositor's syntax. */
export function bindKeysOf(combo: string, syntax: BindSyntax): BindKeys {
  const parts = combo.split('+').map((p) => p.trim());
  const keyPart = parts.pop() ?? '';
  const modifiers: string[] = [];
  const unknown: string[] = [];
  for (const p of parts) {
    const m = syntax.modifiers[p.toLowerCase()];
    if (m && !modifiers.includes(m)) modifiers.push(m);
    else if (!m) unknown.push(p === '' ? '(an empty part)' : p);
  }
  if (keyPart && syntax.pointer?.(keyPart)) return { kind: 'pointer' };
  const code = keyPart ? (syntax.keycode?.(keyPart) ?? null) : null;
  const key = code === null && keyPart ? canonicalKey(keyPart) : null;
  if (unknown.length || (code === null && key === null)) {
    const unknownModifiers = unknown.length > 0;
    if (code === null && key === null) unknown.push(keyPart === '' ? '(no key)' : keyPart);
    // An unknown key name with modifiers matches any key under them (fail closed). Without any, it
    // matches its own name only: every key hypruse presses has a name it knows, and refusing every
    // unmodified key for one odd bare binding would leave no key to press.
    const bareName = !unknownModifiers && modifiers.length === 0 && key === null && keyPart ? keyPart.toLowerCase() : null;
    return { kind: 'unknown', modifiers, key: key ?? bareName, unknownModifiers, unknown: unknown.join(', ') };
  }
  if (code !== null) return { kind: 'code', modifiers, code };
  return { kind: 'key', modifiers, key: key! };
}

/** The modifiers a combination holds, with a modifier key pressed as its key (`Super_L`) counted too. */
export function comboModifiers(combo: KeyCombo): Set<string> {
  const mods = new Set<string>(combo.modifiers);
  const asMod = combo.key === null ? undefined : MODIFIER_KEYSYMS[combo.key.toLowerCase()];
  if (asMod) mods.add(asMod);
  return mods;
}

const sameSet = (a: ReadonlySet<string>, b: readonly string[]) => a.size === new Set(b).size && b.every((m) => a.has(m));

/**
 * Would pressing `combo` on hypruse's virtual keyboard run a binding with
 * these keys? `exact`: the compositor would match it; `possible`: the binding
 * has parts that are not understood (or a keycode hypruse places freely), so
 * it cannot be ruled out and is treated as a match; null: it cannot.
 */
export function bindReach(combo: KeyCombo, keys: BindKeys | undefined): { exact: boolean; why?: string } | null {
  if (!keys) return { exact: false, why: 'the compositor plugin did not normalize this binding' };
  if (keys.kind === 'pointer') return null;
  const held = new Set<string>(combo.modifiers);
  const key = combo.key === null ? null : canonicalKey(combo.key);
  // a modifier tap ("super") presses that modifier's key: Super_L
  const pressed = key ?? (combo.modifiers.length ? canonicalKey(({ ctrl: 'Control_L', shift: 'Shift_L', alt: 'Alt_L', logo: 'Super_L', altgr: 'ISO_Level3_Shift' } as const)[combo.modifiers[combo.modifiers.length - 1]]) : null);
  if (keys.kind === 'key') {
    const bindMod = MODIFIER_KEYSYMS[keys.key];
    if (bindMod) {
      // a binding on a modifier key itself (`--release Super_L`): reached by anything holding that modifier
      const all = comboModifiers(combo);
      return all.has(bindMod) && keys.modifiers.every((m) => all.has(m)) ? { exact: true } : null;
    }
    return pressed === keys.key && sameSet(held, keys.modifiers) ? { exact: true } : null;
  }
  if (keys.kind === 'code') {
    if (!sameSet(held, keys.modifiers) || pressed === null) return null;
    const code = standardCode(pressed);
    if (code === keys.code) return { exact: true };
    if (code === undefined) return { exact: false, why: `it is bound by keycode ${keys.code}, and ${combo.key} gets a keycode hypruse chooses per keymap` };
    return null;
  }
  // unknown parts: every understood modifier must be held; unknown modifiers may be any extra ones
  if (!keys.modifiers.every((m) => held.has(m))) return null;
  // an unknown modifier may be any one hypruse holds beyond the understood ones, but one must be held
  if (keys.unknownModifiers ? held.size <= keys.modifiers.length : held.size !== keys.modifiers.length) return null;
  if (keys.key !== null && pressed !== keys.key) return null;
  return { exact: false, why: `hypruse does not understand ${keys.unknown} in this binding` };
}

/** The modifier names of every compositor hypruse knows, for a binding its plugin did not normalize. */
const GENERIC_SYNTAX: BindSyntax = {
  modifiers: {
    super: 'logo', mod4: 'logo', win: 'logo', logo: 'logo', mod: 'logo', ctrl: 'ctrl', control: 'ctrl', shift: 'shift', alt: 'alt', mod1: 'alt',
    altgr: 'altgr', mod5: 'altgr', caps: 'caps', lock: 'caps', mod2: 'mod2', mod3: 'mod3',
  },
};

/** A binding's normalized keys: its plugin's, else read with every known compositor's modifier names (what is left unknown fails closed). */
export function keysOf(b: Bind): BindKeys {
  return b.keys ?? bindKeysOf(b.combo.replace(/\s+/g, ''), GENERIC_SYNTAX);
}

/** The first binding of the default mode that `combo` would run, if any (see bindReach). */
export function bindReachedBy(combo: KeyCombo, binds: readonly Bind[]): { bind: Bind; exact: boolean; why?: string } | null {
  let possible: { bind: Bind; exact: boolean; why?: string } | null = null;
  for (const b of binds) {
    if (b.mode) continue;
    const r = bindReach(combo, keysOf(b));
    if (r?.exact) return { bind: b, exact: true };
    if (r && !possible) possible = { bind: b, exact: false, ...(r.why ? { why: r.why } : {}) };
  }
  return possible;
}

/**
 * The compositor's own modifiers: logo always (every compositor's default
 * binding modifier), and the modifier used by the most default-mode bindings
 * (a person whose `$mod` is Alt). Under confinement a combination holding one
 * of these never reaches the seat unless the person allowed it.
 */
export function compositorModifiers(binds: readonly Bind[]): Set<string> {
  const out = new Set<string>(['logo']);
  const count = new Map<string, number>();
  for (const b of binds) {
    const keys = keysOf(b);
    if (b.mode || keys.kind === 'pointer') continue;
    for (const m of keys.modifiers) count.set(m, (count.get(m) ?? 0) + 1);
  }
  const top = Math.max(0, ...count.values());
  if (top > 0) for (const [m, n] of count) if (n === top) out.add(m);
  return out;
}

/**
 * The person's bindings as far as the compositor can tell: its IPC listing, or
 * its configuration file; null when neither is available. A failing read
 * throws (the caller refuses: it cannot rule a binding out).
 */
export async function bindTableOf(comp: Compositor): Promise<Bind[] | null> {
  if (comp.capabilities.has('binds')) return comp.binds();
  return (await comp.configuredBinds?.()) ?? null;
}
