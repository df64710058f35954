import { describe, expect, it } from 'vitest';
import { matchMenuItem, menuLabel, menuPath } from '../../packages/tools/src/menu.js';

describe('menu labels', () => {
  it('ignore case, accents, mnemonics, shortcuts, padding and a trailing ellipsis', () => {
    expect(menuLabel('Save As...      ')).toBe('save as');
    expect(menuLabel('Save _As…')).toBe('save as');
    expect(menuLabel('&Open\tCtrl+O')).toBe('open');
    expect(menuLabel('Ré_glages   Ctrl+,')).toBe('reglages');
    expect(menuLabel('Print...')).toBe(menuLabel('print…'));
  });

  it('split a path on > (or →), refusing empty levels', () => {
    expect(menuPath('File > Save As…')).toEqual(['File', 'Save As…']);
    expect(menuPath('Edit→Preferences')).toEqual(['Edit', 'Preferences']);
    expect(() => menuPath('File > > Save')).toThrow(/labels separated by ">"/);
    expect(() => menuPath(' ... ')).toThrow(/labels separated by ">"/);
  });

  it('match an exact label before a prefix', () => {
    const items = [{ name: 'Save All      ' }, { name: 'Save      ' }, { name: 'Save As...      ' }];
    expect(matchMenuItem(items, 'save').map((i) => i.name.trim())).toEqual(['Save']);
    expect(matchMenuItem(items, 'Save As…').map((i) => i.name.trim())).toEqual(['Save As...']);
    expect(matchMenuItem(items, 'sav').map((i) => i.name.trim())).toEqual(['Save All', 'Save', 'Save As...']);
    expect(matchMenuItem(items, 'Quit')).toEqual([]);
  });
});
