// act, menu and file_dialog through the MCP server on real GTK 3 apps
// (gtk3-widget-factory, zenity --forms, mousepad). Effects are read outside
// hypruse: libatspi through python3-gi (tests/support/atspi-probe.py), what
// zenity prints on OK, the saved file's bytes, sway's own tree.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killFixture, launchFixture, requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';
import { atPoints, probe, type ProbeNode } from '../support/atspi-probe.js';
import { atspi, type AtspiNode } from '../support/atspi.js';
import { launchMousepadToSave, settled, slowA11yConfig, zenityAnswer } from '../support/tools.js';

const desk = await requireDesktop();

describe.skipIf(!desk)('element actions on real GTK 3 apps', () => {
  let server: Server;
  let calls = 0;
  const call = async (tool: string, args: Record<string, unknown>) => {
    calls++;
    return server.call(tool, args);
  };

  beforeAll(async () => {
    server = await startServer(desk!.env, { HYPRUSE_CONFIG: slowA11yConfig(), HYPRUSE_TAKEOVER_MS: '0' });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('check/uncheck/toggle a shared-name check box in one call each (role + index), select a tab, set_text an entry', async () => {
    const app = await launchFixture('widget-factory', { workspace: '1' });
    try {
      const addr = String((await swayNodes()).find((n) => n.pid === app.pid && n.type === 'con')!.id);
      await settled(server, addr);
      // the candidates in the order ui lists them (reading order), matched to libatspi's objects by their boxes
      const listed = (await server.call('ui', { window: addr, role: 'check box', name: 'checkbutton', format: 'flat' })).data.elements as Array<{ x: number; y: number }>;
      const con = (await swayNodes()).find((n) => String(n.id) === addr)!;
      const win = { x: con.rect.x + (con.window_rect?.x ?? 0), y: con.rect.y + (con.window_rect?.y ?? 0) };
      const boxes = (nodes: ProbeNode[]) => atPoints(nodes.filter((n) => n.role === 'check box' && n.name === 'checkbutton'), win, listed) as ProbeNode[];
      const before = boxes(await probe(app.pid));
      expect(before.every(Boolean), 'every listed candidate is one libatspi reads').toBe(true);
      // the sensitive, unchecked one: its index among the candidates as ui lists them
      const i = before.findIndex((b) => b.states.includes('sensitive') && !b.states.includes('checked'));
      const off = before.findIndex((b) => !b.states.includes('sensitive'));
      expect(i).toBeGreaterThanOrEqual(0);
      expect(off).toBeGreaterThanOrEqual(0);

      calls = 0;
      const r = await call('act', { action: 'check', name: 'checkbutton', role: 'check box', index: i, window: addr });
      expect(r.isError, r.text.join('\n')).toBe(false);
      expect(calls).toBe(1);
      expect(r.text[0]).toMatch(/^checked check box 'checkbutton' \(verified: now checked\)/);
      expect(r.data).toMatchObject({ action: 'check', via: 'atspi', verified: true, state: { checked: true } });
      expect(boxes(await probe(app.pid))[i].states).toContain('checked');

      const again = await call('act', { action: 'check', name: 'checkbutton', role: 'check box', index: i, window: addr });
      expect(again.isError, again.text.join('\n')).toBe(false);
      expect(again.text[0]).toBe("check box 'checkbutton' is already checked; nothing sent");
      expect(again.data.via).toBe('none');
      // had the second check sent a toggle, this toggle would check it again
      const t = await call('act', { action: 'toggle', name: 'checkbutton', role: 'check box', index: i, window: addr });
      expect(t.isError, t.text.join('\n')).toBe(false);

      // an insensitive candidate is refused, nothing sent
      const dis = await call('act', { action: 'toggle', name: 'checkbutton', role: 'check box', index: off, window: addr });
      expect(dis.isError).toBe(true);
      expect(dis.text[0]).toMatch(/^usage: check box 'checkbutton' is disabled/);

      // select: the first tab list's "page 3" (label case ignored)
      const s = await call('act', { action: 'select', role: 'page tab list', index: 0, option: 'Page 3', window: addr });
      expect(s.isError, s.text.join('\n')).toBe(false);
      expect(s.text[0]).toBe("selected 'page 3' in page tab list (verified: now selected)");
      const miss = await call('act', { action: 'select', role: 'page tab list', index: 0, option: 'page 9', window: addr });
      expect(miss.text[0]).toMatch(/^not_found: page tab list has no option 'page 9'; its options are "page 1", "page 2", "page 3"/);

      // set_text replaces what the first entry holds
      const e = await call('act', { action: 'set_text', role: 'text', index: 0, text: 'set by act ✓', window: addr });
      expect(e.isError, e.text.join('\n')).toBe(false);

      const after = await probe(app.pid);
      expect(boxes(after)[i].states).not.toContain('checked');
      expect(boxes(after)[off].states).toEqual(before[off].states);
      expect(after.filter((n) => n.role === 'page tab' && n.name === 'page 3')[0].states).toContain('selected');
      expect(after.some((n) => n.role === 'text' && n.text === 'set by act ✓')).toBe(true);
    } finally {
      await killFixture(app.pid);
    }
  }, 300000);

  it('a zenity form with two fields and OK takes 3 calls; a password field is refused', async () => {
    const app = await launchFixture('zenity-forms', { workspace: '3', args: ['--add-password=PIN'] });
    const addr = String(app.conId);
    const pw = await server.call('act', { action: 'set_text', name: 'PIN', text: '1234', window: addr });
    expect(pw.isError).toBe(true);
    expect(pw.text[0]).toMatch(/^refused: act: password text 'PIN' is a password field/);
    expect((await probe(app.pid)).some((n) => n.role === 'password text' && n.text === '1234')).toBe(false);

    // zenity's fields have no accessible name: they are found by the label on their row
    calls = 0;
    for (const [name, text] of [['First', 'Ada'], ['Last', 'Lovelace']] as const) {
      const r = await call('act', { action: 'set_text', name, text, window: addr });
      expect(r.isError, r.text.join('\n')).toBe(false);
      expect(r.text[0]).toBe(`set text '${name}' to "${text}" (verified: read back)`);
    }
    const ok = await call('click_ui', { name: 'OK', window: addr });
    expect(ok.isError, ok.text.join('\n')).toBe(false);
    expect(calls).toBeLessThanOrEqual(3);
    expect(await zenityAnswer(app)).toBe('Ada|Lovelace|\n');
  }, 120000);

  it('mousepad: type, menu File > Save As…, file_dialog saves under the path in 3 calls; popup items get their own surface origin', async () => {
    const { app, file } = await launchMousepadToSave('3', 'hypruse-save-', 'note.txt');
    try {
      const addr = String(app.conId);
      await settled(server, addr);

      // clicking the File menu lists what it opened: its items with ids, at their popup's place, labels trimmed
      const open = await server.call('click_ui', { name: 'File', role: 'menu', window: addr });
      expect(open.isError, open.text.join('\n')).toBe(false);
      const menu = (open.data.opened as Array<{ kind: string; items: Array<{ id: number; role: string; name: string; x: number; y: number }> }>).find((o) => o.kind === 'menu')!;
      expect(menu, open.text.join('\n')).toBeTruthy();
      expect(open.text).toContain(`  [${menu.items.find((i) => i.name === 'Save As...')!.id}] menu item "Save As..." @${menu.items.find((i) => i.name === 'Save As...')!.x},${menu.items.find((i) => i.name === 'Save As...')!.y}`);
      const saveAs = menu.items.find((i) => i.name === 'Save As...')!;
      expect(saveAs, JSON.stringify(menu.items)).toBeTruthy();
      const node = (await swayNodes()).find((n) => n.id === app.conId)!;
      const win = { x: node.rect.x + (node.window_rect?.x ?? 0), y: node.rect.y + (node.window_rect?.y ?? 0) };
      // libatspi: the item's box inside the popup, and the popup's offset from the main surface
      const item = (await probe(app.pid)).find((n) => n.role === 'menu item' && n.name === 'Save As...')!;
      expect(item.box![1]).not.toBe(item.screen![1]);
      expect(saveAs.y).toBe(win.y + item.screen![1] + Math.floor(item.box![3] / 2));
      expect(saveAs.x).toBe(win.x + item.screen![0] + Math.floor(item.box![2] / 2));
      await server.call('keyboard', { action: 'key', keys: 'Escape', window: addr });

      calls = 0;
      const typed = await call('keyboard', { action: 'type', text: 'saved by hypruse\n', window: addr });
      expect(typed.isError, typed.text.join('\n')).toBe(false);
      const m = await call('menu', { path: 'File > Save As…', window: addr });
      expect(m.isError, m.text.join('\n')).toBe(false);
      const dialog = ((m.data.opened ?? []) as Array<{ kind: string; window: string; title: string }>).find((o) => o.kind === 'window')!;
      expect(dialog, m.text.join('\n')).toBeTruthy();
      expect(dialog.title).toBe('Save As');
      expect((await swayNodes()).find((n) => String(n.id) === dialog.window)?.name).toBe('Save As');
      const f = await call('file_dialog', { path: file, window: dialog.window });
      expect(f.isError, f.text.join('\n')).toBe(false);
      expect(calls).toBeLessThanOrEqual(4);
      expect(f.data).toMatchObject({ path: file, closed: true, exists: true });
      expect(readFileSync(file, 'utf8')).toBe('saved by hypruse\n');
      await waitFor(async () => (await swayNodes()).find((n) => n.id === app.conId)?.name?.includes('note.txt'), 10000, 'mousepad titled after the file');
      expect((await swayNodes()).some((n) => String(n.id) === dialog.window)).toBe(false);

      // a path that stops half-way leaves no menu open
      const bad = await server.call('menu', { path: 'File > No Such Item', window: addr });
      expect(bad.isError).toBe(true);
      expect(bad.text[0]).toMatch(/^not_found: no menu item 'No Such Item' under 'File' in mousepad; the items are .*"Save As\.\.\."/);
      expect((await probe(app.pid)).some((n) => n.role === 'menu item' && n.name === 'Save As...')).toBe(false);
    } finally {
      await killFixture(app.pid);
    }
  }, 180000);

  it('GTK 4: set_text fills the client-side-decorated dialog\'s entry, read back; the app prints it on Apply', async () => {
    const app = await launchFixture('gtk4-dialog', { workspace: '3', args: ['--dialog-only'] });
    try {
      const addr = String(app.conId);
      // the app registers on the accessibility bus a moment after its window maps
      await settled(server, addr);
      const r = await server.call('act', { action: 'set_text', name: 'Name', text: 'gtk4 ✓', window: addr });
      expect(r.isError, r.text.join('\n')).toBe(false);
      expect(r.data).toMatchObject({ action: 'set_text', verified: true, state: { text: 'gtk4 ✓' } });
      const ok = await server.call('click_ui', { name: 'Apply', window: addr });
      expect(ok.isError, ok.text.join('\n')).toBe(false);
      await waitFor(() => readFileSync(app.stdout, 'utf8').includes('clicked Apply'), 10000, 'the dialog to print its answer');
      expect(readFileSync(app.stdout, 'utf8')).toContain('clicked Apply entry=gtk4 ✓');
    } finally {
      await killFixture(app.pid).catch(() => undefined);
    }
  }, 120000);

  it('GTK 3 form: scroll_to a partly clipped row and a scrolled-out one ends each wholly inside the list\'s scrolled area (libatspi, the app\'s adjustment)', async () => {
    const app = await launchFixture('gtk3-form', { workspace: '3' });
    try {
      const addr = String(app.conId);
      await settled(server, addr);
      const said = () => readFileSync(app.stdout, 'utf8');
      const lastScroll = () => Number([...said().matchAll(/^scrolled (\d+)$/gm)].at(-1)?.[1] ?? 0);
      // libatspi's boxes (every object, showing or not): the scroll pane is what the list shows; a row is
      // in view when its label is showing and wholly inside it
      const pane = (nodes: AtspiNode[]) => nodes.find((n) => n.role === 'scroll pane')!.box!;
      const row = (nodes: AtspiNode[], name: string) => nodes.find((n) => n.role === 'label' && n.name === name)!;
      const inside = (b: number[], p: number[]) => b[1] >= p[1] && b[1] + b[3] <= p[1] + p[3] && b[0] >= p[0] && b[0] + b[2] <= p[0] + p[2];

      let nodes = await atspi(app.pid);
      expect(row(nodes, 'Row 35').states, 'Row 35 starts scrolled out').not.toContain('showing');
      // the first row the list shows only in part: inside the window, so a window-bounds check calls it in view
      const clipped = nodes.filter((n) => n.role === 'label' && /^Row \d+$/.test(n.name) && n.states.includes('showing')).find((n) => !inside(n.box!, pane(nodes)));
      expect(clipped, JSON.stringify(nodes.filter((n) => n.role === 'label'))).toBeDefined();
      expect(clipped!.states).toContain('showing');
      expect(said()).not.toMatch(/^scrolled /m);

      const part = await server.call('act', { action: 'scroll_to', name: clipped!.name, window: addr });
      expect(part.isError, part.text.join('\n')).toBe(false);
      expect(part.data).toMatchObject({ action: 'scroll_to', via: 'atspi', verified: true });
      nodes = await atspi(app.pid);
      expect(inside(row(nodes, clipped!.name).box!, pane(nodes)), JSON.stringify([row(nodes, clipped!.name), pane(nodes)])).toBe(true);
      await waitFor(() => lastScroll() > 0, 10000, 'the list to report its scroll');

      const far = await server.call('act', { action: 'scroll_to', name: 'Row 35', window: addr });
      expect(far.isError, far.text.join('\n')).toBe(false);
      expect(far.data).toMatchObject({ action: 'scroll_to', element: { name: 'Row 35' }, via: 'atspi', verified: true });
      nodes = await atspi(app.pid);
      const r35 = row(nodes, 'Row 35');
      expect(r35.states, 'Row 35 is showing now').toContain('showing');
      expect(inside(r35.box!, pane(nodes)), JSON.stringify([r35, pane(nodes)])).toBe(true);
      expect(row(nodes, 'Row 1').states, 'Row 1 is scrolled out now').not.toContain('showing');
      // the list's own adjustment: rows 1-34 (22 px each, a little less with rounding) are above the shown area
      await waitFor(() => lastScroll() > 30 * 20, 10000, 'the list to scroll down to Row 35');

      const again = await server.call('act', { action: 'scroll_to', name: 'Row 35', window: addr });
      expect(again.isError, again.text.join('\n')).toBe(false);
      expect(again.data.via).toBe('none');
      expect(again.text[0]).toMatch(/^label 'Row 35' is already wholly in view/);
    } finally {
      await killFixture(app.pid).catch(() => undefined);
    }
  }, 120000);

  it('GTK 3 form: expand/collapse an expander, select in a combo box, a list and a tab list; libatspi and the app\'s own answer agree', async () => {
    const app = await launchFixture('gtk3-form', { workspace: '3' });
    try {
      const addr = String(app.conId);
      await settled(server, addr);
      const node = async (role: string, name: string) => (await probe(app.pid)).find((n) => n.role === role && n.name === name);
      const said = () => readFileSync(app.stdout, 'utf8');

      const ex = await server.call('act', { action: 'expand', name: 'Details', window: addr });
      expect(ex.isError, ex.text.join('\n')).toBe(false);
      expect(ex.data).toMatchObject({ action: 'expand', verified: true, state: { expanded: true } });
      expect((await node('toggle button', 'Details'))!.states).toContain('expanded');
      expect(said()).toContain('expanded Details=True');
      const co = await server.call('act', { action: 'collapse', name: 'Details', window: addr });
      expect(co.isError, co.text.join('\n')).toBe(false);
      expect((await node('toggle button', 'Details'))!.states).not.toContain('expanded');
      expect(said()).toContain('expanded Details=False');
      const again = await server.call('act', { action: 'collapse', name: 'Details', window: addr });
      expect(again.text[0]).toBe("toggle button 'Details' is already collapsed; nothing sent");
      expect(said().match(/expanded Details=/g)).toHaveLength(2);

      // the combo box is named by its label ("Color"), its chosen item is its value
      const u = await server.call('ui', { window: addr, role: 'combo box' });
      expect(u.text.join('\n')).toContain('combo "Color" = "Red"');
      const cb = await server.call('act', { action: 'select', name: 'Color', option: 'blue', window: addr });
      expect(cb.isError, cb.text.join('\n')).toBe(false);
      expect(cb.text[0]).toBe("selected 'Blue' in combo box 'Color' (verified: now selected)");
      expect(await node('combo box', 'Blue')).toBeDefined();

      const li = await server.call('act', { action: 'select', role: 'list box', option: 'Row 3', window: addr });
      expect(li.isError, li.text.join('\n')).toBe(false);
      const rows = (await probe(app.pid)).filter((n) => n.role === 'list item');
      expect(rows.filter((r) => r.states.includes('selected'))).toHaveLength(1);
      expect(rows[2].states).toContain('selected');

      const tab = await server.call('act', { action: 'select', role: 'page tab list', option: 'Beta', window: addr });
      expect(tab.isError, tab.text.join('\n')).toBe(false);
      expect((await node('page tab', 'Beta'))!.states).toContain('selected');

      const ok = await server.call('click_ui', { name: 'OK', window: addr });
      expect(ok.isError, ok.text.join('\n')).toBe(false);
      await waitFor(() => said().includes('ok name='), 10000, 'the form to print its state on OK');
      expect(said()).toMatch(/^ok name= subscribe=False details=False color=Blue tab=Beta row=Row 3$/m);
    } finally {
      await killFixture(app.pid).catch(() => undefined);
    }
  }, 120000);
  it('GTK 3 form: focus moves the keyboard focus to a check box, to the entry, and back to the entry after a tab switch left GTK\'s focus record stale; libatspi reads FOCUSED each time and the window active', async () => {
    const app = await launchFixture('gtk3-form', { workspace: '3' });
    try {
      const addr = String(app.conId);
      await settled(server, addr);
      const said = () => readFileSync(app.stdout, 'utf8');
      const focusedOf = async () => (await atspi(app.pid)).filter((n) => n.states.includes('focused')).map((n) => `${n.role} "${n.name}"`);

      const cb = await server.call('act', { action: 'focus', name: 'Subscribe', window: addr });
      expect(cb.isError, cb.text.join('\n')).toBe(false);
      expect(cb.data).toMatchObject({ action: 'focus', verified: true, state: { focused: true } });
      expect(await focusedOf()).toEqual(['check box "Subscribe"']);
      expect((await atspi(app.pid))[0].states, 'the form is the active window').toContain('active');

      const en = await server.call('act', { action: 'focus', name: 'Name', window: addr });
      expect(en.isError, en.text.join('\n')).toBe(false);
      expect(en.data).toMatchObject({ action: 'focus', verified: true, state: { focused: true } });
      expect(await focusedOf()).toEqual(['text ""']);
      await waitFor(() => said().includes('focus entry'), 10000, 'the entry to report its focus');

      // a notebook page switch: the entry keeps GTK's focus, but GTK 3's accessibility bridge stops reporting it
      const tab = await server.call('act', { action: 'select', role: 'page tab list', option: 'Beta', window: addr });
      expect(tab.isError, tab.text.join('\n')).toBe(false);
      expect(await focusedOf(), 'the stale focus record this case is about').toEqual([]);
      const back = await server.call('act', { action: 'focus', name: 'Name', window: addr });
      expect(back.isError, back.text.join('\n')).toBe(false);
      expect(back.data).toMatchObject({ action: 'focus', verified: true, state: { focused: true } });
      expect(back.text[0]).toMatch(/and back/);
      expect(await focusedOf()).toEqual(['text ""']);
      expect((await atspi(app.pid))[0].states).toContain('active');

      const again = await server.call('act', { action: 'focus', name: 'Name', window: addr });
      expect(again.isError, again.text.join('\n')).toBe(false);
      expect(again.data.via).toBe('none');
    } finally {
      await killFixture(app.pid).catch(() => undefined);
    }
  }, 120000);
});
