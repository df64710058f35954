import { describe, expect, it } from 'vitest';
import { ElementOps } from '../src/element-ops.js';
import { IFACE } from '../src/atspi-constants.js';
import { Deadline } from '../src/deadline.js';
import type { AtspiBus } from '../src/atspi-bus.js';
import type { RawNode, TreeReader } from '../src/tree-reader.js';

/**
 * A GTK 3 tree view as Thunar's list view shows it over AT-SPI: the table (Table, Selection)
 * holds per row a name cell that holds the icon and text cells; GetRowAtIndex maps a child's index
 * to its row. `multi` is a multiple-selection view, where AddRowSelection adds to the selection.
 */
function treeView(opts: { selected: number[]; multi: boolean; tableIfaces?: string[] }) {
  const selected = [...opts.selected];
  const calls: string[] = [];
  const parents: Record<string, string> = { '/text': '/namecell', '/namecell': '/table', '/table': '/frame' };
  const ifaces: Record<string, string[]> = { '/namecell': ['Accessible', 'Action', 'TableCell'], '/table': opts.tableIfaces ?? ['Accessible', 'Selection', 'Table'], '/frame': ['Accessible'] };
  const bus = {
    call: async (spec: { path: string; iface: string; member: string; body?: unknown[] }) => {
      calls.push(`${spec.member}${spec.body ? `(${spec.body.join(',')})` : ''}`);
      if (spec.member === 'Get') return [{ value: [':1.5', parents[spec.path] ?? '/org/a11y/atspi/null'] }];
      if (spec.member === 'GetIndexInParent') return [8];
      if (spec.iface === IFACE.Table && spec.member === 'GetRowAtIndex') return [Math.floor(Number(spec.body![0]) / 4) - 1];
      if (spec.member === 'GetSelectedRows') return [[...selected]];
      if (spec.member === 'ClearSelection') return [selected.splice(0).length >= 0];
      if (spec.member === 'AddRowSelection') {
        if (!opts.multi) selected.splice(0);
        selected.push(Number(spec.body![0]));
        return [true];
      }
      throw new Error(`unexpected ${spec.member}`);
    },
  } as unknown as AtspiBus;
  const reader = {
    readNode: async (ref: { bus: string; path: string }) => ({ ref, interfaces: ifaces[ref.path] ?? ['Accessible'] }) as unknown as RawNode,
  } as unknown as TreeReader;
  return { ops: new ElementOps(bus, reader), calls, selected };
}

describe('ElementOps.selectRow (a single click on a list row, through the table)', () => {
  const d = () => new Deadline(5000, 'the app');
  it('selects the row of a cell inside a cell, that row alone, in a multiple-selection view: the selection is cleared first', async () => {
    const v = treeView({ selected: [0, 2], multi: true });
    expect(await v.ops.selectRow({ bus: ':1.5', path: '/text' }, d())).toEqual({ row: 1, selected: true });
    expect(v.selected).toEqual([1]);
    expect(v.calls.filter((c) => /Selection|Row/.test(c))).toEqual(['GetRowAtIndex(8)', 'GetSelectedRows', 'ClearSelection', 'AddRowSelection(1)', 'GetSelectedRows']);
  });
  it('sends nothing when the row is already the one selected', async () => {
    const v = treeView({ selected: [1], multi: true });
    expect(await v.ops.selectRow({ bus: ':1.5', path: '/text' }, d())).toEqual({ row: 1, selected: true });
    expect(v.calls.some((c) => /ClearSelection|AddRowSelection/.test(c))).toBe(false);
  });
  it('a table without Selection that only adds to the selection reads back as not the one row', async () => {
    const v = treeView({ selected: [0], multi: true, tableIfaces: ['Accessible', 'Table'] });
    expect(await v.ops.selectRow({ bus: ':1.5', path: '/text' }, d())).toEqual({ row: 1, selected: false });
  });
  it('null (nothing sent) when no table holds the element', async () => {
    const v = treeView({ selected: [], multi: false, tableIfaces: ['Accessible'] });
    expect(await v.ops.selectRow({ bus: ':1.5', path: '/text' }, d())).toBeNull();
    expect(v.calls.some((c) => /AddRowSelection|ClearSelection/.test(c))).toBe(false);
  });
});
