// Reading order (core readingOrder) and the reader listing each container's children in it
// (a11y collectElements): rows top to bottom, left to right, every element after its ancestor.
import { describe, expect, it } from 'vitest';
import { readingOrder, readingSequence, type Rect } from '@hypruse/core';
import { Role } from '../../packages/a11y/src/atspi-constants.js';
import { collectElements } from '../../packages/a11y/src/elements.js';
import type { RawNode } from '../../packages/a11y/src/tree-reader.js';

const box = (name: string, x: number, y: number, width: number, height: number) => ({ name, e: { x, y, width, height } as Rect });
const order = (items: Array<{ name: string; e: Rect | null }>) => readingOrder(items, (i) => i.e).map((r) => r.map((i) => i.name));

describe('readingOrder', () => {
  it('puts rows top to bottom and a row left to right, whatever the given order', () => {
    expect(order([box('OK', 300, 200, 80, 30), box('Last', 100, 60, 200, 30), box('Cancel', 200, 202, 80, 26), box('First', 100, 20, 200, 30)])).toEqual([['First'], ['Last'], ['Cancel', 'OK']]);
  });
  it('starts a tall element at its top and keeps what lies below it out of its row', () => {
    // a 40-row list clipped by its viewport reports its whole height; the buttons under the viewport are a row of their own
    expect(order([box('Cancel', 300, 350, 80, 30), box('list', 10, 230, 400, 800), box('scroll bar', 420, 230, 10, 100), box('OK', 390, 350, 80, 30)])).toEqual([['list'], ['scroll bar'], ['Cancel', 'OK']]);
  });
  it('puts elements without a box last, in the order given', () => {
    expect(order([{ name: 'a', e: null }, box('b', 0, 50, 10, 10), { name: 'c', e: null }, box('d', 0, 0, 10, 10)])).toEqual([['d'], ['b'], ['a', 'c']]);
  });
});

describe('readingSequence', () => {
  const seq = (items: Array<{ name: string; e: Rect | null }>) => readingSequence(items, (i) => i.e).map((i) => i.name);
  it('reads a grid listed column by column (even backwards) by columns, anything else by rows', () => {
    const c = (name: string, col: number, row: number) => box(name, col * 150, row * 40, 120, 30);
    // GTK 3's grid lists backwards: the right column's last row first
    expect(seq([c('r3', 1, 2), c('r2', 1, 1), c('r1', 1, 0), c('l3', 0, 2), c('l2', 0, 1), c('l1', 0, 0)])).toEqual(['l1', 'l2', 'l3', 'r1', 'r2', 'r3']);
    // a form listed row by row, backwards: label and field of one row are neighbours
    expect(seq([c('field 2', 1, 1), c('label 2', 0, 1), c('field 1', 1, 0), c('label 1', 0, 0)])).toEqual(['label 1', 'field 1', 'label 2', 'field 2']);
    expect(seq([c('only', 0, 0)])).toEqual(['only']);
  });
});

const SHOWN = ['enabled', 'sensitive', 'showing', 'visible'];
let seq = 0;
function node(name: string, roleId: number, extents: Rect, children: RawNode[] = []): RawNode {
  return { ref: { bus: ':1.1', path: `/n/${seq++}` }, depth: 0, name, roleId, roleName: String(roleId), states: SHOWN, interfaces: ['Accessible', 'Component'], childRefs: children.map((c) => c.ref), children, extents, actions: [] };
}

describe('collectElements in reading order', () => {
  it('lists a grid whose tree order is its last row first top to bottom, and keeps columns of nameless boxes together', () => {
    const r = (x: number, y: number, width: number, height: number) => ({ x, y, width, height });
    const grid = node('', Role.PANEL, r(0, 0, 400, 200), [
      node('Last', Role.LABEL, r(10, 60, 80, 30)),
      node('First', Role.LABEL, r(10, 20, 80, 30)),
    ]);
    // two nameless columns side by side: each column's items stay together, left column first
    const right = node('', Role.PANEL, r(200, 100, 100, 100), [node('r1', Role.CHECK_BOX, r(200, 100, 100, 30)), node('r2', Role.CHECK_BOX, r(200, 140, 100, 30))]);
    const left = node('', Role.PANEL, r(0, 100, 100, 100), [node('l1', Role.CHECK_BOX, r(0, 100, 100, 30)), node('l2', Role.CHECK_BOX, r(0, 140, 100, 30))]);
    const root = node('win', Role.FRAME, r(0, 0, 400, 300), [right, left, grid]);
    const els = collectElements(root, { actionableOnly: false, windowWidth: 400, windowHeight: 300 });
    expect(els.map((e) => e.name)).toEqual(['win', 'First', 'Last', 'l1', 'l2', 'r1', 'r2']);
    for (const e of els) if (e.parent !== undefined) expect(e.parent).toBe(0);
  });
});
