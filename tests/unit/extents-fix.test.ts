// One extents fix per application, chosen from the app-family and web-engine tables and applied by every
// reader of extents: Qt 5 reads SCREEN less the window's origin, Chromium subtracts its surface inset,
// LibreOffice under GTK 3 moves a root pane held by a native container (at 0,0 with the holder's size)
// with every box below it, in a tree read and for an object read alone (a refresh) alike.
import { describe, expect, it } from 'vitest';
import { ExtentsFixes, extentsFixOf } from '../../packages/a11y/src/extents-fix.js';
import { ElementOps } from '../../packages/a11y/src/element-ops.js';
import { Role, COORD_TYPE_SCREEN, COORD_TYPE_WINDOW } from '../../packages/a11y/src/atspi-constants.js';
import { Deadline } from '../../packages/a11y/src/deadline.js';
import { TreeReader, type RawNode } from '../../packages/a11y/src/tree-reader.js';
import type { AtspiBus, CallSpec } from '../../packages/a11y/src/atspi-bus.js';

const BUS = ':1.1';
let paths = 0;
function node(roleId: number, extents: RawNode['extents'], children: RawNode[] = [], path = `/n${++paths}`): RawNode {
  return { ref: { bus: BUS, path }, depth: 0, name: '', roleId, roleName: '', states: [], interfaces: ['Component'], childRefs: [], children, extents, actions: [] };
}
const d = () => new Deadline(1000, 'test');

/** A bus answering the application's toolkit, its frame's extents per coordinate type, objects' parents and extents. */
function fakeBus(app: { toolkit: string; version: string }, boxes: Record<string, Partial<Record<number, number[]>>>, parents: Record<string, string> = {}) {
  const asked: Array<{ member: string; path: string; body?: unknown[] }> = [];
  const bus = {
    async call(spec: CallSpec): Promise<unknown[]> {
      asked.push({ member: spec.member, path: spec.path, body: spec.body });
      const body = (spec.body ?? []) as unknown[];
      if (spec.member === 'Get' && body[1] === 'ToolkitName') return [{ value: app.toolkit }];
      if (spec.member === 'Get' && body[1] === 'Version') return [{ value: app.version }];
      if (spec.member === 'Get' && body[1] === 'Parent') return [{ value: [BUS, parents[spec.path] ?? '/org/a11y/atspi/null'] }];
      if (spec.member === 'GetExtents') {
        const b = boxes[spec.path]?.[body[0] as number];
        if (!b) throw new Error(`no extents of ${spec.path} in ${String(body[0])}`);
        return [b];
      }
      throw new Error(`unexpected ${spec.member}`);
    },
  };
  return { bus: bus as unknown as AtspiBus, asked };
}

