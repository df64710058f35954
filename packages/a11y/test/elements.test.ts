import { describe, expect, it } from 'vitest';
import { Role, decodeStates } from '../src/atspi-constants.js';
import { backgroundDocuments, boxProblem, collectElements, isActionable, isSkeleton, toElement } from '../src/elements.js';
import { isPasswordAttrs, type RawNode } from '../src/tree-reader.js';

const SHOWN = ['enabled', 'sensitive', 'showing', 'visible'];
let seq = 0;
function node(p: Partial<RawNode> & { roleId: number }, children: RawNode[] = []): RawNode {
  return {
    ref: { bus: ':1.1', path: `/n/${seq++}` },
    depth: 0,
    name: '',
    roleName: `role-${p.roleId}`,
    states: SHOWN,
    interfaces: ['Accessible', 'Component'],
    childRefs: children.map((c) => c.ref),
    children,
    extents: { x: 10, y: 10, width: 80, height: 30 },
    actions: [],
    ...p,
  };
}

describe('decodeStates', () => {
  it('decodes the two-word bit set of GetState', () => {
    // bits 4 checked, 8 enabled, 12 focused, 25 showing, 30 visible; word 1 bit 9 = state 41 checkable
    const w0 = (1 << 4) | (1 << 8) | (1 << 12) | (1 << 25) | (1 << 30);
    expect(decodeStates([w0, 1 << 9])).toEqual(['checked', 'enabled', 'focused', 'showing', 'visible', 'checkable']);
    expect(decodeStates([0, 0])).toEqual([]);
    // the top bit of a word arrives as a large unsigned number
    expect(decodeStates([2 ** 31])).toEqual(['manages-descendants']);
  });
});

describe('toElement', () => {
  it('reports slider values with percent', () => {
    const el = toElement(node({ roleId: Role.SLIDER, roleName: 'slider', interfaces: ['Value'], value: { current: 25, min: 0, max: 200 } }));
    expect(el.value).toEqual({ current: 25, min: 0, max: 200, percent: 13 });
    expect(el.clickable).toBe(true);
  });
  it('leaves percent out when the range is empty', () => {
    expect(toElement(node({ roleId: Role.SPIN_BUTTON, value: { current: 0, min: 0, max: 0 } })).value).toEqual({ current: 0, min: 0, max: 0 });
  });
  it('reports checked from CHECKED or PRESSED for checkable roles only', () => {
    expect(toElement(node({ roleId: Role.CHECK_BOX, states: [...SHOWN, 'checked'] })).checked).toBe(true);
    expect(toElement(node({ roleId: Role.TOGGLE_BUTTON, states: [...SHOWN, 'pressed'] })).checked).toBe(true);
    expect(toElement(node({ roleId: Role.RADIO_BUTTON })).checked).toBe(false);
    expect(toElement(node({ roleId: Role.PUSH_BUTTON, states: [...SHOWN, 'pressed'] })).checked).toBeUndefined();
  });
  it('names a button that repeats its label child\'s name (GTK 4.8 "Cancel Cancel") by that name; other repetitions stay', () => {
    const label = (name: string) => node({ roleId: Role.LABEL, name });
    expect(toElement(node({ roleId: Role.PUSH_BUTTON, name: 'Cancel Cancel' }, [label('Cancel')])).name).toBe('Cancel');
    expect(toElement(node({ roleId: Role.PUSH_BUTTON, name: 'Save As Save As' }, [label('Save As')])).name).toBe('Save As');
    expect(toElement(node({ roleId: Role.PUSH_BUTTON, name: 'Bora Bora' }, [label('Bora Bora')])).name).toBe('Bora Bora');
    expect(toElement(node({ roleId: Role.PUSH_BUTTON, name: 'Bora Bora' })).name).toBe('Bora Bora');
    expect(toElement(node({ roleId: Role.PUSH_BUTTON, name: 'OK Cancel' }, [label('OK')])).name).toBe('OK Cancel');
  });
  it('never carries text for password fields', () => {
    const el = toElement(node({ roleId: Role.PASSWORD_TEXT, text: 'hunter2' }));
    expect(el.password).toBe(true);
    expect(el.value).toBeUndefined();
    const flagged = toElement(node({ roleId: Role.ENTRY, password: true }));
    expect(flagged.password).toBe(true);
    expect(flagged.value).toBeUndefined();
  });
  it('is clickable only when showing, visible and sensitive', () => {
    expect(toElement(node({ roleId: Role.PUSH_BUTTON, actions: ['click'] })).clickable).toBe(true);
    expect(toElement(node({ roleId: Role.PUSH_BUTTON, actions: ['click'], states: ['showing', 'visible'] })).clickable).toBe(false);
    expect(toElement(node({ roleId: Role.LABEL })).clickable).toBe(false);
    // GTK tabs: sensitive without enabled still count
    expect(toElement(node({ roleId: Role.PAGE_TAB, states: ['sensitive', 'showing', 'visible'] })).clickable).toBe(true);
  });

  it('GTK 4 (no showing state below the frame): visible and sensitive buttons are clickable', () => {
    // the states GTK 4.8 reports for a header-bar dialog's buttons, read with libatspi
    const gtk4 = ['focusable', 'sensitive', 'visible'];
    const apply = node({ roleId: Role.PUSH_BUTTON, name: 'Apply', actions: ['click'], states: gtk4, depth: 2 });
    const hidden = node({ roleId: Role.PUSH_BUTTON, name: 'Hidden', actions: ['click'], states: ['focusable', 'sensitive'], depth: 2 });
    const frame = node({ roleId: Role.DIALOG, name: 'dialog', states: ['sensitive', 'showing', 'visible'], extents: { x: 0, y: 0, width: 400, height: 300 } }, [
      node({ roleId: Role.PANEL, states: ['sensitive', 'visible'], depth: 1, extents: { x: 0, y: 0, width: 400, height: 300 } }, [apply, hidden]),
    ]);
    const els = collectElements(frame, { actionableOnly: true, windowWidth: 400, windowHeight: 300 });
    expect(els.map((e) => [e.name, e.clickable])).toEqual([['Apply', true], ['Hidden', false]]);
    // a toolkit that reports showing (GTK 3, Qt): a visible button that is not showing stays unclickable
    const gtk3 = node({ roleId: Role.FRAME, name: 'frame', extents: { x: 0, y: 0, width: 400, height: 300 } }, [
      node({ roleId: Role.PUSH_BUTTON, name: 'Shown', actions: ['click'], depth: 1 }),
      node({ roleId: Role.PUSH_BUTTON, name: 'Other page', actions: ['click'], states: ['enabled', 'sensitive', 'visible'], depth: 1 }),
    ]);
    expect(collectElements(gtk3, { actionableOnly: true, windowWidth: 400, windowHeight: 300 }).map((e) => [e.name, e.clickable])).toEqual([['Shown', true], ['Other page', false]]);
  });
});

