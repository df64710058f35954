import { bindKeysOf, type Bind, type BindKeys, type BindSyntax } from '@hypruse/core';
import type { RawBind } from './raw-types.js';

/** Modifier bits as Hyprland reports them, in the order hypruse names them (HYPRUSE-BEHAVIOR §1.11). */
const MOD_BITS: ReadonlyArray<[number, string]> = [
  [64, 'SUPER'],
  [4, 'CTRL'],
  [1, 'SHIFT'],
  [8, 'ALT'],
  [2, 'CAPS'],
  [16, 'MOD2'],
  [32, 'MOD3'],
  [128, 'MOD5'],
];

export function modmaskNames(mask: number): string[] {
  return MOD_BITS.filter(([bit]) => (mask & bit) !== 0).map(([, name]) => name);
}

/**
 * Is this bind defined in Lua? Hyprland 0.55/0.56 report every `hl.bind` as
 * dispatcher `__lua` with a Lua registry index as arg; main reports
 * `HL.Dispatcher(<name>)` or `function: 0x…` (hyprwm/Hyprland#15722).
 */
export function isLuaBind(raw: RawBind): boolean {
  const d = raw.dispatcher ?? '';
  return d === '__lua' || d.startsWith('HL.Dispatcher(') || /^function: 0x[0-9a-f]+$/i.test(d);
}

/** Normalize a combo for lookup: uppercase, no spaces. */
export function normalizeCombo(combo: string): string {
  return combo.toUpperCase().replace(/\s+/g, '');
}

const CHORD_MODS: Record<string, string> = { SUPER: 'super', CTRL: 'ctrl', SHIFT: 'shift', ALT: 'alt' };

/**
 * The chord that runs a bind from hypruse's virtual keyboard. Hyprland runs
 * binds for key events of virtual keyboards too (InputManager::onKeyboardKey
 * skips them only for the active input method's own keyboard), matching the
 * keysym of the uploaded keymap and its modifier mask. Only plain press binds
 * of the default submap with a named key and the four usual modifiers
 * qualify; letters are pressed as their lowercase keysym, as a real keyboard
 * without Shift sends them.
 */
export function bindChord(b: RawBind): string | null {
  if (b.mouse || b.release || b.catch_all || (b as { longPress?: boolean }).longPress) return null;
  if (b.submap && b.submap !== 'default') return null;
  const key = b.key ?? '';
  if (!key || key.startsWith('code:') || /^mouse/i.test(key)) return null;
  const mods = modmaskNames(b.modmask ?? 0);
  if (mods.some((m) => !(m in CHORD_MODS))) return null;
  return [...mods.map((m) => CHORD_MODS[m]), key.length === 1 ? key.toLowerCase() : key].join('+');
}

/**
 * Hyprland's binding syntax: its modifier names (also the config spellings
 * WIN, LOGO, MOD4, MOD1, CONTROL), `code:N` keycodes (XKB keycodes, as j/binds
 * lists them) and the pointer pseudo-keys (mouse:272, mouse_down, switch:...).
 */
export const HYPR_BIND_SYNTAX: BindSyntax = {
  modifiers: {
    super: 'logo', win: 'logo', logo: 'logo', mod4: 'logo', ctrl: 'ctrl', control: 'ctrl', shift: 'shift',
    alt: 'alt', mod1: 'alt', caps: 'caps', mod2: 'mod2', mod3: 'mod3', mod5: 'altgr',
  },
  pointer: (key) => /^mouse(:\d+|_up|_down|_left|_right)$/i.test(key) || /^switch:/i.test(key),
  keycode: (key) => {
    const m = /^code:(\d+)$/i.exec(key);
    return m ? Number(m[1]) : null;
  },
};

/** A bind's keys in the normalized form, from its modmask and key as Hyprland reports them. */
export function hyprBindKeys(b: RawBind): BindKeys {
  if (b.mouse) return { kind: 'pointer' };
  const key = b.key ? b.key : b.keycode ? `code:${b.keycode}` : '';
  return bindKeysOf([...modmaskNames(b.modmask ?? 0), key].join('+'), HYPR_BIND_SYNTAX);
}

/** `j/binds` → binds: mouse binds and binds without key or keycode dropped; Lua binds flagged `lua: true`, action `lua`. */
export function mapBinds(raw: RawBind[] | null | undefined): Bind[] {
  const out: Bind[] = [];
  for (const b of raw ?? []) {
    if (b.mouse) continue;
    const key = b.key ? b.key : b.keycode ? `code:${b.keycode}` : '';
    if (!key) continue;
    const combo = [...modmaskNames(b.modmask ?? 0), key.length === 1 ? key.toUpperCase() : key].join('+');
    const description = b.description ? b.description : undefined;
    const mode = b.submap ? b.submap : undefined;
    if (isLuaBind(b)) {
      const named = /^HL\.Dispatcher\((.*)\)$/.exec(b.dispatcher ?? '');
      out.push({
        combo,
        keys: hyprBindKeys(b),
        action: 'lua',
        arg: '',
        lua: true,
        ...(bindChord(b) ? { chord: bindChord(b)! } : {}),
        ...(description ? { description } : named ? { description: `Lua dispatcher ${named[1]}` } : {}),
        ...(mode ? { mode } : {}),
      });
      continue;
    }
    out.push({ combo, keys: hyprBindKeys(b), action: b.dispatcher ?? '', arg: b.arg ?? '', ...(description ? { description } : {}), ...(mode ? { mode } : {}) });
  }
  return out;
}
