import { UsageError, type KeyCombo } from '@hypruse/core';

/** The command the stop chord runs: `nop` does nothing in sway, and the binding event carries it to hypruse. */
export const STOP_CHORD_COMMAND = 'nop hypruse-stop';

const SWAY_MODIFIER: Record<KeyCombo['modifiers'][number], string> = { ctrl: 'Ctrl', shift: 'Shift', alt: 'Mod1', logo: 'Mod4', altgr: 'Mod5' };

/** A hypruse combo in sway's bindsym syntax (`Mod4+Mod1+Escape`). */
export function swayChord(combo: KeyCombo): string {
  if (!combo.key) throw new UsageError(`the stop chord ${JSON.stringify(combo.source)} has no key (only modifiers)`, { code: 'usage.combo' });
  if (!/^[A-Za-z0-9_]+$/.test(combo.key)) throw new UsageError(`the stop chord key ${JSON.stringify(combo.key)} cannot be bound in sway: give an XKB key name`, { code: 'usage.combo' });
  return [...combo.modifiers.map((m) => SWAY_MODIFIER[m]), combo.key].join('+');
}

/** `bindsym` and `unbindsym` commands for the chord (the same flags, so unbindsym finds it). */
export function swayChordCommands(combo: KeyCombo): { bind: string; unbind: string; keys: string } {
  const keys = swayChord(combo);
  return { bind: `bindsym --no-repeat ${keys} ${STOP_CHORD_COMMAND}`, unbind: `unbindsym --no-repeat ${keys}`, keys };
}

/** Do two sway combos name the same keys (modifier order and case aside)? */
export function sameSwayKeys(a: string, b: string): boolean {
  const norm = (s: string) => {
    const alias: Record<string, string> = { mod4: 'mod4', super: 'mod4', logo: 'mod4', mod1: 'mod1', alt: 'mod1', control: 'ctrl', ctrl: 'ctrl', shift: 'shift', mod5: 'mod5' };
    const parts = s.split('+').map((p) => p.trim().toLowerCase());
    const key = parts.pop() ?? '';
    return [...parts.map((p) => alias[p] ?? p).sort(), key].join('+');
  };
  return norm(a) === norm(b);
}