describe('the extents fix chosen per application', () => {
  it('from the tables: Qt 5 (not Qt 6), Chromium by toolkit or window class, LibreOffice by its application name', () => {
    expect(extentsFixOf({ toolkit: 'Qt', version: '5.15.8', name: 'featherpad' })).toBe('screen-less-origin');
    expect(extentsFixOf({ toolkit: 'Qt', version: '6.4.2', name: 'focuswriter' })).toBeNull();
    expect(extentsFixOf({ toolkit: 'Chromium', version: '156', name: 'Chromium' })).toBe('surface-inset');
    expect(extentsFixOf({ toolkit: '', version: '', name: 'x' }, 'chromium')).toBe('surface-inset');
    expect(extentsFixOf({ toolkit: 'gtk', version: '3.24.38', name: 'soffice' })).toBe('embedded-pane');
    expect(extentsFixOf({ toolkit: 'gtk', version: '3.24.38', name: 'mousepad' })).toBeNull();
    expect(extentsFixOf({ toolkit: 'Gecko', version: '153', name: 'Firefox' }, 'firefox-esr')).toBeNull();
  });

  it('Qt 5: SCREEN extents less the window origin, in tree reads and screen boxes alike; a zero box stays', async () => {
    const { bus, asked } = fakeBus({ toolkit: 'Qt', version: '5.15.8' }, {
      '/frame': { [COORD_TYPE_SCREEN]: [100, 50, 800, 600] },
      '/save': { [COORD_TYPE_SCREEN]: [170, 74, 32, 31], [COORD_TYPE_WINDOW]: [70, 70, 32, -15] },
      '/gone': { [COORD_TYPE_SCREEN]: [0, 0, 0, 0] },
    });
    const reader = new TreeReader(bus);
    await reader.fixes.prepare({ bus: BUS, path: '/app' }, 'featherpad', { bus: BUS, path: '/frame' }, { width: 800, height: 600 }, d());
    expect(await reader.readExtents({ ref: { bus: BUS, path: '/save' }, interfaces: ['Component'] }, d())).toEqual({ x: 70, y: 24, width: 32, height: 31 });
    expect(await reader.readExtents({ ref: { bus: BUS, path: '/gone' }, interfaces: ['Component'] }, d())).toEqual({ x: 0, y: 0, width: 0, height: 0 });
    expect(await new ElementOps(bus, reader).screenExtents({ bus: BUS, path: '/save' }, d())).toEqual({ x: 70, y: 24, width: 32, height: 31 });
    expect(asked.filter((a) => a.member === 'GetExtents' && a.path === '/save').every((a) => a.body?.[0] === COORD_TYPE_SCREEN)).toBe(true);
  });

  it('Chromium: the even surface inset is subtracted (none for a window without a shadow)', async () => {
    const { bus } = fakeBus({ toolkit: 'Chromium', version: '156' }, {
      '/frame': { [COORD_TYPE_WINDOW]: [0, 0, 1296, 791] },
      '/link': { [COORD_TYPE_WINDOW]: [110, 60, 40, 20], [COORD_TYPE_SCREEN]: [110, 60, 40, 20] },
    });
    const reader = new TreeReader(bus);
    await reader.fixes.prepare({ bus: BUS, path: '/app' }, 'Chromium', { bus: BUS, path: '/frame' }, { class: 'chromium', width: 1276, height: 771 }, d());
    const link = { ref: { bus: BUS, path: '/link' }, interfaces: ['Component'] };
    expect(await reader.readExtents(link, d())).toEqual({ x: 100, y: 50, width: 40, height: 20 });
    expect(await reader.readExtents(link, d(), true), 'raw: as the app gives it').toEqual({ x: 110, y: 60, width: 40, height: 20 });
    expect(await new ElementOps(bus, reader).screenExtents(link.ref, d())).toEqual({ x: 100, y: 50, width: 40, height: 20 });
    await reader.fixes.prepare({ bus: BUS, path: '/app' }, 'Chromium', { bus: BUS, path: '/frame' }, { class: 'chromium', width: 1296, height: 791 }, d());
    expect(await reader.readExtents(link, d()), 'maximized: no inset').toEqual({ x: 110, y: 60, width: 40, height: 20 });
  });
});

