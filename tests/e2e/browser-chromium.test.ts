// Chromium on the test desktop. Two ways it runs: started by the person from their session (no
// accessibility switch in its command line), and launched plainly through the MCP server
// (`chromium URL`, a fresh profile). The server runs as the person with only HOME, PATH and
// XDG_RUNTIME_DIR. Judged by the requests the local web server received (the form POST) and the
// window titles sway reports.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atspi } from '../support/atspi.js';
import { requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import type { Server } from '../support/server.js';
import { ORDER_FORM, freshHome, startServerAsPerson, startSite, stopBrowser, type Site } from '../support/browser.js';

const desk = await requireDesktop({ reset: true });

const LINKS = `<!doctype html><html><head><meta charset="utf-8"><title>Pick a colour</title></head><body>
<button id="b" aria-haspopup="true" aria-expanded="false" onclick="const m=document.getElementById('m'); m.hidden=!m.hidden; this.setAttribute('aria-expanded', String(!m.hidden));">Choose a colour</button>
<div id="m" role="menu" hidden><div role="menuitem" tabindex="-1" onclick="document.title='Picked Green'">Green</div><div role="menuitem" tabindex="-1" onclick="document.title='Picked Red'">Red</div></div>
<p><a href="/slow.html">Slow page</a></p>
</body></html>`;
// the page itself at once, its picture 2.5 s later: the document is shown but loading (busy) until then
const SLOW = '<!doctype html><html><head><meta charset="utf-8"><title>Slow page</title></head><body><h1>Finally</h1><img src="/slow.svg" alt="Late picture" width="40" height="40"><button>Loaded button</button></body></html>';
const PICTURE = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="teal"/></svg>';
// a button the page's script adds 1.5 s after the load; clicking it retitles the page
const LATE = `<!doctype html><html><head><meta charset="utf-8"><title>Late page</title></head><body><h1>Wait for it</h1>
<script>setTimeout(() => { const b = document.createElement('button'); b.textContent = 'Late button'; b.onclick = () => { document.title = 'Late clicked'; }; document.body.appendChild(b); }, 1500);</script>
</body></html>`;

// 80 rows of a button, far taller than the window; a help button fixed to the window's corner whose
// box in the page (a short box at the top) scrolls out of view while the button stays in sight
const LONG = `<!doctype html><html><head><meta charset="utf-8"><title>Long page</title></head><body>
<div style="height:40px"><div style="position:fixed; right:20px; bottom:20px"><button onclick="document.title='Help asked'">Fixed help</button></div></div>
${Array.from({ length: 80 }, (_, i) => `<p style="margin:0; height:36px"><button onclick="document.title='Row ${i} pressed'">Row ${i}</button></p>`).join('\n')}
</body></html>`;

describe.skipIf(!desk)('Chromium through the MCP server (stripped environment, fresh profile)', () => {
  let site: Site;
  let home = '';
  let server: Server;
  let person: ChildProcess | null = null;
  const windows: string[] = [];

  const titleOf = async (w: string) => (await swayNodes()).find((n) => String(n.id) === w)?.name ?? '';
  const ok = (r: { isError: boolean; text: string[]; data?: Record<string, unknown> }) => {
    expect(r.isError, r.text.join('\n')).toBe(false);
    expect(r.data?.timed_out, r.text.join('\n')).toBeUndefined();
  };

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
    site = await startSite({ '/form.html': ORDER_FORM, '/form-slow.html': { body: ORDER_FORM, delayMs: 2500 }, '/late.html': LATE, '/links.html': LINKS, '/slow.html': SLOW, '/slow.svg': { body: PICTURE, delayMs: 2500, type: 'image/svg+xml' }, '/never.html': { body: '<!doctype html><html><head><title>Never</title></head><body><p>Half', never: true }, '/thanks.html': '<!doctype html><title>Terms</title>', '/long.html': LONG });
    home = freshHome();
    server = await startServerAsPerson(desk!, home);
  }, 60000);

  afterAll(async () => {
    for (const x of windows) await server?.call('wm', { action: 'close_window', target: x }).catch(() => undefined);
    await stopBrowser(pid, 'the launched Chromium');
    await stopPerson();
    await server?.close().catch(() => undefined);
    await site?.close();
    if (home) rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
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
  // One Chromium launched through the server serves the tasks below, in order.
  let w = '';
  let pid = 0;
  const go = async (path: string) => {
    ok(await server.call('keyboard', { action: 'key', keys: 'ctrl+l', window: w }));
    ok(await server.call('keyboard', { action: 'type', text: site.url(path) }));
    ok(await server.call('keyboard', { action: 'key', keys: 'Return' }));
  };

  it('launched plainly (chromium URL): launch waits for the slow page; the form is filled by labels, bad input refused, and submitted (judged by the POST)', async () => {
    const l = await server.call('launch', { command: `chromium ${site.url('/form-slow.html')}`, wait_s: 30 });
    const answered = Date.now();
    ok(l);
    w = String(l.data.address);
    pid = Number(l.data.pid);
    windows.push(w);
    // the server sent the page 2.5 s after Chromium asked: the launch answered after that
    const get = site.gets.find((g) => g.path === '/form-slow.html');
    expect(get?.sentAt, 'the slow form was sent').toBeDefined();
    expect(answered).toBeGreaterThanOrEqual(get!.sentAt!);
    expect(await titleOf(w)).toMatch(/^Order form/);
    // read right after the launch, no wait: the whole form is there
    const u = await server.call('ui', { window: w });
    ok(u);
    for (const n of ['Full name', 'Email', 'Size', 'Red', 'Blue', 'Gift wrap', 'Place order']) expect(u.text.join('\n'), n).toContain(`"${n}"`);

    const fills = [
      { action: 'set_text', name: 'Full name', text: 'Katherine Johnson' },
      { action: 'set_text', name: 'Email', text: 'kj@example.org' },
      { action: 'select', name: 'Size', option: 'Large' },
      { action: 'check', name: 'Blue' },
      { action: 'check', name: 'Gift wrap' },
    ];
    for (const c of fills) {
      const r = await server.call('act', { ...c, window: w });
      ok(r);
      expect(r.data.verified, r.text.join('\n')).toBe(true);
    }
    // bad input: an option that does not exist lists the options; a button is no text field
    const posted = site.posts.length;
    const wrong = await server.call('act', { action: 'select', name: 'Size', option: 'Huge', window: w });
    expect(wrong.isError).toBe(true);
    expect(wrong.text.join('\n'), 'the options are listed').toMatch(/no option 'Huge'.*"Small", "Medium", "Large"/s);
    const notEditable = await server.call('act', { action: 'set_text', name: 'Place order', role: 'push button', text: 'x', window: w });
    expect(notEditable.isError).toBe(true);
    expect(notEditable.text.join('\n')).toMatch(/push button 'Place order' is not editable/);
    expect(site.posts.length, 'nothing was submitted by the refused call').toBe(posted);

    ok(await server.call('click_ui', { name: 'Place order', window: w, confirm: true }));
    const post = await site.nextPost('/order');
    expect(Object.fromEntries(post.body)).toMatchObject({ name: 'Katherine Johnson', email: 'kj@example.org', size: 'Large', color: 'blue', gift: 'yes' });
    await waitFor(async () => (await titleOf(w)).startsWith('Thank you'), 15000, 'the order page answered');
  }, 180000);

  it('a page menu opens as a popup and its item is clicked; a link is followed by its name (judged by the GET) and its slow page waited out by wait_for idle', async () => {
    await go('/links.html');
    ok(await server.call('wait_for', { event: 'element', name: 'Choose a colour', window: w, timeout_s: 20 }));
    const open = await server.call('click_ui', { name: 'Choose a colour', window: w });
    ok(open);
    ok(await server.call('click_ui', { name: 'Red', role: 'menu item', window: w }));
    await waitFor(async () => (await titleOf(w)).startsWith('Picked Red'), 15000, 'the menu item ran its action (the page retitled itself)');

    const before = site.gets.length;
    ok(await server.call('click_ui', { name: 'Slow page', role: 'link', window: w }));
    await waitFor(async () => site.gets.slice(before).some((g) => g.path === '/slow.html'), 15000, 'Chromium asked for the linked page');
    // the page shows while its picture is still on its way
    await waitFor(async () => (await titleOf(w)).startsWith('Slow page'), 15000, 'the slow page shows');
    const idle = await server.call('wait_for', { event: 'idle', window: w, timeout_s: 20 });
    const ended = Date.now();
    ok(idle);
    const get = site.gets.slice(before).find((g) => g.path === '/slow.svg')!;
    expect(get?.sentAt, `the slow picture was sent before the wait ended: ${idle.text.join(' ')}`).toBeDefined();
    expect(ended).toBeGreaterThanOrEqual(get.sentAt!);
    const u = await server.call('ui', { window: w });
    ok(u);
    expect(u.text.join('\n')).toContain('"Loaded button"');
    expect(u.text.join('\n')).not.toContain('Choose a colour');
  }, 120000);

  it('wait_for element finds a button the page adds after its load; a page that never finishes ends wait_for idle with a timeout naming the time waited', async () => {
    await go('/late.html');
    const found = await server.call('wait_for', { event: 'element', name: 'Late button', window: w, timeout_s: 20 });
    ok(found);
    ok(await server.call('click_ui', { name: 'Late button', window: w }));
    await waitFor(async () => (await titleOf(w)).startsWith('Late clicked'), 15000, 'the late button was clicked');

    await go('/never.html');
    await waitFor(async () => site.gets.some((g) => g.path === '/never.html'), 15000, 'Chromium asked for the page that never ends');
    const t0 = Date.now();
    const r = await server.call('wait_for', { event: 'idle', window: w, timeout_s: 3 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(3000);
    expect(r.data.timed_out, r.text.join('\n')).toBe(true);
    expect(r.text.join('\n')).toMatch(/still loading \(busy\) after \d+(\.\d+)? s/);
    // stop the load, so the window closes cleanly
    ok(await server.call('keyboard', { action: 'key', keys: 'Escape', window: w }));
  }, 120000);

  it('a long page: ui lists what shows of it (libatspi: the showing buttons), scrolled with End and back by act scroll_to; a fixed button whose box scrolled away stays listed and clicks', async () => {
    await go('/long.html');
    await waitFor(async () => (await titleOf(w)).startsWith('Long page'), 15000, 'the long page shows');
    ok(await server.call('wait_for', { event: 'element', name: 'Row 0', window: w, timeout_s: 20 }));
    /** The page's buttons ui lists, and those libatspi reads as showing, right after. */
    const compare = async () => {
      const u = await server.call('ui', { window: w });
      ok(u);
      const listed = [...u.text.join('\n').matchAll(/"((?:Row \d+)|Fixed help)"/g)].map((m) => m[1]).sort();
      const showing = (await atspi(pid)).filter((n) => n.role === 'push button' && /^(Row \d+|Fixed help)$/.test(n.name) && n.states.includes('showing')).map((n) => n.name).sort();
      return { listed, showing };
    };
    const top = await compare();
    expect(top.listed, JSON.stringify(top)).toContain('Row 0');
    expect(top.listed).not.toContain('Row 79');
    expect(top.listed.length, 'only the rows in view').toBeLessThan(40);
    expect(top.listed).toEqual(top.showing);

    ok(await server.call('keyboard', { action: 'key', keys: 'End', window: w }));
    let bottom = await compare();
    await waitFor(async () => (bottom = await compare()).listed.includes('Row 79'), 10000, 'the last row is listed after End');
    expect(bottom.listed).not.toContain('Row 0');
    // the fixed button's page box (the short box at the top) is out of view, the button is not
    expect(bottom.listed, JSON.stringify(bottom)).toContain('Fixed help');
    expect(bottom.listed).toEqual(bottom.showing);
    ok(await server.call('click_ui', { name: 'Fixed help', window: w }));
    await waitFor(async () => (await titleOf(w)).startsWith('Help asked'), 15000, 'the fixed button was clicked');

    // a row scrolled out of view is found and brought into view
    ok(await server.call('act', { action: 'scroll_to', name: 'Row 2', window: w }));
    ok(await server.call('click_ui', { name: 'Row 2', window: w }));
    await waitFor(async () => (await titleOf(w)).startsWith('Row 2 pressed'), 15000, 'the row scrolled back into view was clicked');
  }, 120000);

  it('on the scale-1.5 output: ui points fall on the buttons libatspi places there, and click_ui by name clicks the named button (the page title)', async () => {
    // workspace 2 lives on HEADLESS-2 (1920x1080 at scale 1.5): Chromium gives a page's boxes in its
    // device pixels there (its own controls' in logical ones), and a click through the real pointer
    // lands only if they are scaled back
    ok(await server.call('wm', { action: 'move_window', target: w, workspace: '2' }));
    ok(await server.call('wm', { action: 'workspace', workspace: '2' }));
    await waitFor(async () => (await swayNodes()).find((n) => String(n.id) === w)?.workspace === '2', 10000, 'the window on workspace 2');
    try {
      ok(await server.call('act', { action: 'scroll_to', name: 'Row 5', window: w }));
      const node = (await swayNodes()).find((n) => String(n.id) === w)!;
      const r = node.rect;
      const u = await server.call('ui', { window: w, name: 'Row' });
      ok(u);
      const els = (u.data.elements ?? []) as Array<{ name: string; x: number; y: number }>;
      const five = els.find((e) => e.name === 'Row 5');
      const six = els.find((e) => e.name === 'Row 6');
      expect(five && six, JSON.stringify(els.slice(0, 8))).toBeTruthy();
      // inside the window sway reports, and one row's pitch (36 CSS px, logical at zoom 1) apart
      for (const e of [five!, six!]) {
        expect(e.x).toBeGreaterThanOrEqual(r.x);
        expect(e.x).toBeLessThan(r.x + r.width);
        expect(e.y).toBeGreaterThanOrEqual(r.y);
        expect(e.y).toBeLessThan(r.y + r.height);
      }
      expect(Math.abs(six!.y - five!.y - 36), `rows at ${five!.y} and ${six!.y}`).toBeLessThanOrEqual(1);
      for (const name of ['Row 5', 'Row 6']) {
        ok(await server.call('click_ui', { name, window: w }));
        await waitFor(async () => (await titleOf(w)).startsWith(`${name} pressed`), 15000, `${name} was clicked on the scaled output`);
      }
    } finally {
      await server.call('wm', { action: 'move_window', target: w, workspace: '1' }).catch(() => undefined);
      await server.call('wm', { action: 'workspace', workspace: '1' }).catch(() => undefined);
    }
  }, 120000);
});
