// A root pane that reports its boxes relative to the native container holding it (LibreOffice 7.4 under
// GTK 3: the pane at 0,0 inside a panel at 0,26 of the same size) is moved into the window with every
// box below it; a pane placed like its holder, or of another size, is left alone.
import { describe, expect, it } from 'vitest';
import { placeEmbeddedPanes } from '../../packages/a11y/src/embedded-panes.js';
import { Role } from '../../packages/a11y/src/atspi-constants.js';
import { Deadline } from '../../packages/a11y/src/deadline.js';
import type { RawNode, TreeReader } from '../../packages/a11y/src/tree-reader.js';

function node(roleId: number, extents: RawNode['extents'], children: RawNode[] = []): RawNode {
  return { ref: { bus: ':1.1', path: `/${Math.random()}` }, depth: 0, name: '', roleId, roleName: '', states: [], interfaces: ['Component'], childRefs: [], children, extents, actions: [] };
}
const reader = { readExtents: async () => null } as unknown as TreeReader;

describe('root panes placed relative to their holder', () => {
  it('LibreOffice under GTK 3: the pane and its cells move down by the menu bar', async () => {
    const cell = node(Role.TABLE_CELL, { x: 45, y: 181, width: 82, height: 17 });
    const hidden = node(Role.PANEL, { x: -2147483648, y: -2147483648, width: 1, height: 1 });
    const pane = node(Role.ROOT_PANE, { x: 0, y: 0, width: 1276, height: 745 }, [node(Role.TABLE, null, [cell]), hidden]);
    const root = node(Role.FRAME, { x: 0, y: 0, width: 1276, height: 771 }, [node(Role.PANEL, { x: 0, y: 0, width: 1276, height: 771 }, [node(Role.PANEL, { x: 0, y: 26, width: 1276, height: 745 }, [pane])])]);
    expect(await placeEmbeddedPanes(root, reader, new Deadline(1000, 'test'))).toBe(1);
    expect(cell.extents).toEqual({ x: 45, y: 207, width: 82, height: 17 });
    expect(pane.extents).toEqual({ x: 0, y: 26, width: 1276, height: 745 });
    expect(hidden.extents!.y, 'an unmapped box stays unmapped').toBe(-2147483648);
  });

  it('a pane placed like its holder, or not of its size, stays', async () => {
    const a = node(Role.ROOT_PANE, { x: 0, y: 26, width: 1276, height: 745 });
    const b = node(Role.ROOT_PANE, { x: 0, y: 0, width: 600, height: 745 });
    const root = node(Role.FRAME, { x: 0, y: 0, width: 1276, height: 771 }, [node(Role.PANEL, { x: 0, y: 26, width: 1276, height: 745 }, [a, b])]);
    expect(await placeEmbeddedPanes(root, reader, new Deadline(1000, 'test'))).toBe(0);
    expect(a.extents).toEqual({ x: 0, y: 26, width: 1276, height: 745 });
    expect(b.extents).toEqual({ x: 0, y: 0, width: 600, height: 745 });
  });
});
