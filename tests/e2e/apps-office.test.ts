// LibreOffice Writer and Calc driven as an agent drives them, from a server whose host stripped the
// environment (only HOME, PATH and XDG_RUNTIME_DIR; HOME fresh, so LibreOffice makes a new profile
// and shows its first-start dialog): plain `launch`, `click_ui`, `keyboard`, `get_text`, `menu`,
// `file_dialog`. Judged by sway (the windows), libatspi (the document's paragraphs) and the files on
// disk (content.xml of the .odt/.ods, word/document.xml of the .docx, read with unzip). One
// LibreOffice process per file: Calc opens as a new window of the running soffice.bin.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import { appSuite, stopLaunched } from '../support/apps.js';
import { atspi, type AtspiNode } from '../support/atspi.js';

const desk = await requireDesktop();

/** One member of a zip file (an OpenDocument or Office Open XML file), as text. */
function unzipText(file: string, member: string): string {
  return execFileSync('unzip', ['-p', file, member], { encoding: 'utf8' });
}

/** The text of the XML elements (tags dropped), for comparing what a document holds. */
function xmlText(xml: string, tag: RegExp): string[] {
  return [...xml.matchAll(tag)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));
}

async function fileWritten(file: string): Promise<void> {
  await waitFor(() => existsSync(file) && statSync(file).size > 0, scaledMs(10000), `${file} on disk`);
}

