import { UsageError, type KeyCombo } from '@hypruse/core';
import type { Dialect } from '../dispatch/dialect.js';
import { normalizeCombo } from './binds.js';

/** What the chord's `event` dispatcher sends on socket2: `custom>>hypruse-stop`. */
export const STOP_CHORD_EVENT = 'hypruse-stop';

const HYPR_MODIFIER: Record<KeyCombo['modifiers'][number], string> = { ctrl: 'CTRL', shift: 'SHIFT', alt: 'ALT', logo: 'SUPER', altgr: 'MOD5' };
const ORDER = ['SUPER', 'CTRL', 'SHIFT', 'ALT', 'MOD5'];

function parts(combo: KeyCombo): { mods: string[]; key: string } {
  if (!combo.key) throw new UsageError(`the stop chord ${JSON.stringify(combo.source)} has no key (only modifiers)`, { code: 'usage.combo' });
  if (!/^[A-Za-z0-9_]+$/.test(combo.key)) throw new UsageError(`the stop chord key ${JSON.stringify(combo.key)} cannot be bound in Hyprland: give an XKB key name`, { code: 'usage.combo' });
  const mods = combo.modifiers.map((m) => HYPR_MODIFIER[m]).sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b));
  return { mods, key: combo.key };
}

/** The combo as `binds()` renders it (`SUPER+ALT+Escape`), to find a bind that already uses the keys. */
export function hyprChordCombo(combo: KeyCombo): string {
  const { mods, key } = parts(combo);
  return [...mods, key.length === 1 ? key.toUpperCase() : key].join('+');
}

/** The requests that add and remove the chord in each dialect. */
export function hyprChordRequests(combo: KeyCombo, dialect: Dialect): { bind: string; unbind: string } {
  const { mods, key } = parts(combo);
  if (dialect === 'lua') {
    const keys = JSON.stringify([...mods, key].join(' + '));
    return { bind: `eval hl.bind(${keys}, hl.dsp.event(${JSON.stringify(STOP_CHORD_EVENT)}))`, unbind: `eval hl.unbind(${keys})` };
  }
  return { bind: `keyword bind ${mods.join(' ')},${key},event,${STOP_CHORD_EVENT}`, unbind: `keyword unbind ${mods.join(' ')},${key}` };
}

export function sameHyprCombo(a: string, b: string): boolean {
  return normalizeCombo(a) === normalizeCombo(b);
}
