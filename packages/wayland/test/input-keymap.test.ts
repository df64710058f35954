// Keymap generation and helpers of the virtual pointer and keyboard (pure).
import { describe, expect, it } from 'vitest';
import { parseCombo } from '@hypruse/core';
import {
  BASE_KEYS, FREE_CODES, MODIFIER_KEYS, absoluteMotionArgs, axisPlan, buildKeymap, keysymForChar, keysymForComboKey,
  planTyping, wtypeComboArgs,
} from '../src/input/index.js';

describe('keysymForChar', () => {
  it('maps characters to keysyms that need no modifier', () => {
    expect(keysymForChar('a')).toBe('a');
    expect(keysymForChar('7')).toBe('7');
    expect(keysymForChar('A')).toBe('U0041');
    expect(keysymForChar('é')).toBe('U00E9');
    expect(keysymForChar('日')).toBe('U65E5');
    expect(keysymForChar('😀')).toBe('U1F600');
    expect(keysymForChar('\n')).toBe('Return');
    expect(keysymForChar('\t')).toBe('Tab');
    expect(keysymForChar(' ')).toBe('space');
  });

  it('combo keys: one character like typing, names unchanged', () => {
    expect(keysymForComboKey('a')).toBe('a');
    expect(keysymForComboKey('/')).toBe('U002F');
    expect(keysymForComboKey('Page_Up')).toBe('Page_Up');
  });
});

describe('buildKeymap', () => {
  it('puts named keys and modifiers at their evdev positions', () => {
    const km = buildKeymap([]);
    expect(km.codes.get('Return')).toBe(36);
    expect(km.codes.get('BackSpace')).toBe(22);
    expect(km.codes.get('a')).toBe(38);
    expect(km.codes.get('Control_L')).toBe(MODIFIER_KEYS.ctrl.code);
    expect(km.text).toContain('key <I36> { [ Return ] };');
    expect(km.text).toContain('modifier_map Control { <I37> };');
    expect(km.text).toContain('modifier_map Mod4 { <I133> };');
    expect(km.text).toContain('xkb_types "hypruse" { include "complete" };');
  });

  it('gives each extra keysym its own free keycode, once', () => {
    const km = buildKeymap(['U00E9', 'U65E5', 'U00E9', 'Return']);
    const e = km.codes.get('U00E9')!;
    const j = km.codes.get('U65E5')!;
    expect(e).not.toBe(j);
    expect(FREE_CODES).toContain(e);
    expect([...BASE_KEYS.values()]).not.toContain(e);
    expect(km.codes.size).toBe(BASE_KEYS.size + 2);
    expect(km.text.match(new RegExp(`<I${e}> = ${e};`, 'g'))).toHaveLength(1);
    const codes = [...km.codes.values()];
    expect(new Set(codes).size).toBe(codes.length);
    expect(Math.max(...codes)).toBeLessThanOrEqual(255);
    expect(Math.min(...codes)).toBeGreaterThanOrEqual(9);
  });

  it('refuses more extra keysyms than free keycodes', () => {
    const many = Array.from({ length: FREE_CODES.length + 1 }, (_, i) => `U${(0x4e00 + i).toString(16).toUpperCase()}`);
    expect(() => buildKeymap(many)).toThrow(/too many/);
  });
});

describe('planTyping', () => {
  it('keeps short text in one run, in order', () => {
    const runs = planTyping('héllo ✓');
    expect(runs).toHaveLength(1);
    expect(runs[0].chars.join('')).toBe('héllo ✓');
    expect(runs[0].keysyms).toEqual(['h', 'U00E9', 'l', 'l', 'o', 'space', 'U2713']);
  });

  it('splits text with more distinct characters than one keymap holds, losing none', () => {
    const text = Array.from({ length: FREE_CODES.length + 40 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join('') + 'abc';
    const runs = planTyping(text);
    expect(runs.length).toBe(2);
    expect(runs.map((r) => r.chars.join('')).join('')).toBe(text);
    for (const r of runs) expect(() => buildKeymap(r.keysyms)).not.toThrow();
  });
});

describe('pointer helpers', () => {
  it('absolute motion: exact fraction of the bounds, rejects points outside or empty bounds', () => {
    const a = absoluteMotionArgs({ x: 1920.5, y: 360 }, { x: 0, y: 0, width: 2560, height: 800 });
    expect(a.x / a.xExtent).toBeCloseTo(1920.5 / 2560, 8);
    expect(a.y / a.yExtent).toBeCloseTo(360 / 800, 8);
    const b = absoluteMotionArgs({ x: 1280, y: 0 }, { x: 1280, y: 0, width: 1280, height: 720 });
    expect([b.x, b.y]).toEqual([0, 0]);
    expect(() => absoluteMotionArgs({ x: -1, y: 0 }, { x: 0, y: 0, width: 10, height: 10 })).toThrow(/outside/);
    expect(() => absoluteMotionArgs({ x: 0, y: 0 }, { x: 0, y: 0, width: 0, height: 10 })).toThrow(/positive size/);
  });

  it('axis plan: 15 units per notch, discrete only for whole notches on v2', () => {
    expect(axisPlan(2, true)).toEqual({ value: 30, discrete: 2 });
    expect(axisPlan(-1, true)).toEqual({ value: -15, discrete: -1 });
    expect(axisPlan(0.5, true)).toEqual({ value: 7.5, discrete: null });
    expect(axisPlan(2, false)).toEqual({ value: 30, discrete: null });
  });
});

describe('wtypeComboArgs', () => {
  it('sleeps after the keymap, presses modifiers, key, releases in reverse', () => {
    expect(wtypeComboArgs(parseCombo('ctrl+shift+Return'))).toEqual(['-s', '20', '-M', 'ctrl', '-M', 'shift', '-k', 'Return', '-m', 'shift', '-m', 'ctrl']);
    expect(wtypeComboArgs(parseCombo('ctrl+/'))).toEqual(['-s', '20', '-M', 'ctrl', '/', '-m', 'ctrl']);
    expect(wtypeComboArgs(parseCombo('ctrl+-'))).toEqual(['-s', '20', '-M', 'ctrl', '-k', 'minus', '-m', 'ctrl']);
    expect(wtypeComboArgs(parseCombo('super'))).toEqual(['-s', '20', '-M', 'logo', '-m', 'logo']);
  });
});

describe('the uploaded keymap names its layout', () => {
  // Compositors read the active layout's name with xkb_keymap_layout_get_name(); a keymap without
  // `name[Group1]` gives NULL, which Hyprland reports as `activelayout>>...,error`. libxkbcommon
  // itself (xkbcli, package libxkbcommon-tools) compiles the text and prints the name it found.
  it('libxkbcommon compiles it and finds the layout name', async () => {
    const { spawnSync } = await import('node:child_process');
    const text = buildKeymap(['eacute', 'Greek_alpha']).text;
    const r = spawnSync('xkbcli', ['compile-keymap', '--from-xkb'], { input: text, encoding: 'utf8' });
    expect(r.error, 'xkbcli (libxkbcommon-tools) must be installed').toBeUndefined();
    // (xkbcli 1.5 exits 1 after printing with --from-xkb: the printed keymap is the proof it compiled)
    expect(r.stdout, r.stderr).toMatch(/^xkb_keymap \{/);
    expect(r.stdout).toMatch(/name\[Group1\]\s*=\s*"hypruse virtual keyboard";/i);
    expect(r.stdout).toMatch(/key <I\d+>\s*\{\s*\[\s*eacute\s*\]\s*\}/);
  });
});