describe.skipIf(!desk)('LibreOffice through the MCP server of a stripped host', () => {
  const app = appSuite('office', () => desk!.env.XDG_RUNTIME_DIR);
  const { out } = app;
  let pid = 0;
  let zenity = 0;
  let writer = '';
  /** libatspi's dump of the Writer window (read once: a walk of LibreOffice's every object is long) */
  let writerTree: AtspiNode[] = [];


  it('Writer: launch returns the document window with Tip of the Day listed; typed text is verified and read back', async () => {
    const l = await app.server.call('launch', { command: 'libreoffice --writer', wait_s: 30 });
    expect(l.isError, l.text.join('\n')).toBe(false);
    pid = Number(l.data.pid);
    app.pids.push(pid);
    writer = String(l.data.address);
    expect(l.data).toMatchObject({ class: 'libreoffice-writer', title: 'Untitled 1 - LibreOffice Writer' });
    const dialogs = (l.data.dialogs ?? []) as Array<{ address: string; title: string }>;
    expect(dialogs.map((d) => d.title)).toEqual([expect.stringMatching(/^Tip of the Day/)]);
    let nodes = await swayNodes();
    expect(nodes.find((n) => String(n.id) === writer)?.app_id).toBe('libreoffice-writer');
    expect(nodes.some((n) => n.app_id === 'soffice' && /^LibreOffice [0-9.]+$/.test(n.name ?? '')), 'the splash is gone').toBe(false);

    // the agent closes the tip, then types into the document
    const c = await app.server.call('click_ui', { name: 'OK', role: 'push button', window: dialogs[0]!.address });
    expect(c.isError, c.text.join('\n')).toBe(false);
    await waitFor(async () => !(await swayNodes()).some((n) => String(n.id) === dialogs[0]!.address), scaledMs(5000), 'the tip to close');
    const k = await app.server.call('keyboard', { action: 'type', text: 'Quarterly report draft', window: writer });
    expect(k.isError, k.text.join('\n')).toBe(false);
    expect(k.text[0]).toMatch(/\(verified\)/);

    // read back through hypruse: the window's text is the document's
    const g = await app.server.call('get_text', { window: writer });
    expect(g.isError, g.text.join('\n')).toBe(false);
    expect(g.text[0]).toMatch(/^document text /);
    expect(String(g.data.text).trim()).toBe('Quarterly report draft');
    // and independently: libatspi's paragraph under the document
    const tree = (writerTree = await atspi(pid));
    expect(tree.some((n) => n.role === 'paragraph' && n.text === 'Quarterly report draft')).toBe(true);
    nodes = await swayNodes();
    expect(nodes.find((n) => String(n.id) === writer)?.focused, 'the document window has the focus again').toBe(true);
  }, scaledMs(120000));

  it('Writer: ui lists each menu of the menu bar once, where libatspi shows it (not the 0-high copy LibreOffice keeps in its pane)', async () => {
    const u = await app.server.call('ui', { window: writer });
    expect(u.isError, u.text.join('\n')).toBe(false);
    const listed = (u.data.elements as Array<{ role: string; name: string; x: number; y: number }>).filter((e) => e.role === 'menu');
    // libatspi: the menu bars and the menus right below each (its dump is in tree order, with depths)
    const tree = writerTree.length ? writerTree : await atspi(pid, 'Untitled 1 - LibreOffice Writer');
    const bars: Array<{ box: [number, number, number, number]; menus: Array<{ name: string; box: [number, number, number, number] }> }> = [];
    tree.forEach((n, i) => {
      if (n.role !== 'menu bar' || !n.box) return;
      const depth = (n as { depth?: number }).depth ?? 0;
      const menus: Array<{ name: string; box: [number, number, number, number] }> = [];
      for (let j = i + 1; j < tree.length && ((tree[j] as { depth?: number }).depth ?? 0) > depth; j++) {
        if (((tree[j] as { depth?: number }).depth ?? 0) === depth + 1 && tree[j]!.role === 'menu') menus.push({ name: tree[j]!.name, box: tree[j]!.box! });
      }
      bars.push({ box: n.box, menus });
    });
    const shown = bars.filter((b) => b.box[3] > 0 && b.menus.length > 0);
    expect(shown.length, 'one menu bar with a height').toBe(1);
    const names = shown[0]!.menus.map((m) => m.name);
    expect(names.slice(0, 2)).toEqual(['File', 'Edit']);
    expect(bars.some((b) => b.box[3] === 0 && b.menus.map((m) => m.name).join() === names.join()), 'LibreOffice keeps a copy of its menus in a menu bar 0 px high').toBe(true);
    expect(listed.map((e) => e.name), 'each menu once, in order').toEqual(names);
    // each listed menu's point lies on the menu libatspi shows (window-relative box + the window's place in sway)
    const node = (await swayNodes()).find((n) => String(n.id) === writer)!;
    const [wx, wy] = [node.rect.x + (node.window_rect?.x ?? 0), node.rect.y + (node.window_rect?.y ?? 0)];
    for (const e of listed) {
      const box = shown[0]!.menus.find((m) => m.name === e.name)!.box;
      const [x, y] = [e.x - wx, e.y - wy];
      expect(x >= box[0] && x < box[0] + box[2] && y >= box[1] && y < box[1] + box[3], `${e.name} at (${x},${y}) inside ${box.join(',')}`).toBe(true);
    }
  }, scaledMs(60000));

  it('Writer: saves through menu File > Save As and file_dialog as .odt, then as .docx (the keep-format question answered)', async () => {
    const m = await app.server.call('menu', { path: 'File > Save As', window: writer });
    expect(m.isError, m.text.join('\n')).toBe(false);
    const odt = join(out, 'report.odt');
    const f = await app.server.call('file_dialog', { path: odt });
    expect(f.isError, f.text.join('\n')).toBe(false);
    await fileWritten(odt);
    expect(xmlText(unzipText(odt, 'content.xml'), /<text:p\b[^>]*>(.*?)<\/text:p>/g)).toEqual(['Quarterly report draft']);

    const m2 = await app.server.call('menu', { path: 'File > Save As', window: writer });
    expect(m2.isError, m2.text.join('\n')).toBe(false);
    const docx = join(out, 'report.docx');
    const f2 = await app.server.call('file_dialog', { path: docx });
    expect(f2.isError, f2.text.join('\n')).toBe(false);
    expect(f2.data.kept_format).toMatch(/^Use Word .* Format!?$/);
    await fileWritten(docx);
    await waitFor(() => {
      try {
        return xmlText(unzipText(docx, 'word/document.xml'), /<w:t\b[^>]*>(.*?)<\/w:t>/g).join('') === 'Quarterly report draft';
      } catch {
        return false; // still being written
      }
    }, scaledMs(10000), 'the .docx to hold the text');
    await waitFor(async () => /^report\.docx - LibreOffice Writer$/.test((await swayNodes()).find((n) => String(n.id) === writer)?.name ?? ''), scaledMs(5000), 'the window to name the .docx');
    expect((await swayNodes()).filter((n) => n.pid === pid).map((n) => String(n.id)), 'no question left open').toEqual([writer]);
  }, scaledMs(120000));

  it('Calc: cells set by keyboard (and one chosen by a click) are read back one by one and as a range; the saved .ods holds them', async () => {
    // a new Calc window of the running LibreOffice (the request is handed over to it)
    const l = await app.server.call('launch', { command: 'libreoffice --calc', wait_s: 30 });
    expect(l.isError, l.text.join('\n')).toBe(false);
    const calc = String(l.data.address);
    expect(l.data).toMatchObject({ class: 'libreoffice-calc', title: 'Untitled 1 - LibreOffice Calc' });
    expect(l.data.handed_to).toBe(pid);
    await app.server.call('keyboard', { action: 'key', keys: 'ctrl+Home', window: calc });
    const k = await app.server.call('keyboard', { action: 'type', text: 'Fruit\tCount\nApples\t42\nPears\t7\n', window: calc });
    expect(k.isError, k.text.join('\n')).toBe(false);
    expect(k.text[0], 'a cell is not typed into twice').not.toMatch(/typed twice/);
    const cells: Record<string, string> = { A1: 'Fruit', B1: 'Count', A2: 'Apples', B2: '42', A3: 'Pears', B3: '7' };
    for (const [name, want] of Object.entries(cells)) {
      const g = await app.server.call('get_text', { name, role: 'table cell', window: calc });
      expect(g.isError, g.text.join('\n')).toBe(false);
      expect(g.data.text, name).toBe(want);
    }
    // a cell chosen by a click (the pointer lands on the cell named: LibreOffice places its boxes below its menu bar)
    const c = await app.server.call('click_ui', { name: 'C2', role: 'table cell', window: calc });
    expect(c.isError, c.text.join('\n')).toBe(false);
    const f2 = await app.server.call('keyboard', { action: 'type', text: '=B2*2\n', window: calc });
    expect(f2.isError, f2.text.join('\n')).toBe(false);
    const c2 = await app.server.call('get_text', { name: 'C2', role: 'table cell', window: calc });
    expect(c2.data.text, 'C2 holds the formula\'s value').toBe('84');
    const range = await app.server.call('get_text', { role: 'table', window: calc });
    expect(range.isError, range.text.join('\n')).toBe(false);
    expect(String(range.data.text).split('\n').slice(0, 3)).toEqual(['Fruit  Count', 'Apples  42  84', 'Pears  7']);

    const m = await app.server.call('menu', { path: 'File > Save As', window: calc });
    expect(m.isError, m.text.join('\n')).toBe(false);
    const ods = join(out, 'fruit.ods');
    const f = await app.server.call('file_dialog', { path: ods });
    expect(f.isError, f.text.join('\n')).toBe(false);
    await fileWritten(ods);
    const rows = [...unzipText(ods, 'content.xml').matchAll(/<table:table-row\b[^>]*>(.*?)<\/table:table-row>/g)].map((r) => xmlText(r[1]!, /<text:p>(.*?)<\/text:p>/g));
    expect(rows.slice(0, 3)).toEqual([['Fruit', 'Count'], ['Apples', '42', '84'], ['Pears', '7']]);
    expect(unzipText(ods, 'content.xml'), 'C2 is the formula typed').toMatch(/table:formula="of:=\[\.B2\]\*2"/);
    const w = await app.server.call('wm', { action: 'close_window', target: calc });
    expect(w.isError, w.text.join('\n')).toBe(false);
  }, scaledMs(150000));

  it('Calc opened beside Writer and another window (as in the bench): the typed letters reach the cells, and a Save As of a name without extension answers the .ods LibreOffice wrote', async () => {
    // a third window on the workspace: LibreOffice then keeps its own focus in Writer's paragraph when
    // the Calc window opens and takes the keyboard; Calc lost every letter (Tab and Return still moved
    // its cell cursor, so the sheet scrolled past column A) and the bench found no cell A1
    const z = await app.server.call('launch', { command: 'zenity --entry --title "Side note" --text "Note"', wait_s: 20 });
    expect(z.isError, z.text.join('\n')).toBe(false);
    zenity = Number(z.data.pid);
    app.pids.push(zenity);
    const l = await app.server.call('launch', { command: 'libreoffice --calc', wait_s: 30 });
    expect(l.isError, l.text.join('\n')).toBe(false);
    const calc = String(l.data.address);
    expect(l.data).toMatchObject({ class: 'libreoffice-calc' });
    const nodes = await swayNodes();
    const ws = nodes.find((n) => String(n.id) === calc)?.workspace;
    expect(nodes.filter((n) => n.workspace === ws && [writer, calc, String(z.data.address)].includes(String(n.id))), 'three windows side by side').toHaveLength(3);
    const h = await app.server.call('keyboard', { action: 'key', keys: 'ctrl+Home', window: calc });
    expect(h.isError, h.text.join('\n')).toBe(false);
    const k = await app.server.call('keyboard', { action: 'type', text: 'Plums\t3\nFigs\t11\n', window: calc });
    expect(k.isError, k.text.join('\n')).toBe(false);
    expect(k.text[0]).not.toMatch(/typed twice/);

    // the save once the third window is gone (in three columns, LibreOffice's file chooser has left
    // soffice unanswering for over 15 s in some runs: not yet understood)
    await stopLaunched(zenity);
    const m = await app.server.call('menu', { path: 'File > Save As', window: calc });
    expect(m.isError, m.text.join('\n')).toBe(false);
    const bare = join(out, 'plums');
    const f = await app.server.call('file_dialog', { path: bare });
    expect(f.isError, f.text.join('\n')).toBe(false);
    const ods = `${bare}.ods`;
    await fileWritten(ods);
    // judged on disk: LibreOffice wrote plums.ods, not plums, and the answer names that file
    expect(existsSync(bare)).toBe(false);
    expect(f.data.written).toBe(ods);
    expect(f.data.exists).toBe(false);
    expect(f.text[0]).toContain(`the app wrote ${ods}`);
    await waitFor(() => {
      try {
        return unzipText(ods, 'content.xml').includes('Figs');
      } catch {
        return false; // still being written
      }
    }, scaledMs(10000), 'the .ods to hold the cells');
    const rows = [...unzipText(ods, 'content.xml').matchAll(/<table:table-row\b[^>]*>(.*?)<\/table:table-row>/g)].map((r) => xmlText(r[1]!, /<text:p>(.*?)<\/text:p>/g));
    expect(rows.slice(0, 2), 'the cells from A1 on').toEqual([['Plums', '3'], ['Figs', '11']]);
    const w = await app.server.call('wm', { action: 'close_window', target: calc });
    expect(w.isError, w.text.join('\n')).toBe(false);
  }, scaledMs(150000));
});