describe('Chromium on a scaled output: a page in device pixels scaled back to the browser\'s logical ones', () => {
  // as read on sway 1.7, scale-1.5 output (Chromium renders at 2): the frame 1296x711 (inset 10), the
  // web view holder (10,97 1276x604) and its document (20,194 2552x1208), a button at 36,570 108x43
  async function prepared(parents: Record<string, string> = {}) {
    const { bus, asked } = fakeBus({ toolkit: 'Chromium', version: '156' }, { '/frame': { [COORD_TYPE_WINDOW]: [0, 0, 1296, 711] } }, parents);
    const fixes = new ExtentsFixes(bus);
    await fixes.prepare({ bus: BUS, path: '/app' }, 'Chromium', { bus: BUS, path: '/frame' }, { class: 'chromium', width: 1276, height: 691 }, d());
    await fixes.ready(BUS);
    const a = (x: number, y: number, width: number, height: number) => fixes.adjust(BUS, { x, y, width, height });
    return { fixes, asked, a };
  }

  it('the document and what is below it are divided by the scale (the inset kept); the browser controls stay; read alone the same', async () => {
    const { fixes, asked, a } = await prepared({ '/new-button': '/doc' });
    const button = node(Role.PUSH_BUTTON, a(36, 570, 108, 43), [], '/button');
    const doc = node(Role.DOCUMENT_WEB, a(20, 194, 2552, 1208), [button], '/doc');
    const tab = node(Role.PAGE_TAB, a(30, 12, 200, 30), [], '/tab');
    const root = node(Role.FRAME, a(0, 0, 1296, 711), [node(Role.PANEL, a(10, 10, 1276, 691), [tab, node(Role.PANEL, a(10, 97, 1276, 604), [doc])])], '/frame');
    expect(await fixes.placeTree(root, async () => null)).toBe(1);
    expect(button.extents, 'logical 18,285 less the inset').toEqual({ x: 8, y: 275, width: 54, height: 22 });
    expect(doc.extents).toEqual({ x: 0, y: 87, width: 1276, height: 604 });
    expect(tab.extents, 'a browser control is in logical pixels already').toEqual({ x: 20, y: 2, width: 200, height: 30 });
    expect(await fixes.placeOne({ bus: BUS, path: '/button' }, a(36, 570, 108, 43), d())).toEqual({ x: 8, y: 275, width: 54, height: 22 });
    expect(await fixes.placeOne({ bus: BUS, path: '/new-button' }, a(36, 642, 108, 43), d())).toEqual({ x: 8, y: 311, width: 54, height: 22 });
    expect(await fixes.placeOne({ bus: BUS, path: '/tab' }, a(30, 12, 200, 30), d())).toEqual({ x: 20, y: 2, width: 200, height: 30 });
    expect(asked.filter((x) => x.member === 'Get' && (x.body as unknown[])[1] === 'Parent').map((x) => x.path)).toEqual(['/new-button']);
  });

  it('a page at scale 1 (its box its holder\'s), or merely wider than its holder, is not scaled, and nothing is remembered', async () => {
    const { fixes, asked, a } = await prepared();
    const doc = node(Role.DOCUMENT_WEB, a(10, 97, 1276, 604), [], '/doc');
    const wide = node(Role.DOCUMENT_WEB, a(10, 97, 2552, 604), [], '/wide');
    const root = node(Role.FRAME, a(0, 0, 1296, 711), [node(Role.PANEL, a(10, 97, 1276, 604), [doc, wide])], '/frame');
    expect(await fixes.placeTree(root, async () => null)).toBe(0);
    expect(doc.extents).toEqual({ x: 0, y: 87, width: 1276, height: 604 });
    expect(await fixes.placeOne({ bus: BUS, path: '/doc' }, a(10, 97, 1276, 604), d())).toEqual({ x: 0, y: 87, width: 1276, height: 604 });
    expect(asked.filter((x) => x.member === 'Get' && (x.body as unknown[])[1] === 'Parent'), 'no walk up at scale 1').toEqual([]);
  });
});

