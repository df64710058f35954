// A container that manages its descendants and counts more than MANAGED_CHILDREN_MAX of them (LibreOffice
// Calc's sheet: 2^31-1 cells, each made when asked for) is never asked for all its children: a table gives
// the block of cells between its shown corners, anything else none. A small one is read as usual.
import { describe, expect, it } from 'vitest';
import { TreeReader, MANAGED_CHILDREN_MAX } from '../../packages/a11y/src/tree-reader.js';
import { Deadline } from '../../packages/a11y/src/deadline.js';
import type { AtspiBus, CallSpec } from '../../packages/a11y/src/atspi-bus.js';

/** A sheet of 16384 columns whose window shows rows 3..5 and columns 1..2 (0-based). */
function sheetBus(count: number, columnZeroShows = false) {
  const asked: string[] = [];
  const bus = {
    async call(spec: CallSpec): Promise<unknown[]> {
      asked.push(spec.member);
      const body = (spec.body ?? []) as number[];
      switch (spec.member) {
        case 'Get': return [{ value: count }];
        case 'GetChildren': return [[[':1.5', '/small/0'], [':1.5', '/small/1']]];
        // the table, then cells: those of row 2 and column 0 lie above and left of it (scrolled out)
        case 'GetExtents': return [spec.path === '/sheet' ? [10, 20, 300, 100] : /^\/cell\/2\//.test(spec.path) ? [40, 0, 80, 17] : /\/0$/.test(spec.path) ? [columnZeroShows ? -40 : -70, 40, 80, 17] : [40, 40, 80, 17]];
        case 'GetAccessibleAtPoint': return [[':1.5', body[0]! < 100 ? '/cell/3/1' : '/cell/5/2']];
        case 'GetIndexInParent': return [spec.path === '/cell/3/1' ? 3 * 16384 + 1 : 5 * 16384 + 2];
        case 'GetRowAtIndex': return [Math.floor(body[0]! / 16384)];
        case 'GetColumnAtIndex': return [body[0]! % 16384];
        case 'GetAccessibleAt': return [[':1.5', `/cell/${body[0]}/${body[1]}`]];
        default: throw new Error(`unexpected ${spec.member}`);
      }
    },
  };
  return { bus: bus as unknown as AtspiBus, asked };
}

const table = { ref: { bus: ':1.5', path: '/sheet' }, states: ['manages-descendants', 'showing'], interfaces: ['Accessible', 'Component', 'Table'] };

describe('children of a container that manages its descendants', () => {
  it('a huge table: the cells it shows, row by row, never GetChildren (a row or column before the corner only if it shows)', async () => {
    const { bus, asked } = sheetBus(2 ** 31 - 1);
    const refs = await new TreeReader(bus).childRefs(table, new Deadline(2000, 'sheet'));
    expect(refs.map((r) => r.path)).toEqual(['/cell/3/1', '/cell/3/2', '/cell/4/1', '/cell/4/2', '/cell/5/1', '/cell/5/2']);
    expect(asked).not.toContain('GetChildren');
  });

  it('a cache count of -1 (children not cached) is asked live, and a huge non-table gives none', async () => {
    const { bus, asked } = sheetBus(2 ** 31 - 1);
    const refs = await new TreeReader(bus).childRefs({ ...table, interfaces: ['Accessible', 'Component'] }, new Deadline(2000, 'list'), -1);
    expect(refs).toEqual([]);
    expect(asked).toEqual(['Get']);
  });

  it('a small one is read with GetChildren as any container', async () => {
    const { bus } = sheetBus(MANAGED_CHILDREN_MAX);
    const refs = await new TreeReader(bus).childRefs(table, new Deadline(2000, 'tree'));
    expect(refs.map((r) => r.path)).toEqual(['/small/0', '/small/1']);
  });

  it('a column the top-left point missed but that still shows in part is read too', async () => {
    const { bus } = sheetBus(2 ** 31 - 1, true);
    const refs = await new TreeReader(bus).childRefs(table, new Deadline(2000, 'sheet'));
    expect(refs.map((r) => r.path)).toEqual(['/cell/3/0', '/cell/3/1', '/cell/3/2', '/cell/4/0', '/cell/4/1', '/cell/4/2', '/cell/5/0', '/cell/5/1', '/cell/5/2']);
  });
});
