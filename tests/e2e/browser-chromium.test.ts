// Chromium on the test desktop. Two ways it runs: started by the person from their session (no
// accessibility switch in its command line), and launched plainly through the MCP server
// (`chromium URL`, a fresh profile). The server runs as the person with only HOME, PATH and
// XDG_RUNTIME_DIR. Judged by the requests the local web server received (the form POST) and the
// window titles sway reports.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import type { Server } from '../support/server.js';
import { ORDER_FORM, freshHome, startServerAsPerson, startSite, type Site } from '../support/browser.js';

const desk = await requireDesktop({ reset: true });

const LINKS = `<!doctype html><html><head><meta charset="utf-8"><title>Pick a colour</title></head><body>
<button id="b" aria-haspopup="true" aria-expanded="false" onclick="const m=document.getElementById('m'); m.hidden=!m.hidden; this.setAttribute('aria-expanded', String(!m.hidden));">Choose a colour</button>
<div id="m" role="menu" hidden><div role="menuitem" tabindex="-1" onclick="document.title='Picked Green'">Green</div><div role="menuitem" tabindex="-1" onclick="document.title='Picked Red'">Red</div></div>
<p><a href="/slow.html">Slow page</a></p>
</body></html>`;
const SLOW = '<!doctype html><html><head><meta charset="utf-8"><title>Slow page</title></head><body><h1>Finally</h1><button>Loaded button</button></body></html>';

describe.skipIf(!desk)('Chromium through the MCP server (stripped environment, fresh profile)', () => {
  let site: Site;
  let home = '';
  let server: Server;
  let person: ChildProcess | null = null;
  const windows: string[] = [];

  const titleOf = async (w: string) => (await swayNodes()).find((n) => String(n.id) === w)?.name ?? '';
  const ok = (r: { isError: boolean; text: string[] }) => expect(r.isError, r.text.join('\n')).toBe(false);

  /** Chromium as the person starts it from their session: no accessibility switch. */
  const personChromium = (url: string, profile: string): ChildProcess => {
    const env = {
      HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin', XDG_RUNTIME_DIR: join(home, '.run'), WAYLAND_DISPLAY: desk!.env.WAYLAND_DISPLAY,
      XDG_SESSION_TYPE: 'wayland', DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(home, '.run', 'bus')}`,
    };
    const argv = ['chromium', `--user-data-dir=${join(home, profile)}`, '--no-first-run', url];
    const root = process.getuid?.() === 0;
    return spawn(root ? 'runuser' : argv[0], root ? ['-u', desk!.user, '--', '/usr/bin/env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...argv] : argv.slice(1), {
      env: root ? { PATH: env.PATH } : env, stdio: 'ignore', detached: true,
    });
  };
  const stopPerson = async () => {
    if (!person?.pid) return;
    try {
      process.kill(-person.pid, 'SIGTERM');
    } catch {
      /* ended */
    }
    person = null;
  };
  const chromiumWindow = async (title: string): Promise<string> => {
    let w = '';
    await waitFor(async () => {
      w = String((await swayNodes()).find((n) => n.name?.startsWith(title) && /chromium/i.test(String(n.app_id ?? '')))?.id ?? '');
      return w !== '';
    }, 30000, `a Chromium window titled ${title}`);
    return w;
  };

  beforeAll(async () => {
    site = await startSite({ '/form.html': ORDER_FORM, '/links.html': LINKS, '/slow.html': { body: SLOW, delayMs: 2500 }, '/never.html': { body: '<!doctype html><html><head><title>Never</title></head><body><p>Half', never: true }, '/thanks.html': '<!doctype html><title>Terms</title>' });
    home = freshHome();
    server = await startServerAsPerson(desk!, home);
  }, 60000);

  afterAll(async () => {
    for (const w of windows) await server?.call('wm', { action: 'close_window', target: w }).catch(() => undefined);
    await stopPerson();
    await server?.close().catch(() => undefined);
    await site?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('a Chromium the person started: ui says how to expose it; restarted while hypruse has accessibility on, its page is read and filled by labels (judged by the POST)', async () => {
    // started before hypruse turned the session's accessibility on: no bridge, and hypruse says what to do
    person = personChromium(site.url('/form.html'), 'p1');
    const w1 = await chromiumWindow('Order form');
    const u1 = await server.call('ui', { window: w1 });
    if (u1.isError) {
      expect(u1.text.join('\n')).toMatch(/Chromium/);
      expect(u1.text.join('\n')).toMatch(/--force-renderer-accessibility/);
      expect(u1.text.join('\n')).toMatch(/chromium-flags\.conf|CHROMIUM_FLAGS/);
    }
    await stopPerson();
    await waitFor(async () => (await titleOf(w1)) === '', 15000, 'the first Chromium closed');

    // started again (hypruse turned accessibility on at its first read): the page is woken and read
    person = personChromium(site.url('/form.html'), 'p2');
    const w = await chromiumWindow('Order form');
    const u = await server.call('ui', { window: w });
    ok(u);
    const text = u.text.join('\n');
    expect(text).toMatch(/document web "Order form"/);
    for (const n of ['Full name', 'Email', 'Quantity', 'Comment', 'Size', 'Red', 'Blue', 'Gift wrap', 'Notes', 'Place order']) expect(text, n).toContain(`"${n}"`);
    expect(text, 'no U+FFFC in values').not.toContain('\uFFFC');
    for (const c of [
      { action: 'set_text', name: 'Full name', text: 'Grace Hopper' },
      { action: 'set_text', name: 'Email', text: 'grace@example.org' },
      { action: 'set_text', name: 'Quantity', text: '7' },
      { action: 'set_text', name: 'Comment', text: 'Compile it' },
      { action: 'select', name: 'Size', option: 'Medium' },
      { action: 'check', name: 'Red' },
      { action: 'check', name: 'Gift wrap' },
      { action: 'set_text', name: 'Notes', text: 'Nanoseconds' },
    ]) {
      const r = await server.call('act', { ...c, window: w });
      ok(r);
      expect(r.data.verified, r.text.join('\n')).toBe(true);
    }
    ok(await server.call('click_ui', { name: 'Place order', window: w, confirm: true }));
    const post = await site.nextPost('/order');
    expect(Object.fromEntries(post.body)).toMatchObject({ name: 'Grace Hopper', email: 'grace@example.org', qty: '7', comment: 'Compile it', size: 'Medium', color: 'red', gift: 'yes', notes: 'Nanoseconds' });
    await stopPerson();
  }, 180000);
});