describe('collectElements offscreen', () => {
  it('keeps scrolled-out rows (GTK 3: not showing, INT_MIN origin) only when asked, marked offscreen, after the shown ones', () => {
    const INT_MIN = -2147483648;
    const row = (name: string, y: number | null) =>
      node({ roleId: Role.LABEL, name, depth: 3, states: y === null ? ['enabled', 'sensitive', 'visible'] : SHOWN, extents: y === null ? { x: INT_MIN, y: INT_MIN, width: 200, height: 18 } : { x: 10, y, width: 200, height: 18 } });
    const frame = node({ roleId: Role.FRAME, name: 'frame', extents: { x: 0, y: 0, width: 400, height: 300 } }, [
      node({ roleId: Role.LIST_BOX, depth: 1, interfaces: ['Accessible', 'Component', 'Selection'], extents: { x: 0, y: 20, width: 400, height: 900 } }, [row('Row 1', 20), row('Row 35', null), row('Row 2', 42)]),
    ]);
    const names = (offscreen: boolean) => collectElements(frame, { actionableOnly: false, windowWidth: 400, windowHeight: 300, offscreen }).map((e) => `${e.name}${e.offscreen ? ' (offscreen)' : ''}`);
    expect(names(false)).toEqual(['frame', 'Row 1', 'Row 2']);
    // the list, showing but with its centre below the window, counts as partly scrolled out too
    expect(names(true)).toEqual(['frame', ' (offscreen)', 'Row 1', 'Row 2', 'Row 35 (offscreen)']);
  });
});

describe('isActionable', () => {
  it('accepts control roles, editable text and non-containers with a click action', () => {
    expect(isActionable(node({ roleId: Role.PUSH_BUTTON }))).toBe(true);
    expect(isActionable(node({ roleId: Role.TEXT, states: [...SHOWN, 'editable'] }))).toBe(true);
    expect(isActionable(node({ roleId: Role.TEXT }))).toBe(false);
    expect(isActionable(node({ roleId: Role.TABLE_CELL, actions: ['activate'] }))).toBe(true);
    expect(isActionable(node({ roleId: Role.FILLER, actions: ['activate'] }))).toBe(false);
    expect(isActionable(node({ roleId: Role.LABEL }))).toBe(false);
  });
});

