// Qt apps driven as an agent drives them, from a server whose host stripped the
// environment (only HOME, PATH and XDG_RUNTIME_DIR; HOME fresh, so the app's own
// settings start empty): plain `launch`, `ui`, `keyboard`, `menu`, `file_dialog`.
// Judged by the file on disk, the process table (the app is still alive after
// every read: Qt 5's AT-SPI bridge crashed on Properties.GetAll) and libatspi.
import { chmodSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import { type Server } from '../support/server.js';
import { startStrippedHostServer, stopLaunched } from '../support/apps.js';
import { alive } from '../support/tools.js';

const desk = await requireDesktop();


describe.skipIf(!desk)('Qt 5 (featherpad) through the MCP server of a stripped host', () => {
  let server: Server;
  const pids: number[] = [];
  const home = mkdtempSync(join(tmpdir(), 'hypruse-qt-home-'));
  const out = mkdtempSync(join(tmpdir(), 'hypruse-qt-out-'));
  chmodSync(out, 0o777);

  beforeAll(async () => {
    server = await startStrippedHostServer(home, desk!.env.XDG_RUNTIME_DIR);
  }, 60000);
  afterAll(async () => {
    for (const pid of pids) await stopLaunched(pid).catch(() => undefined);
    await server?.close();
  });

  it('ui lists no item of a closed menu, and reading the tree never crashes the app', async () => {
    const l = await server.call('launch', { command: 'featherpad', wait_s: 20 });
    expect(l.isError, l.text.join('\n')).toBe(false);
    const pid = Number(l.data.pid);
    pids.push(pid);
    const window = String(l.data.address);
    for (let i = 0; i < 2; i++) {
      const u = await server.call('ui', { window });
      expect(u.isError, u.text.join('\n')).toBe(false);
      const text = u.text.join('\n');
      expect(text).toMatch(/menu item "File"/);
      for (const closed of ['Save As', 'Undo', 'UTF-8', 'Find']) expect(text, `${closed} belongs to a closed menu`).not.toContain(`"${closed}"`);
    }
    await new Promise((r) => setTimeout(r, scaledMs(500)));
    expect(alive(pid), 'featherpad still runs after two tree reads').toBe(true);
    expect((await swayNodes()).some((n) => String(n.id) === window)).toBe(true);
  }, 60000);

  it('types (verified), saves through menu "File > Save As" and the Qt file dialog: the file on disk holds the text', async () => {
    const pid = pids[0]!;
    const k = await server.call('keyboard', { action: 'type', text: 'hello qt' });
    expect(k.isError, k.text.join('\n')).toBe(false);
    expect(k.text[0]).toMatch(/\(verified\)/);
    const m = await server.call('menu', { path: 'File > Save As' });
    expect(m.isError, m.text.join('\n')).toBe(false);
    expect(m.text[0]).toMatch(/activated menu File > Save As/);
    const file = join(out, 'featherpad.txt');
    const f = await server.call('file_dialog', { path: file });
    expect(f.isError, f.text.join('\n')).toBe(false);
    await waitFor(() => existsSync(file) && readFileSync(file, 'utf8').length > 0, scaledMs(5000), 'the saved file');
    expect(readFileSync(file, 'utf8')).toBe('hello qt\n'); // featherpad ends the file with one newline
    expect(alive(pid), 'featherpad survived menu and dialog').toBe(true);
  }, 90000);
});
