import { describe, expect, it } from 'vitest';
import type { Rect } from '@hypruse/core';
import type { AtspiBus, CallSpec } from '../src/atspi-bus.js';
import { Role } from '../src/atspi-constants.js';
import { Deadline } from '../src/deadline.js';
import { TreeReader, type CacheItem, type CacheItems, type RawNode } from '../src/tree-reader.js';

const BUS = ':1.9';
const MIN = -2147483648;

/**
 * A window with a shown page (two buttons) and a hidden one (GTK 3: not showing, INT_MIN origin
 * on the page and on everything in it) holding a button inside a box. The fake application answers
 * GetExtents, GetActions and GetRoleName, and logs which objects were asked their extents.
 */
function app() {
  const boxes: Record<string, Rect> = {
    '/win': { x: 0, y: 0, width: 400, height: 300 },
    '/shown': { x: 0, y: 0, width: 400, height: 300 },
    '/b1': { x: 10, y: 10, width: 80, height: 30 },
    '/b2': { x: 10, y: 50, width: 80, height: 30 },
    '/hidden': { x: MIN, y: MIN, width: 400, height: 300 },
    '/inner': { x: MIN, y: MIN, width: 100, height: 40 },
    '/b3': { x: MIN, y: MIN, width: 80, height: 30 },
  };
  const item = (path: string, parent: string, index: number, childCount: number, roleId: number, showing: boolean, name = ''): CacheItem => ({
    ref: { bus: BUS, path }, parent, index, childCount, roleId, name,
    interfaces: roleId === Role.PUSH_BUTTON ? ['Accessible', 'Component', 'Action'] : ['Accessible', 'Component'],
    states: showing ? ['visible', 'showing'] : ['visible'],
  });
  const items: CacheItems = new Map(
    [
      item('/win', '/', 0, 2, Role.FRAME, true, 'win'),
      item('/shown', '/win', 0, 2, Role.PANEL, true),
      item('/b1', '/shown', 0, 0, Role.PUSH_BUTTON, true, 'one'),
      item('/b2', '/shown', 1, 0, Role.PUSH_BUTTON, true, 'two'),
      item('/hidden', '/win', 1, 1, Role.PANEL, false),
      item('/inner', '/hidden', 0, 1, Role.PANEL, false),
      item('/b3', '/inner', 0, 0, Role.PUSH_BUTTON, false, 'three'),
    ].map((i) => [i.ref.path, i]),
  );
  const extentsAsked: string[] = [];
  const bus = {
    call: async (spec: CallSpec) => {
      if (spec.member === 'GetExtents') {
        extentsAsked.push(spec.path);
        const b = boxes[spec.path];
        return [[b.x, b.y, b.width, b.height]];
      }
      if (spec.member === 'GetActions') return [[['click', '', '']]];
      if (spec.member === 'GetRoleName') return ['role'];
      throw new Error(`unexpected ${spec.member}`);
    },
  } as unknown as AtspiBus;
  return { items, bus, extentsAsked };
}

const unlisted = (n: RawNode, e: Rect | null) => !!e && !n.states.includes('showing') && (e.width <= 0 || e.height <= 0 || Math.abs(e.x) > 1e6 || Math.abs(e.y) > 1e6);

async function read(pruneBelow: boolean) {
  const a = app();
  const reader = new TreeReader(a.bus);
  const d = new Deadline(5000, 'the app');
  try {
    const t = await reader.readTreeCached({ bus: BUS, path: '/' }, { bus: BUS, path: '/win' }, d, {
      maxNodes: 100,
      wanted: (n) => n.roleId === Role.PUSH_BUTTON,
      unlisted,
      mayBeUnlisted: (n) => !n.states.includes('showing'),
      pruneBelow,
      items: Promise.resolve(a.items),
    });
    return { t: t!, asked: a.extentsAsked.sort() };
  } finally {
    d.clear();
  }
}

const buttons = (root: RawNode) => {
  const out: Array<[string, Rect | null, number]> = [];
  const stack = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.roleId === Role.PUSH_BUTTON) out.push([n.name, n.extents, n.actions.length]);
    stack.push(...n.children);
  }
  return out.sort((x, y) => x[0].localeCompare(y[0]));
};

describe('a cached read skips the extents below a branch that its own extents rule out', () => {
  it('the hidden page is asked its extents once, nothing below it is; the shown buttons are read as before', async () => {
    const { t, asked } = await read(true);
    expect(asked).toEqual(['/b1', '/b2', '/hidden']);
    expect(t.partial?.has(t.root.children[1].children[0].children[0])).toBe(true);
    expect(buttons(t.root)).toEqual([
      ['one', { x: 10, y: 10, width: 80, height: 30 }, 1],
      ['three', null, 0],
      ['two', { x: 10, y: 50, width: 80, height: 30 }, 1],
    ]);
  });

  it('without it, every wanted node below the hidden page is asked its own extents (and is ruled out by them)', async () => {
    const { t, asked } = await read(false);
    expect(asked).toEqual(['/b1', '/b2', '/b3']);
    expect(buttons(t.root).find((b) => b[0] === 'three')?.[2]).toBe(0);
  });
});