describe('boxProblem', () => {
  it('rejects missing, empty, absurd and outside boxes', () => {
    expect(boxProblem(node({ roleId: 43, extents: null }), 100, 100)).toBe('no extents');
    expect(boxProblem(node({ roleId: 43, extents: { x: 5, y: 5, width: 8, height: 0 } }), 100, 100)).toBe('zero size');
    expect(boxProblem(node({ roleId: 43, extents: { x: -2147483648, y: 3, width: 20, height: 20 } }), 100, 100)).toBe('absurd origin');
    expect(boxProblem(node({ roleId: 43, extents: { x: 90, y: 0, width: 30, height: 10 } }), 100, 100)).toBe('outside the window');
    expect(boxProblem(node({ roleId: 43, extents: { x: 80, y: 0, width: 30, height: 10 } }), 100, 100)).toBeNull();
  });
});

describe('collectElements', () => {
  const ok = node({ roleId: Role.PUSH_BUTTON, name: 'OK', depth: 3 });
  const cancel = node({ roleId: Role.PUSH_BUTTON, name: 'Cancel', depth: 3 });
  const label = node({ roleId: Role.LABEL, name: 'Name?', depth: 2 });
  const entry = node({ roleId: Role.TEXT, states: [...SHOWN, 'editable'], text: 'abc', depth: 2 });
  const unnamedButton = node({ roleId: Role.PUSH_BUTTON, depth: 3 });
  const hidden = node({ roleId: Role.PUSH_BUTTON, name: 'Hidden', extents: { x: 5, y: 5000000, width: 10, height: 10 }, depth: 3 });
  const filler = node({ roleId: Role.FILLER, depth: 1 }, [label, entry, node({ roleId: Role.FILLER, depth: 2 }, [cancel, ok, unnamedButton, hidden])]);
  const frame = node({ roleId: Role.DIALOG, name: 'Ask', extents: { x: 0, y: 0, width: 400, height: 300 } }, [filler]);

  it('keeps document order and drops unnamed non-value nodes and offscreen boxes', () => {
    const all = collectElements(frame, { actionableOnly: false, windowWidth: 400, windowHeight: 300 });
    expect(all.map((e) => `${e.roleId}:${e.name}`)).toEqual([`${Role.DIALOG}:Ask`, `${Role.LABEL}:Name?`, `${Role.TEXT}:`, `${Role.PUSH_BUTTON}:Cancel`, `${Role.PUSH_BUTTON}:OK`]);
    expect(all[2].value).toEqual({ text: 'abc' });
  });
  it('keeps only actionable controls with actionableOnly', () => {
    const act = collectElements(frame, { actionableOnly: true, windowWidth: 400, windowHeight: 300 });
    expect(act.map((e) => e.name)).toEqual(['', 'Cancel', 'OK']);
  });
  it('filters by normalized name', () => {
    const r = collectElements(frame, { actionableOnly: true, name: ' CANCEL', windowWidth: 400, windowHeight: 300 });
    expect(r.map((e) => e.name)).toEqual(['Cancel']);
  });
});

describe('isSkeleton', () => {
  it('flags a frame whose descendants carry nothing', () => {
    const skeleton = node({ roleId: Role.FRAME, name: 'Electron' }, [node({ roleId: Role.PANEL }, [node({ roleId: Role.FILLER })])]);
    expect(isSkeleton(skeleton)).toBe(true);
    const real = node({ roleId: Role.FRAME, name: 'App' }, [node({ roleId: Role.PANEL }, [node({ roleId: Role.PUSH_BUTTON })])]);
    expect(isSkeleton(real)).toBe(false);
    expect(isSkeleton(node({ roleId: Role.FRAME }))).toBe(true);
  });
});

describe('isPasswordAttrs', () => {
  it('recognises password input types and ignores other attributes', () => {
    expect(isPasswordAttrs({ 'text-input-type': 'password' })).toBe(true);
    expect(isPasswordAttrs({ 'input-type': 'PASSWORD' })).toBe(true);
    expect(isPasswordAttrs({ toolkit: 'gtk', 'placeholder-text': 'password' })).toBe(false);
    expect(isPasswordAttrs({})).toBe(false);
  });
});

