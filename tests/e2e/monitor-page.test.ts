// The monitor page in a real headless Chromium (Debian's `chromium`, driven
// by playwright-core), served by the MCP server (monitor.serve) on the real
// headless sway desktop: the page shows the desktop (its pixels compared
// with grim's own capture), a click on Stop ends a running plan as
// `interrupted` and no later input reaches the app (read back from zenity's
// own output), the feed shows the refused call as the journal file holds it;
// requests without the token, with a foreign Host, from another origin and
// writes by GET are refused (HTTP status asserted, and the shared state read
// from its file). `hypruse monitor` serves the same page on its own.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killFixture, requireDesktop, swaymsg, waitFor } from '../support/desktop.js';
import { BIN, startServer, type Server } from '../support/server.js';
import { interruptiblePlan, launchFocusedEntry, zenityAnswer } from '../support/tools.js';

const desk = await requireDesktop();

/** The little of the browser's DOM these tests read (the project's types carry no DOM library). */
interface Img { naturalWidth: number; naturalHeight: number; dataset: Record<string, string | undefined> }
interface Canvas { width: number; height: number; getContext(k: '2d'): { drawImage(i: Img, x: number, y: number): void }; toDataURL(t: string): string }
interface BrowserGlobals {
  document: { querySelector(s: string): (Img & { getAttribute(n: string): string | null }) | null; createElement(t: 'canvas'): Canvas };
  done: Promise<string[]>;
}
const CHROMIUM = ['/usr/bin/chromium', '/usr/lib/chromium/chromium'].find((p) => existsSync(p));
if (desk && !CHROMIUM && process.env.CI) throw new Error('CI requires Debian\'s chromium for the monitor page test (.ci/run installs it)');

const dir = mkdtempSync(join(tmpdir(), 'hypruse-monitor-e2e-'));
const JOURNAL = join(dir, 'journal.ndjson');
const CONFIG = join(dir, 'hypruse.json');
writeFileSync(CONFIG, JSON.stringify({ a11y: { timeoutMs: 10000 }, journal: { path: JOURNAL }, monitor: { serve: true, fps: 4 } }));

const controlFile = () => join(desk!.env.XDG_RUNTIME_DIR, 'hypruse', 'control.json');
const controlState = (): string => (existsSync(controlFile()) ? String(JSON.parse(readFileSync(controlFile(), 'utf8')).state) : 'running');
const records = (): Array<Record<string, any>> =>
  existsSync(JOURNAL) ? readFileSync(JOURNAL, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];

/** One raw HTTP request (Host and Origin as given: fetch would not let a test forge Host). */
function http(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: opts.method ?? 'GET', headers: opts.headers, timeout: 10000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** grim's own capture of an output, decoded by sharp to raw RGB: the independent oracle. */
function grimRgb(output: string): Promise<{ data: Buffer; width: number; height: number }> {
  return new Promise((resolve, reject) => {
    execFile('grim', ['-o', output, '-'], { env: { ...process.env, ...desk!.env }, encoding: 'buffer', maxBuffer: 64 << 20, timeout: 10000 }, (err, out, stderr) => {
      if (err) return reject(new Error(`grim: ${String(stderr) || err.message}`));
      sharp(out).removeAlpha().raw().toBuffer({ resolveWithObject: true }).then(({ data, info }) => resolve({ data, width: info.width, height: info.height }), reject);
    });
  });
}

/** The image the page shows for an output, read back from the browser (a canvas of the <img> at its natural size). */
async function pageRgb(page: Page, output: string): Promise<{ data: Buffer; width: number; height: number; version: number }> {
  const shot = await page.evaluate((name) => {
    const img = (globalThis as unknown as BrowserGlobals).document.querySelector(`img[data-output="${name}"]`)!;
    const c = (globalThis as unknown as BrowserGlobals).document.createElement('canvas');
    c.width = img.naturalWidth;
    c.height = img.naturalHeight;
    c.getContext('2d')!.drawImage(img, 0, 0);
    return { png: c.toDataURL('image/png'), version: Number(img.dataset.version) };
  }, output);
  const { data, info } = await sharp(Buffer.from(shot.png.split(',')[1], 'base64')).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, version: shot.version };
}

