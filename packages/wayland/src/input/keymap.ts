/**
 * XKB text keymaps for the in-process virtual keyboard (pure functions).
 *
 * The keymap always holds the modifiers and the common named keys at their
 * standard evdev positions, the US letters and digits at theirs, and then one
 * free keycode per extra keysym the caller needs (each distinct character of
 * the text being typed, or a keysym named in a combo). Every key has a single
 * level, so no modifier is needed to produce a character: `A` is its own key.
 * Types and compat come from the compositor's `complete` set.
 */
import { STANDARD_KEYCODES, type KeyCombo } from '@hypruse/core';

export type Modifier = KeyCombo['modifiers'][number];

/** XKB keycode (= evdev + 8) of each modifier key, its keysym, and its real modifier. */
export const MODIFIER_KEYS: Record<Modifier, { code: number; keysym: string; realMod: string; mask: number }> = {
  shift: { code: 50, keysym: 'Shift_L', realMod: 'Shift', mask: 1 },
  ctrl: { code: 37, keysym: 'Control_L', realMod: 'Control', mask: 4 },
  alt: { code: 64, keysym: 'Alt_L', realMod: 'Mod1', mask: 8 },
  logo: { code: 133, keysym: 'Super_L', realMod: 'Mod4', mask: 64 },
  altgr: { code: 108, keysym: 'ISO_Level3_Shift', realMod: 'Mod5', mask: 128 },
};

/** The modifiers, the common named keys, US letters and digits at their standard XKB keycodes (one table, in core). */
export const BASE_KEYS: ReadonlyMap<string, number> = STANDARD_KEYCODES;

const USED = new Set(BASE_KEYS.values());
/** Free keycodes for extra keysyms: everything from 9 to 255 not used above. */
export const FREE_CODES: readonly number[] = Array.from({ length: 255 - 9 + 1 }, (_, i) => 9 + i).filter((c) => !USED.has(c));

/** The keysym name that produces one character (control characters map to their keys). */
export function keysymForChar(ch: string): string {
  if (ch === '\n' || ch === '\r') return 'Return';
  if (ch === '\t') return 'Tab';
  if (ch === ' ') return 'space';
  if (/^[a-z0-9]$/.test(ch)) return ch;
  const cp = ch.codePointAt(0) ?? 0;
  return `U${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The keysym name for the key of a combo (single characters become Unicode keysyms). */
export function keysymForComboKey(key: string): string {
  return [...key].length === 1 ? keysymForChar(key) : key;
}

/** Layout name of every keymap the virtual keyboard uploads (what compositors report as its active layout). */
export const KEYMAP_LAYOUT_NAME = 'hypruse virtual keyboard';

export interface Keymap {
  /** XKB text, without the trailing NUL. */
  text: string;
  /** keysym name -> XKB keycode. */
  codes: ReadonlyMap<string, number>;
}

/**
 * Build a keymap holding the base keys plus `extra` keysyms (at most
 * FREE_CODES.length of them; the caller splits longer sets).
 */
export function buildKeymap(extra: Iterable<string>): Keymap {
  const codes = new Map(BASE_KEYS);
  const free = [...FREE_CODES];
  for (const sym of extra) {
    if (codes.has(sym)) continue;
    const code = free.shift();
    if (code === undefined) throw new RangeError(`too many distinct keys for one keymap (limit ${FREE_CODES.length} extra)`);
    codes.set(sym, code);
  }
  const byCode = [...codes].sort((a, b) => a[1] - b[1]);
  const keycodes = byCode.map(([, c]) => `    <I${c}> = ${c};`).join('\n');
  const symbols = byCode.map(([s, c]) => `    key <I${c}> { [ ${s} ] };`).join('\n');
  const modmap = Object.values(MODIFIER_KEYS)
    .map((m) => `    modifier_map ${m.realMod} { <I${m.code}> };`)
    .join('\n');
  const text = [
    'xkb_keymap {',
    '  xkb_keycodes "hypruse" {',
    '    minimum = 8;',
    '    maximum = 255;',
    keycodes,
    '  };',
    '  xkb_types "hypruse" { include "complete" };',
    '  xkb_compatibility "hypruse" { include "complete" };',
    '  xkb_symbols "hypruse" {',
    // the layout's name: without it xkb_keymap_layout_get_name() is NULL, and Hyprland reports the layout as `error`
    `    name[Group1] = "${KEYMAP_LAYOUT_NAME}";`,
    symbols,
    modmap,
    '  };',
    '};',
    '',
  ].join('\n');
  return { text, codes };
}

/** Split text into runs whose distinct extra keysyms fit in one keymap each. */
export function planTyping(text: string): Array<{ chars: string[]; keysyms: string[] }> {
  const runs: Array<{ chars: string[]; keysyms: string[] }> = [];
  let cur: { chars: string[]; keysyms: string[]; extra: Set<string> } | null = null;
  for (const ch of text) {
    const sym = keysymForChar(ch);
    const isExtra = !BASE_KEYS.has(sym);
    if (!cur || (isExtra && !cur.extra.has(sym) && cur.extra.size >= FREE_CODES.length)) {
      if (cur) runs.push({ chars: cur.chars, keysyms: cur.keysyms });
      cur = { chars: [], keysyms: [], extra: new Set() };
    }
    cur.chars.push(ch);
    cur.keysyms.push(sym);
    if (isExtra) cur.extra.add(sym);
  }
  if (cur) runs.push({ chars: cur.chars, keysyms: cur.keysyms });
  return runs;
}
