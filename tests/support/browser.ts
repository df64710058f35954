// Browsers on the test desktop as a person has them: a fresh home of the desktop user (the
// browsers refuse or misbehave as root), the built MCP server started in that home with only
// HOME, PATH and XDG_RUNTIME_DIR (as a stripped host starts it), and a local web server on
// 127.0.0.1 whose received form posts are the independent judge of what was filled in.
import { lchownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { scaledMs } from '@hypruse/core';
import { waitFor, type Desktop } from './desktop.js';
import { BIN, type Server, type TextBlock } from './server.js';

export interface Post {
  path: string;
  body: URLSearchParams;
  raw: string;
}

/** A page asked for: when the request came and when the whole page was sent (never, for a page that never ends). */
export interface Get {
  path: string;
  at: number;
  sentAt?: number;
}

export interface Site {
  url: (path: string) => string;
  posts: Post[];
  gets: Get[];
  /** Resolves with the next POST to `path` (or one already received and not yet taken). */
  nextPost(path: string, timeoutMs?: number): Promise<Post>;
  close(): Promise<void>;
}

/** A page and how it is served: `delayMs` before anything is sent; `never`: the body sent and the response never ended. */
export type Page = string | { body: string; delayMs?: number; type?: string; never?: boolean };

/** A web server on 127.0.0.1 (a free port) serving `pages` by path; every POST is recorded. */
export async function startSite(pages: Record<string, Page>): Promise<Site> {
  const posts: Post[] = [];
  const gets: Get[] = [];
  const waiters: Array<{ path: string; resolve: (p: Post) => void }> = [];
  const taken = new Set<Post>();
  const open = new Set<import('node:net').Socket>();
  const server: HttpServer = createServer((req: IncomingMessage, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const post: Post = { path, raw, body: new URLSearchParams(raw) };
        posts.push(post);
        const w = waiters.findIndex((x) => x.path === path);
        if (w >= 0) {
          taken.add(post);
          waiters.splice(w, 1)[0].resolve(post);
        }
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<!doctype html><title>Thank you</title><h1>Order received</h1>');
      });
      return;
    }
    const get: Get = { path, at: Date.now() };
    gets.push(get);
    const page = pages[path];
    if (page === undefined) {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>Not found</title>');
      return;
    }
    const p = typeof page === 'string' ? { body: page } : page;
    const send = () => {
      res.writeHead(200, { 'content-type': p.type ?? 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      if (p.never) {
        // the head arrives, the rest never does: the page stays loading
        res.write(p.body);
        return;
      }
      res.end(p.body);
      get.sentAt = Date.now();
    };
    if (p.delayMs) setTimeout(send, p.delayMs);
    else send();
  });
  server.on('connection', (s) => {
    open.add(s);
    s.on('close', () => open.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    posts,
    gets,
    nextPost(path, timeoutMs = 15000) {
      const have = posts.find((p) => p.path === path && !taken.has(p));
      if (have) {
        taken.add(have);
        return Promise.resolve(have);
      }
      return new Promise<Post>((resolve, reject) => {
        const w = { path, resolve };
        waiters.push(w);
        setTimeout(() => {
          const i = waiters.indexOf(w);
          if (i >= 0) {
            waiters.splice(i, 1);
            reject(new Error(`no POST to ${path} within ${timeoutMs} ms (received: ${posts.map((p) => p.path).join(', ') || 'none'})`));
          }
        }, scaledMs(timeoutMs));
      });
    },
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Firefox's first-run pages off (REAL-APPS.md), in a profile Firefox finds by itself in `home`. */
const FIREFOX_PREFS = [
  ['datareporting.policy.firstRunURL', '""'],
  ['datareporting.policy.dataSubmissionPolicyBypassNotification', 'true'],
  ['toolkit.telemetry.reportingpolicy.firstRun', 'false'],
  ['browser.startup.homepage_override.mstone', '"ignore"'],
  ['startup.homepage_welcome_url', '""'],
  ['browser.aboutwelcome.enabled', 'false'],
  ['browser.shell.checkDefaultBrowser', 'false'],
  ['browser.tabs.warnOnClose', 'false'],
  ['browser.sessionstore.resume_from_crash', 'false'],
];

/**
 * A fresh home holding a Firefox profile with the first-run pages off. Chromium needs nothing: a
 * fresh profile is made on its first start.
 */
export function freshHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'hypruse-browser-home-'));
  const profile = join(home, '.mozilla', 'firefox', 'hypruse.default');
  mkdirSync(profile, { recursive: true });
  // Firefox gives each installation its own default profile, keyed by a hash of its directory
  // (Debian's /usr/lib/firefox-esr: 3B6073811A6ABF12); without this entry it makes a new profile
  writeFileSync(
    join(home, '.mozilla', 'firefox', 'profiles.ini'),
    '[General]\nStartWithLastProfile=1\nVersion=2\n\n[Profile0]\nName=default\nIsRelative=1\nPath=hypruse.default\nDefault=1\n\n[Install3B6073811A6ABF12]\nDefault=hypruse.default\nLocked=1\n',
  );
  writeFileSync(join(home, '.mozilla', 'firefox', 'installs.ini'), '[3B6073811A6ABF12]\nDefault=hypruse.default\nLocked=1\n');
  writeFileSync(join(profile, 'user.js'), FIREFOX_PREFS.map(([k, v]) => `user_pref("${k}", ${v});`).join('\n') + '\n');
  return home;
}

/**
 * The person's own runtime dir: the desktop user's private folder holding the desktop's sockets
 * (Wayland, sway, the session bus). The browsers refuse to run as another user than the one the
 * runtime dir belongs to, and the servers of the other e2e files (run as root) keep their private
 * `hypruse` folder in the desktop's own runtime dir, which another user may not share.
 */
function personRuntimeDir(desk: Desktop, home: string): string {
  const dir = join(home, '.run');
  mkdirSync(dir, { mode: 0o700 });
  for (const name of readdirSync(desk.env.XDG_RUNTIME_DIR)) {
    if (/^(wayland-\d+|sway-ipc\..*\.sock|bus)$/.test(name)) symlinkSync(join(desk.env.XDG_RUNTIME_DIR, name), join(dir, name));
  }
  return dir;
}

/** Give the fresh home (and everything made in it so far) to the desktop user when the tests run as root. */
function giveHome(desk: Desktop, home: string): void {
  if (process.getuid?.() !== 0) return;
  const { uid, gid } = desk.state.user;
  const walk = (p: string) => {
    lchownSync(p, uid, gid);
    if (lstatSync(p).isDirectory()) for (const n of readdirSync(p)) walk(join(p, n));
  };
  walk(home);
}

/**
 * The built server over stdio with exactly HOME (the fresh home), PATH and XDG_RUNTIME_DIR, as a
 * stripped host starts it, run as the desktop user (the person) when the tests run as root.
 * `extra`: settings the server is started with (HYPRUSE_BACKGROUND=1 for background mode).
 */
export async function startServerAsPerson(desk: Desktop, home: string, extra: Record<string, string> = {}): Promise<Server> {
  const runtime = personRuntimeDir(desk, home);
  giveHome(desk, home);
  const env = { HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin', XDG_RUNTIME_DIR: runtime };
  const args = ['-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...(process.env.HYPRUSE_TIME_SCALE ? [`HYPRUSE_TIME_SCALE=${process.env.HYPRUSE_TIME_SCALE}`] : []), 'HYPRUSE_INDICATOR=0', ...Object.entries(extra).map(([k, v]) => `${k}=${v}`), process.execPath, BIN];
  const root = process.getuid?.() === 0;
  const transport = new StdioClientTransport({
    command: root ? 'runuser' : '/usr/bin/env',
    args: root ? ['-u', desk.user, '--', '/usr/bin/env', ...args] : args,
    cwd: home,
    stderr: 'pipe',
  });
  // the server's last words, given with a call that fails because the server went away
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  const client = new Client({ name: 'hypruse-e2e-browser', version: '1' });
  await client.connect(transport);
  return {
    client,
    transport,
    pid: transport.pid,
    async call(name, a = {}) {
      const r = await client.callTool({ name, arguments: a }, undefined, { timeout: scaledMs(90000) }).catch((e: Error) => {
        throw new Error(`${e.message}${stderr ? `; the server's stderr ends: ${stderr}` : ''}`);
      });
      const text = (r.content as TextBlock[]).filter((c) => c.type === 'text').map((c) => c.text);
      return { isError: Boolean(r.isError), text, data: (r.structuredContent ?? {}) as Record<string, unknown>, raw: r };
    },
    async close() {
      await client.close();
    },
  };
}

/** The order form every browser fills: one of each control a web form has. */
export const ORDER_FORM = `<!doctype html><html><head><meta charset="utf-8"><title>Order form</title></head><body>
<h1>Order</h1>
<form method="post" action="/order">
<p><label for="n">Full name</label> <input id="n" name="name"></p>
<p><label>Email <input type="email" name="email"></label></p>
<p><input type="number" name="qty" aria-label="Quantity"></p>
<p><input type="password" name="pw" placeholder="Password"></p>
<p><span id="cl">Comment</span> <textarea name="comment" aria-labelledby="cl"></textarea></p>
<p><label for="s">Size</label> <select id="s" name="size"><option>Small</option><option>Medium</option><option>Large</option></select></p>
<fieldset><legend>Color</legend><label><input type="radio" name="color" value="red"> Red</label> <label><input type="radio" name="color" value="blue"> Blue</label></fieldset>
<p><label><input type="checkbox" name="gift" value="yes"> Gift wrap</label></p>
<input type="hidden" name="notes" id="notes-out">
<div contenteditable="true" role="textbox" aria-label="Notes" id="notes" style="border:1px solid #888;min-height:2em"></div>
<p><button type="submit">Place order</button></p>
</form>
<script>document.querySelector('form').addEventListener('submit', () => { document.getElementById('notes-out').value = document.getElementById('notes').textContent; });</script>
<p><a href="/thanks.html">Read the delivery terms</a></p>
</body></html>`;

/**
 * Stop a browser a test launched, by its pid, and wait until it has exited: its profile is written
 * until then, so only then may its home be removed.
 */
export async function stopBrowser(pid: number, what: string): Promise<void> {
  if (!pid) return;
  try {
    process.kill(pid);
  } catch {
    return; // ended
  }
  const gone = () => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  };
  await waitFor(async () => gone(), 20000, `${what} exited`).catch(() => undefined);
}