describe('LibreOffice under GTK 3: root panes placed relative to their holder', () => {
  async function prepared(parents: Record<string, string> = {}, boxes: Record<string, Partial<Record<number, number[]>>> = {}) {
    const { bus, asked } = fakeBus({ toolkit: 'gtk', version: '3.24.38' }, boxes, parents);
    const fixes = new ExtentsFixes(bus);
    await fixes.prepare({ bus: BUS, path: '/app' }, 'soffice', { bus: BUS, path: '/frame' }, { width: 1276, height: 771 }, d());
    return { fixes, asked, bus };
  }
  const noRead = async () => null;

  it('the pane and its cells move down by the menu bar, in the tree and when read alone afterwards', async () => {
    const { fixes, asked } = await prepared({ '/new-cell': '/table' });
    const cell = node(Role.TABLE_CELL, { x: 45, y: 181, width: 82, height: 17 }, [], '/cell');
    const hidden = node(Role.PANEL, { x: -2147483648, y: -2147483648, width: 1, height: 1 });
    const pane = node(Role.ROOT_PANE, { x: 0, y: 0, width: 1276, height: 745 }, [node(Role.TABLE, null, [cell], '/table'), hidden]);
    const menu = node(Role.MENU_BAR, { x: 0, y: 0, width: 1252, height: 26 }, [], '/gtk-menu-bar');
    const root = node(Role.FRAME, { x: 0, y: 0, width: 1276, height: 771 }, [node(Role.PANEL, { x: 0, y: 0, width: 1276, height: 771 }, [menu, node(Role.PANEL, { x: 0, y: 26, width: 1276, height: 745 }, [pane])])], '/frame');
    expect(await fixes.placeTree(root, noRead)).toBe(1);
    expect(cell.extents).toEqual({ x: 45, y: 207, width: 82, height: 17 });
    expect(pane.extents).toEqual({ x: 0, y: 26, width: 1276, height: 745 });
    expect(menu.extents, 'the GTK menu bar outside the pane stays').toEqual({ x: 0, y: 0, width: 1252, height: 26 });
    expect(hidden.extents!.y, 'an unmapped box stays unmapped').toBe(-2147483648);
    // read alone: the cell read in the tree, a cell made since (found below the table by its parent), the menu bar
    expect(await fixes.placeOne({ bus: BUS, path: '/cell' }, { x: 45, y: 181, width: 82, height: 17 }, d())).toEqual({ x: 45, y: 207, width: 82, height: 17 });
    expect(await fixes.placeOne({ bus: BUS, path: '/new-cell' }, { x: 127, y: 181, width: 82, height: 17 }, d())).toEqual({ x: 127, y: 207, width: 82, height: 17 });
    expect(await fixes.placeOne({ bus: BUS, path: '/gtk-menu-bar' }, { x: 0, y: 0, width: 1252, height: 26 }, d())).toEqual({ x: 0, y: 0, width: 1252, height: 26 });
    expect(asked.filter((a) => a.member === 'Get' && (a.body as unknown[])[1] === 'Parent').map((a) => a.path), 'only the unknown cell walks up').toEqual(['/new-cell']);
  });

  it('a pane placed like its holder, or not of its size, stays; other applications are not touched', async () => {
    const { fixes } = await prepared();
    const a = node(Role.ROOT_PANE, { x: 0, y: 26, width: 1276, height: 745 });
    const b = node(Role.ROOT_PANE, { x: 0, y: 0, width: 600, height: 745 });
    const root = node(Role.FRAME, { x: 0, y: 0, width: 1276, height: 771 }, [node(Role.PANEL, { x: 0, y: 26, width: 1276, height: 745 }, [a, b])]);
    expect(await fixes.placeTree(root, noRead)).toBe(0);
    expect(a.extents).toEqual({ x: 0, y: 26, width: 1276, height: 745 });
    expect(b.extents).toEqual({ x: 0, y: 0, width: 600, height: 745 });

    const { bus } = fakeBus({ toolkit: 'gtk', version: '3.24.38' }, {});
    const gtk = new ExtentsFixes(bus);
    await gtk.prepare({ bus: BUS, path: '/app' }, 'mousepad', { bus: BUS, path: '/frame' }, { width: 1276, height: 771 }, d());
    const p = node(Role.ROOT_PANE, { x: 0, y: 0, width: 1276, height: 745 });
    const r2 = node(Role.FRAME, { x: 0, y: 0, width: 1276, height: 771 }, [node(Role.PANEL, { x: 0, y: 26, width: 1276, height: 745 }, [p])]);
    expect(await gtk.placeTree(r2, noRead), 'a GTK app without the fix: no pane rule').toBe(0);
    expect(p.extents).toEqual({ x: 0, y: 0, width: 1276, height: 745 });
  });
});
