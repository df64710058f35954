/**
 * The key-combination grammar shared by every input backend and tool.
 *
 * `+`-separated parts, whitespace around parts ignored. Every part before the
 * last must be a modifier (case-insensitive): ctrl/control, shift, alt,
 * super/meta/win/cmd/logo (-> logo), altgr. The last part is either a
 * modifier (a bare modifier tap, `key: null`) or a key:
 *   - aliases (case-insensitive): enter/return, esc/escape, tab, space,
 *     backspace, delete/del, insert/ins, home, end, pgup/pageup,
 *     pgdn/pagedown, up, down, left, right, menu;
 *   - f1..f35 (case-insensitive) -> F1..F35;
 *   - a single character, literally (`a`, `A`, `/`, `é`), never a control character;
 *   - any other XKB keysym name (`XF86AudioPlay`, `KP_Enter`): the exact name,
 *     or the only one that matches ignoring case (`xf86audioplay`).
 * A literal `+` key is written `plus`. Anything else (`Frobnicate`, `"\u0000"`)
 * is a usage error naming the closest valid names: an unknown name never
 * reaches a keymap.
 */
import type { KeyCombo } from './contracts/input.js';
import { UsageError } from './errors.js';
import { closestKeyNames, isControlChar, keysymNames, lookupKeysym } from './keysyms.js';

export type Modifier = KeyCombo['modifiers'][number];

const MODIFIERS: Record<string, Modifier> = {
  ctrl: 'ctrl',
  control: 'ctrl',
  shift: 'shift',
  alt: 'alt',
  super: 'logo',
  meta: 'logo',
  win: 'logo',
  cmd: 'logo',
  logo: 'logo',
  mod4: 'logo',
  mod1: 'alt',
  altgr: 'altgr',
  mod5: 'altgr',
};

const KEY_ALIASES: Record<string, string> = {
  enter: 'Return',
  return: 'Return',
  esc: 'Escape',
  escape: 'Escape',
  tab: 'Tab',
  space: 'space',
  backspace: 'BackSpace',
  delete: 'Delete',
  del: 'Delete',
  insert: 'Insert',
  ins: 'Insert',
  home: 'Home',
  end: 'End',
  pgup: 'Page_Up',
  pageup: 'Page_Up',
  page_up: 'Page_Up',
  pgdn: 'Page_Down',
  pagedown: 'Page_Down',
  page_down: 'Page_Down',
  up: 'Up',
  down: 'Down',
  left: 'Left',
  right: 'Right',
  menu: 'Menu',
};

const ACCEPTED =
  'accepted: modifiers ctrl, shift, alt, super (meta/win/cmd), altgr joined with "+" to one key: ' +
  'enter, esc, tab, space, backspace, delete, insert, home, end, pgup, pgdn, up, down, left, right, f1..f35, ' +
  'a single character, or an XKB keysym name such as XF86AudioPlay (write "plus" for the + key)';

function fail(source: string, why: string): never {
  throw new UsageError(`cannot parse key combination ${JSON.stringify(source)}: ${why}`, {
    code: 'usage.combo',
    hint: `${ACCEPTED}; examples: "ctrl+a", "ctrl+shift+t", "Return", "super", "alt+F4"`,
  });
}

/** Normalize one key part (the last part of a combo) to an XKB keysym name. */
function keyName(part: string, source: string): string {
  const lower = part.toLowerCase();
  const alias = KEY_ALIASES[lower];
  if (alias) return alias;
  const f = /^f(\d{1,2})$/i.exec(part);
  if (f) {
    const n = Number(f[1]);
    if (n < 1 || n > 35 || f[1].startsWith('0')) fail(source, `no function key ${JSON.stringify(part)} (F1..F35 exist)`);
    return `F${n}`;
  }
  if ([...part].length === 1) {
    if (isControlChar(part)) fail(source, `${JSON.stringify(part)} is a control character, not a key (write the key's name: enter, tab, backspace, esc...)`);
    return part;
  }
  const { keysym, ambiguous } = lookupKeysym(part);
  if (keysym) return keysym.name;
  if (ambiguous) fail(source, `${JSON.stringify(part)} names several keys that differ only in case: ${ambiguous.join(', ')}`);
  const near = closestKeyNames(part, [...keysymNames(), ...Object.keys(KEY_ALIASES)]);
  return fail(source, `${JSON.stringify(part)} is not a key name (closest: ${near.join(', ')})`);
}

export function parseCombo(source: string): KeyCombo {
  if (typeof source !== 'string' || source.trim() === '') fail(String(source), 'it is empty');
  const parts = source.split('+').map((p) => p.trim());
  const empty = parts.findIndex((p) => p === '');
  if (empty >= 0) {
    const plus = /\+\s*(\+|$)/.test(source.trim()) ? '; write "plus" for the + key' : '';
    fail(source, `empty part ${empty + 1} of ${parts.length}${plus}`);
  }
  const modifiers: Modifier[] = [];
  const addModifier = (m: Modifier, raw: string) => {
    if (modifiers.includes(m)) fail(source, `modifier ${JSON.stringify(raw)} is given twice`);
    modifiers.push(m);
  };
  for (const part of parts.slice(0, -1)) {
    const m = MODIFIERS[part.toLowerCase()];
    if (!m) fail(source, `${JSON.stringify(part)} is not a modifier (only the last part may be a key; closest modifiers: ${closestKeyNames(part, Object.keys(MODIFIERS), 3).join(', ')})`);
    addModifier(m, part);
  }
  const last = parts[parts.length - 1];
  const lastMod = MODIFIERS[last.toLowerCase()];
  if (lastMod) {
    addModifier(lastMod, last);
    return { modifiers, key: null, source };
  }
  return { modifiers, key: keyName(last, source), source };
}

/**
 * Modifier names held during a click (`["ctrl"]`, `["ctrl", "shift"]`, or one "ctrl+shift" string),
 * normalized like a combo's modifiers, in the order given (released in reverse).
 */
export function parseModifiers(list: readonly string[]): Modifier[] {
  const out: Modifier[] = [];
  for (const raw of list.flatMap((s) => String(s).split('+')).map((s) => s.trim()).filter(Boolean)) {
    const m = MODIFIERS[raw.toLowerCase()];
    if (!m) {
      throw new UsageError(`modifier ${JSON.stringify(raw)} is not one of ctrl, shift, alt, super (meta/win/cmd), altgr`, {
        code: 'usage.combo',
        hint: 'e.g. modifiers: ["ctrl"] for ctrl+click, ["ctrl", "shift"] for ctrl+shift+click',
      });
    }
    if (out.includes(m)) throw new UsageError(`modifier ${JSON.stringify(raw)} is given twice`, { code: 'usage.combo' });
    out.push(m);
  }
  return out;
}

/** The canonical text of a combo (`ctrl+shift+t`), for messages and the journal. */
export function formatCombo(combo: KeyCombo): string {
  return [...combo.modifiers, ...(combo.key === null ? [] : [combo.key])].join('+');
}
