// GTK 4 + libadwaita (gnome-text-editor) from a server whose host stripped the
// environment, HOME fresh (no drafts of earlier sessions): `ui` names controls
// as a person would (the tooltip where GTK 4 gives only the widget's type name),
// judged against sway (the window) and the listing's own absence of type names.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireDesktop, swayNodes } from '../support/desktop.js';
import { type Server } from '../support/server.js';
import { startStrippedHostServer, stopLaunched } from '../support/apps.js';

const desk = await requireDesktop();

describe.skipIf(!desk)('GTK 4 + libadwaita (gnome-text-editor) through the MCP server of a stripped host', () => {
  let server: Server;
  let pid = 0;
  const home = mkdtempSync(join(tmpdir(), 'hypruse-gtk4-home-'));

  beforeAll(async () => {
    server = await startStrippedHostServer(home, desk!.env.XDG_RUNTIME_DIR);
  }, 60000);
  afterAll(async () => {
    await stopLaunched(pid);
    await server?.close();
  });

  it('ui names controls by their tooltip, never by a widget type name', async () => {
    const l = await server.call('launch', { command: 'gnome-text-editor', wait_s: 20 });
    expect(l.isError, l.text.join('\n')).toBe(false);
    pid = Number(l.data.pid);
    expect((await swayNodes()).find((n) => String(n.id) === String(l.data.address))?.app_id).toBe('org.gnome.TextEditor');
    const u = await server.call('ui', { window: String(l.data.address) });
    expect(u.isError, u.text.join('\n')).toBe(false);
    const text = u.text.join('\n');
    expect(text).not.toMatch(/"(Gtk|Adw)[A-Z]\w*"|"Editor\w*(View|Page)"/);
    expect(text).toMatch(/button "Open recent document \(Ctrl\+K\)"/);
    expect(text).toMatch(/button "New tab \(Ctrl\+T\)"/);
  }, 60000);
});