describe('closed menus (Qt keeps their items in the tree)', () => {
  it('lists a menu bar item but not the items of its closed popup; an open popup\'s items are listed', () => {
    const hiddenItems = [node({ roleId: Role.MENU_ITEM, name: 'Save As', states: ['enabled', 'sensitive'] }), node({ roleId: Role.MENU_ITEM, name: 'Undo', states: [] })];
    const closed = node({ roleId: Role.POPUP_MENU, states: ['enabled', 'sensitive'] }, hiddenItems);
    const file = node({ roleId: Role.MENU_ITEM, name: 'File' }, [closed]);
    const open = node({ roleId: Role.POPUP_MENU }, [node({ roleId: Role.MENU_ITEM, name: 'Copy' })]);
    const edit = node({ roleId: Role.MENU_ITEM, name: 'Edit' }, [open]);
    const root = node({ roleId: Role.FRAME, name: 'Untitled' }, [node({ roleId: Role.MENU_BAR }, [file, edit])]);
    const names = collectElements(root, { actionableOnly: true, windowWidth: 800, windowHeight: 600 }).map((e) => e.name);
    expect(names).toEqual(['File', 'Edit', 'Copy']);
  });
  it('a read that asks for closed menus lists their items, marked offscreen, under their menu (run by their action, never by a point)', () => {
    const hiddenItems = [node({ roleId: Role.MENU_ITEM, name: 'Save As', states: ['enabled', 'sensitive'] }), node({ roleId: Role.MENU_ITEM, name: '', states: [] })];
    const closed = node({ roleId: Role.POPUP_MENU, states: ['enabled', 'sensitive'] }, hiddenItems);
    const file = node({ roleId: Role.MENU_ITEM, name: 'File' }, [closed]);
    const root = node({ roleId: Role.FRAME, name: 'Untitled' }, [node({ roleId: Role.MENU_BAR }, [file])]);
    const els = collectElements(root, { actionableOnly: true, windowWidth: 800, windowHeight: 600, closedMenus: true });
    expect(els.map((e) => [e.name, e.offscreen === true])).toEqual([['File', false], ['Save As', true]]);
    expect(els[els[1].parent!].name).toBe('File');
    // a name filter applies to them as to any element
    expect(collectElements(root, { actionableOnly: true, name: 'save', windowWidth: 800, windowHeight: 600, closedMenus: true }).map((e) => e.name)).toEqual(['Save As']);
  });
});

describe('the a11y package never calls Properties.GetAll', () => {
  it('(Qt 5.15\'s AT-SPI bridge crashes on it: featherpad died with SIGSEGV)', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const dir = new URL('../src/', import.meta.url);
    for (const f of readdirSync(dir)) expect(readFileSync(new URL(f, dir), 'utf8').includes(`'GetAll'`), f).toBe(false);
  });
});

describe('backgroundDocuments', () => {
  const VISIBLE = ['enabled', 'sensitive', 'visible'];
  const tabs = (selected: string) =>
    node({ roleId: Role.PAGE_TAB_LIST }, ['Order form', 'Long article'].map((t) => node({ roleId: Role.PAGE_TAB, name: t, states: t === selected ? [...SHOWN, 'selected'] : SHOWN })));
  it('leaves out the pages that are not showing', () => {
    const a = node({ roleId: Role.DOCUMENT_WEB, name: 'Order form', states: VISIBLE });
    const b = node({ roleId: Role.DOCUMENT_WEB, name: 'Long article' });
    expect(backgroundDocuments(node({ roleId: Role.FRAME }, [node({ roleId: Role.FILLER }, [a, b])]))).toEqual(new Set([a]));
  });
  it('right after a tab switch, the selected tab names the page on screen though the one left behind still reads showing', () => {
    const a = node({ roleId: Role.DOCUMENT_WEB, name: 'Order form' });
    const b = node({ roleId: Role.DOCUMENT_WEB, name: 'Long article', states: VISIBLE });
    expect(backgroundDocuments(node({ roleId: Role.FRAME }, [tabs('Long article'), node({ roleId: Role.FILLER }, [a, b])]))).toEqual(new Set([a]));
  });
  it('hides nothing where no document is showing and no tab names one', () => {
    const a = node({ roleId: Role.DOCUMENT_WEB, name: 'One', states: VISIBLE });
    expect(backgroundDocuments(node({ roleId: Role.FRAME }, [a]))).toEqual(new Set());
  });
});

describe('collectElements in a window the compositor does not draw', () => {
  const UNSHOWN = ['enabled', 'sensitive', 'visible'];
  // Firefox ESR 153 on a workspace no output shows: the frame is showing, nothing below it is, except
  // whatever it last left showing (here one label)
  const tree = () =>
    node({ roleId: Role.FRAME, name: 'Order form' }, [
      node({ roleId: Role.LABEL, name: 'Left showing', depth: 1 }),
      node({ roleId: Role.PUSH_BUTTON, name: 'Place order', states: UNSHOWN, depth: 1, actions: ['press'] }),
    ]);
  const filter = { actionableOnly: true, windowWidth: 800, windowHeight: 600, hideUnshown: true };
  it('an engine whose unshown objects are hidden drops what is not showing while the window is drawn', () => {
    expect(collectElements(tree(), filter).map((e) => e.name)).not.toContain('Place order');
  });
  it('lists them when showing says nothing there (showingUnknown), usable by their visible state', () => {
    const els = collectElements(tree(), { ...filter, showingUnknown: true });
    const button = els.find((e) => e.name === 'Place order');
    expect(button).toBeDefined();
    expect(button!.clickable).toBe(true);
  });
});