/** Share of pixels that differ by more than a few levels in any channel. */
function differing(a: { data: Buffer }, b: { data: Buffer }): number {
  let bad = 0;
  for (let i = 0; i < a.data.length; i += 3) {
    if (Math.abs(a.data[i] - b.data[i]) > 4 || Math.abs(a.data[i + 1] - b.data[i + 1]) > 4 || Math.abs(a.data[i + 2] - b.data[i + 2]) > 4) bad++;
  }
  return bad / (a.data.length / 3);
}


describe.skipIf(!desk || !CHROMIUM)('the monitor page in headless Chromium', () => {
  let server: Server;
  let browser: Browser;
  let page: Page;
  let url: string;
  let stderr = '';
  const apps: number[] = [];

  beforeAll(async () => {
    // on a fresh desktop no hypruse process has made its state directory yet
    mkdirSync(dirname(controlFile()), { recursive: true });
    writeFileSync(controlFile(), JSON.stringify({ v: 1, state: 'running', by: 'test', at: Date.now() }));
    server = await startServer(desk!.env, { HYPRUSE_CONFIG: CONFIG, HYPRUSE_TAKEOVER_MS: '0' });
    server.transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    url = (await waitFor(() => /monitor page: (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]+\/)/.exec(stderr)?.[1], 20000, 'the monitor address on stderr'))!;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    page = await browser.newPage();
    await page.goto(url);
  });

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await server?.call('resume', {}).catch(() => undefined);
    await server?.close();
    for (const pid of apps) await killFixture(pid).catch(() => undefined);
    if (controlState() !== 'running') writeFileSync(controlFile(), JSON.stringify({ v: 1, state: 'running', by: 'test', at: Date.now() }));
  });

  it('prints the address once, with a token, on 127.0.0.1 only', () => {
    expect(stderr.match(/monitor page: /g)).toHaveLength(1);
    expect(new URL(url).pathname.slice(1, -1)).toMatch(/^[A-Za-z0-9_-]{40,}$/);
  });

  it('shows the live desktop: the page\'s image of each output is grim\'s capture of it', async () => {
    await waitFor(() => page.evaluate(() => (globalThis as unknown as BrowserGlobals).document.querySelector('#state')?.getAttribute('data-state') === 'running'), 10000, 'the page\'s state');
    for (const output of ['HEADLESS-1', 'HEADLESS-2']) {
      // the desktop holds still here; a frame that raced a redraw is followed by a newer one, so compare until they agree
      const last = await waitFor(async () => {
        const shown = await page.evaluate((n) => Number((globalThis as unknown as BrowserGlobals).document.querySelector(`img[data-output="${n}"]`)?.dataset.version ?? 0), output);
        if (!shown) return null;
        const [seen, truth] = await Promise.all([pageRgb(page, output), grimRgb(output)]);
        if (seen.width !== truth.width || seen.height !== truth.height) throw new Error(`page ${seen.width}x${seen.height}, grim ${truth.width}x${truth.height}`);
        const d = differing(seen, truth);
        if (d > 0.001) throw new Error(`${(d * 100).toFixed(2)}% of the pixels differ`);
        return { ...seen, d };
      }, 20000, `the page's image of ${output} to match grim`, 250);
      expect(last.width).toBe(output === 'HEADLESS-1' ? 1280 : 1920);
    }
    // and it is live: a new window shows up in a newer frame
    const before = await page.evaluate(() => Number((globalThis as unknown as BrowserGlobals).document.querySelector('img[data-output="HEADLESS-1"]')!.dataset.version));
    const app = await launchFocusedEntry();
    apps.push(app.pid);
    await waitFor(async () => {
      const seen = await pageRgb(page, 'HEADLESS-1');
      return seen.version > before && differing(seen, await grimRgb('HEADLESS-1')) <= 0.001;
    }, 20000, 'a newer frame showing the new window', 250);
  });

  it('Stop on the page ends a running plan as interrupted, later input is refused, and nothing more reaches the app', async () => {
    const app = await launchFocusedEntry();
    apps.push(app.pid);
    const since = records().length;
    const plan = server.call('sequence', interruptiblePlan(app.address));
    await waitFor(() => records().slice(since).some((r) => r.tool === 'keyboard' && r.parent !== undefined && r.outcome), 20000, 'the plan\'s first step in the journal');
    await page.click('#stop');
    await waitFor(() => controlState() === 'stopped', 5000, 'the stop in the shared control file');
    await waitFor(() => page.evaluate(() => (globalThis as unknown as BrowserGlobals).document.querySelector('#state')?.getAttribute('data-state') === 'stopped'), 5000, 'the page to show stopped');
    await swaymsg('workspace', 'number', '3');
    const r = await plan;
    expect(r.isError).toBe(true);
    expect(r.text[0]).toMatch(/^refused: interrupted: the sequence stopped after 2\/3 steps/);
    expect(r.text.join('\n')).toMatch(/stopped by the person \(the monitor page\)/);
    await swaymsg('workspace', 'number', '1');

    const later = await server.call('keyboard', { action: 'type', text: 'later', window: app.address });
    expect(later.text[0]).toMatch(/^refused: stopped by the person: the monitor page stopped hypruse/);

    // the feed shows the refusal as the journal holds it (typed text as its digest, never the text)
    const refused = await waitFor(() => records().find((x) => x.tool === 'keyboard' && x.code === 'refused.stopped' && x.parent === undefined), 5000, 'the refusal in the journal');
    const li = page.locator(`#feed li[data-seq="${refused.seq}"]`);
    await li.waitFor({ timeout: 10000 });
    expect(await li.getAttribute('data-outcome')).toBe('refused');
    expect(await li.getAttribute('data-code')).toBe('refused.stopped');
    const text = (await li.textContent()) ?? '';
    expect(text).toContain(JSON.stringify(refused.args));
    expect(text).toContain(refused.error);
    expect(text).not.toContain('later');

    // Resume on the page lifts it (the same shared state); the field holds only what was typed before the stop
    await page.click('#resume');
    await waitFor(() => controlState() === 'running', 5000, 'the resume in the shared control file');
    const ret = await server.call('keyboard', { action: 'key', keys: 'Return', window: app.address });
    expect(ret.isError, ret.text.join('\n')).toBe(false);
    expect(await zenityAnswer(app)).toBe('one\n');
  });

  it('Pause on the page refuses acting as paused until Resume', async () => {
    await page.click('#pause');
    await waitFor(() => controlState() === 'paused', 5000, 'the pause in the shared control file');
    const r = await server.call('wm', { action: 'workspace', workspace: '2' });
    expect(r.text[0]).toMatch(/^refused: paused: paused by the person \(the monitor page\)/);
    expect((await swaymsg<Array<{ name: string; focused: boolean }>>('-t', 'get_workspaces')).find((w) => w.focused)?.name).toBe('1');
    await page.click('#resume');
    await waitFor(() => controlState() === 'running', 5000, 'the resume in the shared control file');
  });

  it('refuses requests without the token, with a foreign Host, from another origin, and writes by GET', async () => {
    const u = new URL(url);
    const origin = `${u.protocol}//${u.host}`;
    const token = u.pathname.split('/')[1];
    const host = { Host: u.host };
    expect((await http(`${origin}/`, { headers: host })).status).toBe(401);
    expect((await http(`${origin}/state`, { headers: host })).status).toBe(401);
    expect((await http(`${origin}/${token.slice(0, -1)}x/state`, { headers: host })).status).toBe(401);
    expect((await http(`${origin}/control`, { method: 'POST', headers: { ...host, 'content-type': 'application/json' }, body: '{"action":"stop"}' })).status).toBe(401);
    expect((await http(`${url}state`, { headers: host })).status).toBe(200);
    // DNS rebinding: the right token under a foreign name
    const rebound = await http(`${url}state`, { headers: { Host: `evil.example:${u.port}` } });
    expect(rebound.status).toBe(403);
    expect(rebound.body).toMatch(/foreign Host/);
    // another origin, token and all
    const cross = await http(`${url}control`, { method: 'POST', headers: { ...host, Origin: 'http://evil.example', 'content-type': 'application/json' }, body: '{"action":"stop"}' });
    expect(cross.status).toBe(403);
    expect(cross.body).toMatch(/foreign Origin/);
    // writes by GET
    for (const w of ['control', 'stop', 'pause']) {
      const g = await http(`${url}${w}?action=stop`, { headers: host });
      expect(g.status, w).toBe(405);
      expect(g.headers.allow).toBe('POST');
    }
    expect((await http(`${url}control`, { method: 'POST', headers: { ...host, 'content-type': 'text/plain' }, body: '{"action":"stop"}' })).status).toBe(415);
    expect((await http(`${url}control`, { method: 'POST', headers: { ...host, 'content-type': 'application/json' }, body: '{"action":"type","text":"x"}' })).status).toBe(400);
    expect(controlState()).toBe('running');

    // a page of another origin, in the same browser, tries to stop hypruse and to read a frame
    const evil: HttpServer = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<!doctype html><script>
        window.done = Promise.all([
          fetch(${JSON.stringify(`${url}control`)}, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{"action":"stop"}' }).then(() => 'sent', (e) => 'blocked: ' + e.message),
          fetch(${JSON.stringify(`${url}state`)}).then((r) => 'read ' + r.status, (e) => 'blocked: ' + e.message),
          new Promise((r) => { const i = new Image(); i.onload = () => r('image loaded'); i.onerror = () => r('image refused'); i.src = ${JSON.stringify(`${url}frame/HEADLESS-1`)}; }),
        ]);
      </script>`);
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', () => r()));
    try {
      const other = await browser.newPage();
      await other.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      const [post, read, image] = await other.evaluate(() => (globalThis as unknown as BrowserGlobals).done);
      // the POST goes out (no-cors: the page cannot see the answer; the refusal's CORP header even hides it as a network error)
      expect(post).toMatch(/^(sent|blocked: Failed to fetch)$/);
      expect(read).toMatch(/^blocked/); // no CORS grant: the state cannot be read
      expect(image).toBe('image refused');
      await other.close();
    } finally {
      evil.close();
    }
    expect(stderr).toMatch(/monitor: refused POST \(foreign Origin "http:\/\/127\.0\.0\.1:\d+"/);
    expect(controlState()).toBe('running');
  });
});

describe.skipIf(!desk)('hypruse monitor (the verb)', () => {
  it('serves the page on its own, carries its address in its beacon, Pause acts on the shared state, and SIGTERM ends it', async () => {
    const child = spawn(process.execPath, [BIN, 'monitor'], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', ...desk!.env, HYPRUSE_CONFIG: CONFIG, ...(process.env.HYPRUSE_TIME_SCALE ? { HYPRUSE_TIME_SCALE: process.env.HYPRUSE_TIME_SCALE } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      const url = (await waitFor(() => /^monitor page: (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]+\/)$/m.exec(out)?.[1], 20000, 'the monitor address on stdout'))!;
      const beacon = join(desk!.env.XDG_RUNTIME_DIR, 'hypruse', 'beacons', `${child.pid}.json`);
      const b = await waitFor(() => (existsSync(beacon) ? JSON.parse(readFileSync(beacon, 'utf8')) : null), 5000, 'the monitor\'s beacon');
      expect(b.mode.source).toBe('monitor');
      expect(b.monitor).toBe(`${new URL(url).origin}/`);
      expect(JSON.stringify(b)).not.toContain(new URL(url).pathname.split('/')[1]); // the token is never stored
      // doctor names the running page (without the token)
      const doctor = await new Promise<string>((resolve) => {
        execFile(process.execPath, [BIN, 'doctor', '--json'], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', ...desk!.env, HYPRUSE_CONFIG: CONFIG }, timeout: 30000 }, (_e, stdout) => resolve(String(stdout)));
      });
      const line = (JSON.parse(doctor).checks as Array<{ name: string; ok: boolean; detail: string }>).find((c) => c.name === 'monitor')!;
      expect(line.ok).toBe(true);
      expect(line.detail).toContain(`${new URL(url).origin}/ (hypruse monitor, pid ${child.pid})`);
      expect(line.detail).not.toContain(new URL(url).pathname.split('/')[1]);
      const host = { Host: new URL(url).host, 'content-type': 'application/json' };
      const p = await http(`${url}control`, { method: 'POST', headers: host, body: '{"action":"pause"}' });
      expect(p.status).toBe(200);
      expect(controlState()).toBe('paused');
      const s = await http(`${url}control`, { method: 'POST', headers: host, body: '{"action":"resume"}' });
      expect(JSON.parse(s.body).state).toBe('running');
      expect(controlState()).toBe('running');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(existsSync(beacon)).toBe(false);
    } finally {
      child.kill('SIGKILL');
      if (controlState() !== 'running') writeFileSync(controlFile(), JSON.stringify({ v: 1, state: 'running', by: 'test', at: Date.now() }));
    }
  });
});
