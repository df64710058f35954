// Firefox ESR on the test desktop, driven as an agent drives it: launched plainly (`firefox-esr
// URL...`, a fresh profile, no switches) by the built server started with only HOME, PATH and
// XDG_RUNTIME_DIR, against pages of a local web server. Judged by what the web server received
// (the form POST), the window title sway reports, and libatspi's tree for what ui lists. One
// Firefox serves the file's tasks in order.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atspi } from '../support/atspi.js';
import { requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import type { Server } from '../support/server.js';
import { ORDER_FORM, freshHome, startServerAsPerson, startSite, type Site } from '../support/browser.js';

const desk = await requireDesktop({ reset: true });

const ARTICLE_PARAS = Array.from({ length: 60 }, (_, i) => `Paragraph ${i + 1} of the article says something long enough to read: ${'lorem ipsum dolor sit amet '.repeat(4).trim()} (end ${i + 1}).`);
const ARTICLE = `<!doctype html><html><head><meta charset="utf-8"><title>Long article</title></head><body>
<h1>A long article</h1>
${ARTICLE_PARAS.map((p, i) => (i % 20 === 0 ? `<h2>Part ${i / 20 + 1}</h2>\n<p>${p}</p>` : `<p>${p}</p>`)).join('\n')}
<ul><li>First point</li><li>Second point</li></ul>
<table><tr><th>Item</th><th>Price</th></tr><tr><td>Tea</td><td>3</td></tr><tr><td>Cake</td><td>5</td></tr></table>
<p><button>Article button</button></p>
</body></html>`;
const THIRD = '<!doctype html><html><head><meta charset="utf-8"><title>Third tab</title></head><body><h1>Third</h1><button>Third tab button</button><input aria-label="Third tab field"></body></html>';
// a page menu: a button that opens a popup of menu items; each item retitles the page
const MENU = `<!doctype html><html><head><meta charset="utf-8"><title>Pick a colour</title></head><body>
<button id="b" aria-haspopup="true" aria-expanded="false" onclick="const m=document.getElementById('m'); m.hidden=!m.hidden; this.setAttribute('aria-expanded', String(!m.hidden));">Choose a colour</button>
<div id="m" role="menu" hidden><div role="menuitem" tabindex="-1" onclick="document.title='Picked Green'">Green</div><div role="menuitem" tabindex="-1" onclick="document.title='Picked Red'">Red</div></div>
</body></html>`;
const TERMS = '<!doctype html><html><head><meta charset="utf-8"><title>Delivery terms</title></head><body><h1>Delivery terms</h1><p>We deliver on Tuesdays.</p></body></html>';

describe.skipIf(!desk)('Firefox ESR through the MCP server (stripped environment, fresh profile)', () => {
  let site: Site;
  let home = '';
  let server: Server;
  let window = '';
  let pid = 0;

  const title = async () => (await swayNodes()).find((n) => String(n.id) === window)?.name ?? '';
  const ok = (r: { isError: boolean; text: string[] }) => expect(r.isError, r.text.join('\n')).toBe(false);

  beforeAll(async () => {
    site = await startSite({ '/form.html': ORDER_FORM, '/article.html': ARTICLE, '/third.html': THIRD, '/thanks.html': TERMS, '/menu.html': MENU });
    home = freshHome();
    server = await startServerAsPerson(desk!, home);
    const l = await server.call('launch', { command: `firefox-esr ${site.url('/form.html')} ${site.url('/article.html')} ${site.url('/third.html')}`, workspace: '1', wait_s: 30 });
    ok(l);
    window = String(l.data.address);
    pid = Number(l.data.pid);
    await waitFor(async () => (await title()).startsWith('Order form'), 30000, 'Firefox shows the order form');
  }, 120000);

  afterAll(async () => {
    if (window) await server?.call('wm', { action: 'close_window', target: window }).catch(() => undefined);
    if (pid) {
      try {
        process.kill(pid);
      } catch {
        /* closed */
      }
    }
    await server?.close().catch(() => undefined);
    await site?.close();
    if (home) rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
  });

  it('ui of a window with three tabs lists the showing page only, and the tabs by title; the hidden menu bar is not listed, no shown control is left out', async () => {
    await server.call('wait_for', { event: 'element', name: 'Full name', window, timeout_s: 20 });
    const u = await server.call('ui', { window });
    ok(u);
    const text = u.text.join('\n');
    const docs = [...text.matchAll(/document web "([^"]*)"/g)].map((m) => m[1]);
    expect(docs, text).toEqual(['Order form']);
    const tabs = [...text.matchAll(/\btab "([^"]*)"/g)].map((m) => m[1]);
    expect(tabs, text).toEqual(['Order form', 'Long article', 'Third tab']);
    // the background tabs' pages are not listed
    for (const n of ['Article button', 'Third tab button', 'Third tab field']) expect(text).not.toContain(n);
    for (const n of ['Full name', 'Email', 'Quantity', 'Password', 'Comment', 'Size', 'Red', 'Blue', 'Gift wrap', 'Place order']) expect(text, n).toContain(`"${n}"`);
    // browser noise: the hidden menu bar's menus (libatspi: visible and enabled, not showing, boxed over the
    // tab strip) are not listed; every control libatspi reads as showing and enabled is
    const all = await atspi(pid);
    const hiddenMenus = all.filter((n) => n.role === 'menu' && /^(File|Edit|View|History|Bookmarks|Tools|Help)$/.test(n.name) && !n.states.includes('showing'));
    expect(hiddenMenus.length, 'the menu bar is hidden').toBeGreaterThan(0);
    for (const m of hiddenMenus) expect(text).not.toMatch(new RegExp(`"${m.name}"`));
    const CONTROLS = /^(push button|toggle button|entry|password text|spin button|combo box|check box|radio button|link|page tab)$/;
    const shown = all.filter((n) => CONTROLS.test(n.role) && n.name.trim() && ['showing', 'visible', 'enabled'].every((st) => n.states.includes(st)) && n.box && n.box[2] > 0 && n.box[3] > 0 && n.box[0] >= 0 && n.box[1] >= 0);
    expect(shown.length).toBeGreaterThan(10);
    for (const n of shown) expect(text, `${n.role} '${n.name}' (libatspi: showing, enabled)`).toContain(`"${n.name.trim()}"`);
  }, 60000);

  it('follows a link by its name (the page title sway reports) and comes back', async () => {
    ok(await server.call('click_ui', { name: 'Read the delivery terms', window }));
    await waitFor(async () => (await title()).startsWith('Delivery terms'), 15000, 'the link opened the terms page');
    ok(await server.call('keyboard', { action: 'key', keys: 'alt+Left', window }));
    await waitFor(async () => (await title()).startsWith('Order form'), 15000, 'back on the order form');
  }, 60000);

  it('fills every kind of form control by its label and submits (judged by the POST body)', async () => {
    await server.call('wait_for', { event: 'element', name: 'Full name', window, timeout_s: 20 });
    const calls: Array<Record<string, unknown>> = [
      { action: 'set_text', name: 'Full name', text: 'Ada Lovelace' },
      { action: 'set_text', name: 'Email', text: 'ada@example.org' },
      { action: 'set_text', name: 'Quantity', text: '3' },
      { action: 'set_text', name: 'Comment', text: 'Ring twice, please' },
      { action: 'select', name: 'Size', option: 'Large' },
      { action: 'check', name: 'Blue' },
      { action: 'check', name: 'Gift wrap' },
      { action: 'set_text', name: 'Notes', text: 'Leave at the door' },
    ];
    for (const c of calls) {
      const r = await server.call('act', { ...c, window });
      ok(r);
      expect(r.data.verified, r.text.join('\n')).toBe(true);
    }
    const wrong = await server.call('act', { action: 'select', name: 'Size', option: 'Huge', window });
    expect(wrong.isError).toBe(true);
    expect(wrong.text.join('\n'), 'an option that does not exist lists the options').toMatch(/Small.*Medium.*Large/s);
    ok(await server.call('click_ui', { name: 'Place order', window, confirm: true }));
    const post = await site.nextPost('/order');
    expect(Object.fromEntries(post.body)).toMatchObject({
      name: 'Ada Lovelace', email: 'ada@example.org', qty: '3', comment: 'Ring twice, please', size: 'Large', color: 'blue', gift: 'yes', notes: 'Leave at the door',
    });
    await waitFor(async () => (await title()).startsWith('Thank you'), 15000, 'the order page answered');
  }, 120000);

  it('a page menu opens as a popup and its item is clicked (the page title sway reports)', async () => {
    ok(await server.call('keyboard', { action: 'key', keys: 'ctrl+l', window }));
    ok(await server.call('keyboard', { action: 'type', text: site.url('/menu.html') }));
    ok(await server.call('keyboard', { action: 'key', keys: 'Return' }));
    await waitFor(async () => (await title()).startsWith('Pick a colour'), 15000, 'the menu page shows');
    ok(await server.call('wait_for', { event: 'element', name: 'Choose a colour', window, timeout_s: 20 }));
    // closed: its items are not listed
    const closed = await server.call('ui', { window });
    ok(closed);
    expect(closed.text.join('\n')).not.toMatch(/"Green"|"Red"/);
    ok(await server.call('click_ui', { name: 'Choose a colour', window }));
    const open = await server.call('wait_for', { event: 'element', name: 'Red', role: 'menu item', window, timeout_s: 10 });
    ok(open);
    ok(await server.call('click_ui', { name: 'Red', role: 'menu item', window }));
    await waitFor(async () => (await title()).startsWith('Picked Red'), 15000, 'the menu item ran its action (the page retitled itself)');
    ok(await server.call('keyboard', { action: 'key', keys: 'alt+Left', window }));
  }, 60000);

  it('reads a long article in reading order, page by page, without the browser chrome', async () => {
    ok(await server.call('click_ui', { name: 'Long article', role: 'page tab', window }));
    await waitFor(async () => (await title()).startsWith('Long article'), 15000, 'the article tab shows');
    let offset = 0;
    let text = '';
    let calls = 0;
    for (;;) {
      const r = await server.call('get_text', { window, limit: 3000, offset });
      ok(r);
      calls++;
      text += String(r.data.text);
      if (r.data.next_offset === undefined) break;
      offset = Number(r.data.next_offset);
      expect(calls).toBeLessThan(20);
    }
    expect(calls, 'the article took several pages').toBeGreaterThan(1);
    expect(text).not.toContain('Search or enter address');
    expect(text).not.toContain('Third tab button');
    let at = text.indexOf('A long article');
    expect(at).toBeGreaterThanOrEqual(0);
    for (const [i, p] of ARTICLE_PARAS.entries()) {
      const next = text.indexOf(p, at);
      expect(next, `paragraph ${i + 1} in order`).toBeGreaterThan(at);
      at = next;
    }
    expect(text).toMatch(/First point[\s\S]*Second point/);
    expect(text).toMatch(/Item\s+Price\s*\n\s*Tea\s+3\s*\n\s*Cake\s+5/);
  }, 120000);

  it('on the scale-1.5 output: a page button and the menu item it opens are clicked through the real pointer (the page title)', async () => {
    // workspace 2 lives on HEADLESS-2 (1920x1080 at scale 1.5): a click lands only if the page's boxes are in logical pixels there
    ok(await server.call('wm', { action: 'move_window', target: window, workspace: '2' }));
    ok(await server.call('wm', { action: 'workspace', workspace: '2' }));
    await waitFor(async () => (await swayNodes()).find((n) => String(n.id) === window)?.workspace === '2', 10000, 'the window on workspace 2');
    try {
      ok(await server.call('keyboard', { action: 'key', keys: 'ctrl+l', window }));
      ok(await server.call('keyboard', { action: 'type', text: site.url('/menu.html') }));
      ok(await server.call('keyboard', { action: 'key', keys: 'Return' }));
      await waitFor(async () => (await title()).startsWith('Pick a colour'), 15000, 'the menu page shows');
      ok(await server.call('wait_for', { event: 'element', name: 'Choose a colour', window, timeout_s: 20 }));
      ok(await server.call('click_ui', { name: 'Choose a colour', window }));
      ok(await server.call('wait_for', { event: 'element', name: 'Green', role: 'menu item', window, timeout_s: 10 }));
      ok(await server.call('click_ui', { name: 'Green', role: 'menu item', window }));
      await waitFor(async () => (await title()).startsWith('Picked Green'), 15000, 'the menu item clicked on the scaled output');
    } finally {
      await server.call('wm', { action: 'move_window', target: window, workspace: '1' }).catch(() => undefined);
      await server.call('wm', { action: 'workspace', workspace: '1' }).catch(() => undefined);
    }
  }, 90000);
});
