/**
 * XKB keysym names: which names exist, their values, and the one comparable
 * form of a key that every binding check uses (`canonicalKey`).
 *
 * The table comes from the X11 keysym headers (scripts/gen-keysyms.mjs); it is
 * parsed on first use, never at start.
 */
import { KEYSYM_TABLE } from './keysym-table.js';

export interface Keysym {
  /** The name as XKB spells it (`Return`, `XF86AudioPlay`, `q`). */
  name: string;
  value: number;
  /** The character the keysym stands for, when it stands for one. */
  char: string | null;
}

let byName: Map<string, Keysym> | null = null;
let byLower: Map<string, Keysym[]> | null = null;

function charOf(value: number, cp: number | null): string | null {
  if (cp !== null) return String.fromCodePoint(cp);
  if ((value >= 0x20 && value <= 0x7e) || (value >= 0xa0 && value <= 0xff)) return String.fromCodePoint(value);
  if (value >= 0x1000100 && value <= 0x110ffff) return String.fromCodePoint(value - 0x1000000);
  return null;
}

function load(): void {
  if (byName) return;
  byName = new Map();
  byLower = new Map();
  for (const line of KEYSYM_TABLE.split('\n')) {
    if (!line) continue;
    const [name, v, c] = line.split(' ');
    const value = parseInt(v, 16);
    const k: Keysym = { name, value, char: charOf(value, c ? parseInt(c, 16) : null) };
    byName.set(name, k);
    const l = name.toLowerCase();
    const list = byLower.get(l);
    if (list) list.push(k);
    else byLower.set(l, [k]);
  }
}

/** Is this a control character (C0, DEL, C1) or a lone surrogate, never a key of its own? */
export function isControlChar(ch: string): boolean {
  return /^[\p{Cc}\p{Cs}]$/u.test(ch);
}

/**
 * The keysym of a name: the exact name, else the only name that matches
 * ignoring case, else an `Uxxxx` Unicode name of a printable character;
 * null when there is none (or several differ only in case: `ambiguous`).
 */
export function lookupKeysym(name: string): { keysym: Keysym | null; ambiguous?: string[] } {
  load();
  const exact = byName!.get(name);
  if (exact) return { keysym: exact };
  const u = /^U([0-9A-Fa-f]{4,6})$/.exec(name);
  if (u) {
    const cp = parseInt(u[1], 16);
    if (cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff)) {
      const ch = String.fromCodePoint(cp);
      if (!isControlChar(ch)) return { keysym: { name, value: cp < 0x100 ? cp : 0x1000000 + cp, char: ch } };
    }
    return { keysym: null };
  }
  const folded = byLower!.get(name.toLowerCase()) ?? [];
  if (folded.length === 1) return { keysym: folded[0] };
  if (folded.length > 1) return { keysym: null, ambiguous: folded.map((k) => k.name) };
  return { keysym: null };
}

/** Every keysym name (for "did you mean"). */
export function keysymNames(): string[] {
  load();
  return [...byName!.keys()];
}

/**
 * The comparable form of a key: its character, lowercased, when it stands for
 * one (`q`, `-`, `é`, `а`), else its keysym name lowercased (`return`,
 * `xf86audioplay`). Keys that differ only in case or name spelling compare
 * equal (a compositor matches binding keysyms case-insensitively); null for a
 * name that is no keysym.
 */
export function canonicalKey(key: string): string | null {
  const chars = [...key];
  if (chars.length === 1) return isControlChar(key) ? null : key.toLowerCase();
  const { keysym, ambiguous } = lookupKeysym(key);
  if (ambiguous) return key.toLowerCase();
  if (!keysym) return null;
  if (keysym.char !== null && !isControlChar(keysym.char) && keysym.char !== ' ') return keysym.char.toLowerCase();
  return keysym.name.toLowerCase();
}

/** Edit distance, for suggestions. */
function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length];
}

/** The valid names closest to `wrong` (case-insensitive edit distance, then prefix matches), at most `n`. */
export function closestKeyNames(wrong: string, candidates: readonly string[], n = 5): string[] {
  const w = wrong.toLowerCase();
  const scored = candidates.map((c, i) => {
    const l = c.toLowerCase();
    let d = distance(w, l);
    if (w.length >= 3 && l.startsWith(w)) d = Math.min(d, 1 + (l.length - w.length) / 4);
    return { c, d, i };
  });
  // ties: the shorter name, then the one listed first (so a keysym's own spelling wins over an alias)
  scored.sort((a, b) => a.d - b.d || a.c.length - b.c.length || a.i - b.i);
  const out: string[] = [];
  // far-off names are no help: keep those within about half the name's length (at least the best few)
  const near = Math.max(2, Math.ceil(w.length / 2));
  for (const s of scored) {
    if (s.d > near && out.length >= 3) break;
    if (out.some((o) => o.toLowerCase() === s.c.toLowerCase())) continue;
    out.push(s.c);
    if (out.length === n) break;
  }
  return out;
}
