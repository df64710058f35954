import { describe, expect, it } from 'vitest';
import { Role } from '../src/atspi-constants.js';
import type { RawNode } from '../src/tree-reader.js';
import { hasWindowTitled, pickWindow } from '../src/window-matcher.js';

function win(name: string, width: number, height: number, states: string[] = []): RawNode {
  return {
    ref: { bus: ':1.4', path: `/w/${name}/${width}` }, depth: 1, name, roleId: Role.FRAME, roleName: 'frame', states, interfaces: [],
    childRefs: [], children: [], extents: { x: 0, y: 0, width, height }, actions: [],
  };
}

describe('pickWindow', () => {
  const main = win('Document 1 - Editor', 1280, 800);
  const prefs = win('Preferences', 600, 400, ['active']);
  const other = win('Document 2 - Editor', 900, 700);

  it('picks by exact title', () => {
    expect(pickWindow([main, prefs, other], { title: 'Preferences', width: 1280, height: 800 })).toBe(prefs);
  });
  it('picks by normalized title', () => {
    expect(pickWindow([main, prefs], { title: '  préférences', width: 10, height: 10 })).toBe(prefs);
  });
  it('falls back to the closest size when no title matches', () => {
    expect(pickWindow([main, prefs, other], { title: 'renamed', width: 904, height: 702 })).toBe(other);
  });
  it('breaks title ties by size', () => {
    const a = win('Untitled', 400, 300);
    const b = win('Untitled', 800, 600);
    expect(pickWindow([a, b], { title: 'Untitled', width: 796, height: 604 })).toBe(b);
  });
  it('takes the only window, then the active one, else nothing', () => {
    expect(pickWindow([main], { title: 'x', width: 10, height: 10 })).toBe(main);
    expect(pickWindow([main, prefs], { title: 'x', width: 10, height: 10 })).toBe(prefs);
    expect(pickWindow([main, other], { title: 'x', width: 10, height: 10 })).toBeNull();
    expect(pickWindow([], { title: 'x', width: 10, height: 10 })).toBeNull();
  });
});

describe('hasWindowTitled', () => {
  it('compares titles normalized and never matches an empty title', () => {
    expect(hasWindowTitled([win('Mozilla Firefox', 1, 1)], 'mozilla  firefox')).toBe(true);
    expect(hasWindowTitled([win('', 1, 1)], '')).toBe(false);
  });
});
