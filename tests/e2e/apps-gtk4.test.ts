// GTK 4 + libadwaita (gnome-text-editor) from a server whose host stripped the
// environment, HOME fresh (no drafts of earlier sessions): `ui` names controls
// as a person would (the tooltip where GTK 4 gives only the widget's type name),
// judged against sway (the window) and the listing's own absence of type names.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import { alive } from '../support/tools.js';
import { appSuite } from '../support/apps.js';

const desk = await requireDesktop();

describe.skipIf(!desk)('GTK 4 + libadwaita (gnome-text-editor) through the MCP server of a stripped host', () => {
  const app = appSuite('gtk4', () => desk!.env.XDG_RUNTIME_DIR);
  const { out } = app;
  let pid = 0;

  it('ui names controls by their tooltip, never by a widget type name', async () => {
    const l = await app.server.call('launch', { command: 'gnome-text-editor', wait_s: 20 });
    expect(l.isError, l.text.join('\n')).toBe(false);
    pid = Number(l.data.pid);
    app.pids.push(pid);
    expect((await swayNodes()).find((n) => String(n.id) === String(l.data.address))?.app_id).toBe('org.gnome.TextEditor');
    const u = await app.server.call('ui', { window: String(l.data.address) });
    expect(u.isError, u.text.join('\n')).toBe(false);
    const text = u.text.join('\n');
    expect(text).not.toMatch(/"(Gtk|Adw)[A-Z]\w*"|"Editor\w*(View|Page)"/);
    expect(text).toMatch(/button "Open recent document \(Ctrl\+K\)"/);
    expect(text).toMatch(/button "New tab \(Ctrl\+T\)"/);
  }, 60000);

  it('types (verified) into the source view, saves through the primary menu and the GTK 4 file chooser: the file on disk holds the text', async () => {
    const k = await app.server.call('keyboard', { action: 'type', text: 'hello gtk4' });
    expect(k.isError, k.text.join('\n')).toBe(false);
    expect(k.text[0]).toMatch(/\(verified\)/);
    // no menu bar: the primary (hamburger) menu's popover, opened and walked; the answer names the path taken
    const m = await app.server.call('menu', { path: 'Main Menu > Save As' });
    expect(m.isError, m.text.join('\n')).toBe(false);
    expect(m.text[0]).toMatch(/activated menu Menu > Save As/);
    const file = join(out, 'gte.txt');
    const f = await app.server.call('file_dialog', { path: file });
    expect(f.isError, f.text.join('\n')).toBe(false);
    await waitFor(() => existsSync(file) && readFileSync(file, 'utf8').length > 0, scaledMs(5000), 'the saved file');
    expect(readFileSync(file, 'utf8')).toBe('hello gtk4\n'); // the editor ends the file with one newline
    expect(alive(pid), 'gnome-text-editor survived menu and dialog').toBe(true);
    // a path naming only the item: the primary menu is the level it did not name, and the answer says so
    const again = await app.server.call('menu', { path: 'Save As' });
    expect(again.isError, again.text.join('\n')).toBe(false);
    expect(again.text[0]).toMatch(/activated menu Menu > Save As.*the primary menu, which the path did not name/);
    await waitFor(async () => (await swayNodes()).some((n) => n.pid === pid && n.name === 'Save As'), scaledMs(5000), 'the Save As dialog');
    const dialog = String((await swayNodes()).find((n) => n.pid === pid && n.name === 'Save As')!.id);
    const cancel = await app.server.call('click_ui', { name: 'Cancel', window: dialog });
    expect(cancel.isError, cancel.text.join('\n')).toBe(false);
    await waitFor(async () => !(await swayNodes()).some((n) => String(n.id) === dialog), scaledMs(5000), 'the dialog to close');
  }, 90000);
});
