// A file manager (Thunar 4.18) driven as an agent drives it, from a server whose host stripped the
// environment (only HOME, PATH and XDG_RUNTIME_DIR; HOME fresh, so Thunar starts in its default icon
// view, which exposes no files over AT-SPI): plain `launch` on a folder, `menu` to the list view,
// `get_text`/`ui` to list the files, `click_ui` to select, F2 and `act set_text` to rename, `menu`
// File > Create Folder to make a folder. Judged by the folder on disk, libatspi (the selected row) and
// sway (the dialogs closed, the window closed at the end).
import { mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import { appSuite } from '../support/apps.js';
import { atspi } from '../support/atspi.js';

const desk = await requireDesktop();

describe.skipIf(!desk)('Thunar through the MCP server of a stripped host', () => {
  const app = appSuite('thunar', () => desk!.env.XDG_RUNTIME_DIR);
  let pid = 0;
  let window = '';
  const folder = join(mkdtempSync(join(tmpdir(), 'hypruse-thunar-')), 'Projects');
  mkdirSync(folder);
  chmodSync(folder, 0o777);
  for (const f of ['budget.ods', 'notes.txt', 'plan.md']) writeFileSync(join(folder, f), `${f}\n`);

  afterAll(async () => {
    // before the suite's own end (hooks run last first): the window closed, then its pid stopped
    if (window) await app.server.call('wm', { action: 'close_window', target: window }).catch(() => undefined);
  });

  it('lists the files of a folder (after switching to the list view through the menu)', async () => {
    const l = await app.server.call('launch', { command: `thunar ${folder}`, wait_s: 20 });
    expect(l.isError, l.text.join('\n')).toBe(false);
    pid = Number(l.data.pid);
    app.pids.push(pid);
    window = String(l.data.address);
    expect((await swayNodes()).find((n) => String(n.id) === window)?.name).toBe('Projects - Thunar');
    const m = await app.server.call('menu', { path: 'View > List View', window });
    expect(m.isError, m.text.join('\n')).toBe(false);
    await waitFor(async () => /budget\.ods/.test((await app.server.call('get_text', { window })).text.join('\n')), scaledMs(5000), 'the list view');
    const g = await app.server.call('get_text', { window });
    const rows = String(g.data.text).split('\n').filter((r) => /\.(ods|txt|md)\b/.test(r));
    expect(rows.map((r) => r.match(/\b(\S+\.(?:ods|txt|md))\b/)![1]), 'each file on a row of its own, in name order').toEqual(['budget.ods', 'notes.txt', 'plan.md']);
    const u = await app.server.call('ui', { window });
    expect(u.isError, u.text.join('\n')).toBe(false);
    for (const f of readdirSync(folder)) expect(u.text.join('\n')).toContain(`"${f}"`);
  }, scaledMs(60000));

  it('selects a file, renames it (F2, the name field, Rename) and creates a folder (File > Create Folder)', async () => {
    const c = await app.server.call('click_ui', { name: 'notes.txt', window });
    expect(c.isError, c.text.join('\n')).toBe(false);
    // libatspi: the row of notes.txt is the selected one
    await waitFor(async () => (await atspi(pid)).some((n) => n.role === 'table cell' && n.name === 'notes.txt' && n.states.includes('selected')), scaledMs(5000), 'notes.txt selected');

    const k = await app.server.call('keyboard', { action: 'key', keys: 'F2', window });
    expect(k.isError, k.text.join('\n')).toBe(false);
    let rename = '';
    await waitFor(async () => (rename = String((await swayNodes()).find((n) => n.pid === pid && /^Rename/.test(n.name ?? ''))?.id ?? '')) !== '', scaledMs(5000), 'the rename dialog');
    const s = await app.server.call('act', { action: 'set_text', role: 'entry', text: 'meeting notes.txt', window: rename });
    expect(s.isError, s.text.join('\n')).toBe(false);
    const r = await app.server.call('click_ui', { name: 'Rename', role: 'push button', window: rename });
    expect(r.isError, r.text.join('\n')).toBe(false);
    await waitFor(() => readdirSync(folder).includes('meeting notes.txt'), scaledMs(5000), 'the renamed file on disk');

    const m = await app.server.call('menu', { path: 'File > Create Folder', window });
    expect(m.isError, m.text.join('\n')).toBe(false);
    const opened = (m.data.opened ?? []) as Array<{ window: string }>;
    const create = opened[0]?.window ?? String((await swayNodes()).find((n) => n.pid === pid && n.name === 'Create New Folder')?.id ?? '');
    expect(create).not.toBe('');
    const t = await app.server.call('act', { action: 'set_text', name: 'Enter the name', text: 'Archive 2026', window: create });
    expect(t.isError, t.text.join('\n')).toBe(false);
    const b = await app.server.call('click_ui', { name: 'Create', role: 'push button', window: create });
    expect(b.isError, b.text.join('\n')).toBe(false);
    await waitFor(() => readdirSync(folder).includes('Archive 2026'), scaledMs(5000), 'the new folder on disk');

    expect(statSync(join(folder, 'Archive 2026')).isDirectory()).toBe(true);
    expect(readdirSync(folder).sort()).toEqual(['Archive 2026', 'budget.ods', 'meeting notes.txt', 'plan.md']);
    expect((await swayNodes()).filter((n) => n.pid === pid).map((n) => String(n.id)), 'the dialogs closed').toEqual([window]);
    // the list the agent reads shows the change too
    await waitFor(async () => /Archive 2026[\s\S]*meeting notes\.txt/.test((await app.server.call('get_text', { window })).text.join('\n')), scaledMs(5000), 'the list to show the new names');
  }, scaledMs(90000));
});
