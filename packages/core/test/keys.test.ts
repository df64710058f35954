// The key-combination grammar (HYPRUSE-BEHAVIOR 4.1).
import { describe, expect, it } from 'vitest';
import { HypruseError, formatCombo, parseCombo } from '../src/index.js';

const p = (s: string) => {
  const c = parseCombo(s);
  return { modifiers: c.modifiers, key: c.key };
};

describe('parseCombo', () => {
  it('normalizes modifier aliases, case-insensitively', () => {
    expect(p('ctrl+a')).toEqual({ modifiers: ['ctrl'], key: 'a' });
    expect(p('Control+Shift+t')).toEqual({ modifiers: ['ctrl', 'shift'], key: 't' });
    for (const m of ['super', 'meta', 'win', 'cmd', 'SUPER']) expect(p(`${m}+Return`)).toEqual({ modifiers: ['logo'], key: 'Return' });
    expect(p('alt+altgr+e')).toEqual({ modifiers: ['alt', 'altgr'], key: 'e' });
  });

  it('maps key aliases', () => {
    const cases: Record<string, string> = {
      enter: 'Return', Return: 'Return', ESC: 'Escape', escape: 'Escape', tab: 'Tab', space: 'space', backspace: 'BackSpace',
      delete: 'Delete', del: 'Delete', insert: 'Insert', home: 'Home', end: 'End', pgup: 'Page_Up', PageUp: 'Page_Up',
      pgdn: 'Page_Down', pagedown: 'Page_Down', up: 'Up', down: 'Down', left: 'Left', right: 'Right',
    };
    for (const [alias, sym] of Object.entries(cases)) expect(p(alias).key, alias).toBe(sym);
  });

  it('function keys f1..f24 (and up to F35) upper-cased', () => {
    expect(p('f5').key).toBe('F5');
    expect(p('alt+F4')).toEqual({ modifiers: ['alt'], key: 'F4' });
    expect(p('f24').key).toBe('F24');
  });

  it('single characters literally, other keysym names case-sensitively', () => {
    expect(p('A').key).toBe('A');
    expect(p('ctrl+/').key).toBe('/');
    expect(p('é').key).toBe('é');
    expect(p('ctrl+-').key).toBe('-');
    expect(p('XF86AudioPlay').key).toBe('XF86AudioPlay');
    expect(p('KP_Enter').key).toBe('KP_Enter');
    expect(p('shift+plus').key).toBe('plus');
  });

  it('a bare modifier (or only modifiers) is a modifier tap with no key', () => {
    expect(p('super')).toEqual({ modifiers: ['logo'], key: null });
    expect(p('ctrl+shift')).toEqual({ modifiers: ['ctrl', 'shift'], key: null });
  });

  it('tolerates spaces around parts and keeps the source', () => {
    expect(p(' ctrl + a ')).toEqual({ modifiers: ['ctrl'], key: 'a' });
    expect(parseCombo('Ctrl+A').source).toBe('Ctrl+A');
  });

  it('rejects malformed combos with usage.combo and a hint', () => {
    for (const bad of ['', '   ', 'ctrl++', '+', 'ctrl+', '+a', 'ctrl++a', 'foo+a', 'ctrl+shit+a', 'a+b', 'ctrl+ctrl+a', 'control+ctrl', 'f0', 'f36', 'f05', 'ctrl+hello world', 'ctrl+9x']) {
      let err: unknown;
      try {
        parseCombo(bad);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(bad)).toBeInstanceOf(HypruseError);
      expect((err as HypruseError).code).toBe('usage.combo');
      expect((err as HypruseError).category).toBe('usage');
      expect((err as HypruseError).hint).toMatch(/ctrl\+a/);
      expect((err as HypruseError).message).toContain(JSON.stringify(bad));
    }
  });

  it('names the culprit', () => {
    expect(() => parseCombo('ctrl+shit+a')).toThrow(/"shit" is not a modifier/);
    expect(() => parseCombo('ctrl++')).toThrow(/empty part 2 of 3; write "plus" for the \+ key/);
  });

  it('formatCombo gives the canonical text', () => {
    expect(formatCombo(parseCombo('Control+SHIFT+t'))).toBe('ctrl+shift+t');
    expect(formatCombo(parseCombo('win'))).toBe('logo');
  });
});
