// Faults around the server's own process and its helpers, on the real
// headless sway desktop: a hung or vanished AT-SPI app, grim/wtype missing,
// a journal that cannot be written, a file where the screenshot directory should be,
// SIGTERM in the middle of a drag and of a sequence, and a client cancelling
// wait_for. Each case asserts the exact error category and that the server
// (or a fresh one) answers the next call; effects are checked through sway.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer } from '@hypruse/core/mcp';
import { HypruseError, scaledMs } from '@hypruse/core';
import { createSession, type Session } from 'hypruse';
import { killFixture, launchFixture, requireDesktop, swayNodes, waitFor, type LaunchedFixture } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';
import { alive } from '../support/tools.js';

const desk = await requireDesktop();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function settle<T>(p: Promise<T>): Promise<{ err: HypruseError | null; value: T | null; ms: number }> {
  const t0 = Date.now();
  try {
    return { err: null, value: await p, ms: Date.now() - t0 };
  } catch (e) {
    expect(e).toBeInstanceOf(HypruseError);
    return { err: e as HypruseError, value: null, ms: Date.now() - t0 };
  }
}

function stderrOf(server: Server): () => string {
  let buf = '';
  server.transport.stderr?.on('data', (d: Buffer) => (buf += d.toString()));
  return () => buf;
}

async function exited(pid: number, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await sleep(25);
  }
  return false;
}

describe.skipIf(!desk)('process faults on the real desktop', () => {
  let s: Session;
  beforeAll(async () => {
    s = await createSession({ source: 'mcp', noFile: true, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', LANG: process.env.LANG || 'C.UTF-8', ...desk!.env } });
  });
  afterAll(async () => {
    await s?.dispose();
  });

  async function addressOf(app: LaunchedFixture): Promise<string> {
    return String((await swayNodes()).find((n) => n.pid === app.pid)!.id);
  }

  it('an app that hangs (SIGSTOP) makes ui an error.a11y within the 2 s ceiling; once it resumes, ui works again', async () => {
    const app = await launchFixture('zenity-entry', { workspace: '5' });
    const addr = await addressOf(app);
    expect((await s.pipeline.call('ui', { window: addr })).data?.elements).toBeTruthy();
    process.kill(app.pid, 'SIGSTOP');
    try {
      const r = await settle(s.pipeline.call('ui', { window: addr }));
      expect(r.err?.code).toBe('error.a11y');
      expect(r.err?.category).toBe('error');
      expect(r.ms).toBeLessThan(scaledMs(4500));
      expect((await s.pipeline.call('desktop', {})).data?.windows).toBeTruthy();
    } finally {
      process.kill(app.pid, 'SIGCONT');
    }
    const again = await waitFor(async () => (await s.pipeline.call('ui', { window: addr })).data?.elements, 8000, 'ui after SIGCONT');
    expect((again as unknown[]).length).toBeGreaterThan(0);
    await killFixture(app.pid);
  }, 40000);

  it('an app that is gone makes ui a typed not_found/error at once, and the next call answers', async () => {
    const app = await launchFixture('zenity-entry', { workspace: '5' });
    const addr = await addressOf(app);
    process.kill(app.pid, 'SIGKILL');
    const r = await settle(s.pipeline.call('ui', { window: addr }));
    expect(r.err).not.toBeNull();
    expect(['not_found.window', 'not_found.tree', 'error.a11y']).toContain(r.err!.code);
    expect(r.ms).toBeLessThan(scaledMs(4500));
    await waitFor(async () => !(await swayNodes()).some((n) => n.pid === app.pid), 5000, 'the window to go');
    const gone = await settle(s.pipeline.call('ui', { window: addr }));
    expect(gone.err?.code).toBe('not_found.window');
    expect((await s.pipeline.call('desktop', {})).data?.windows).toBeTruthy();
    await killFixture(app.pid).catch(() => undefined);
  }, 30000);

  it('a client cancelling wait_for ends the call promptly (cancelled) and the server answers the next call', async () => {
    const server = await createMcpServer({ name: 'hypruse', version: 'faults', pipeline: s.pipeline, config: s.config, compositor: 'sway' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'faults', version: '1' });
    await Promise.all([server.connect(a), client.connect(b)]);
    const settled: Array<Promise<{ err: HypruseError | null; ms: number; at: number }>> = [];
    const original = s.pipeline.call.bind(s.pipeline);
    s.pipeline.call = (name, args, opts) => {
      const p = original(name, args, opts);
      if (name === 'wait_for') settled.push(settle(p).then((r) => ({ err: r.err, ms: r.ms, at: Date.now() })));
      return p;
    };
    try {
      const ac = new AbortController();
      const call = client.callTool({ name: 'wait_for', arguments: { event: 'window_open', match: 'never-opens-xyz', timeout_s: 30 } }, undefined, { signal: ac.signal });
      await sleep(400);
      expect(settled.length).toBe(1);
      const abortedAt = Date.now();
      ac.abort();
      await expect(call).rejects.toThrow();
      const r = await settled[0];
      expect(r.err?.category).toBe('cancelled');
      expect(r.at - abortedAt).toBeLessThan(scaledMs(1000));
      const next = await client.callTool({ name: 'desktop', arguments: {} });
      expect(next.isError).toBeFalsy();
    } finally {
      s.pipeline.call = original;
      await client.close();
    }
  });
});

describe.skipIf(!desk)('the built server with broken surroundings (stdio)', () => {
  const servers: Server[] = [];
  const start = async (extra: Record<string, string>) => {
    const srv = await startServer(desk!.env, extra);
    servers.push(srv);
    return srv;
  };
  afterAll(async () => {
    for (const srv of servers) await srv.close().catch(() => undefined);
  });

  it('grim and wtype missing from PATH: typed errors (error.input, error.capture), never a crash; desktop still answers', async () => {
    const emptyBin = mkdtempSync(join(tmpdir(), 'hypruse-nobin-'));
    const srv = await start({ PATH: emptyBin, HYPRUSE_KEYBOARD: 'wtype' });
    const kb = await srv.call('keyboard', { action: 'type', text: 'x' });
    expect(kb.isError).toBe(true);
    expect(kb.text[0]).toMatch(/^error: /);
    expect((kb.raw as { _meta?: Record<string, { code: string }> })._meta?.['hypruse/error']?.code).toBe('error.input');
    // in-process screencopy needs no grim for a monitor; a region spanning two scales goes to grim
    for (const args of [{}, { region: '1200,100,200x100' }]) {
      const shot = await srv.call('screenshot', args);
      if (shot.isError) {
        expect(shot.text[0]).toMatch(/^error: /);
        expect((shot.raw as { _meta?: Record<string, { code: string; hint: string | null }> })._meta?.['hypruse/error']?.code).toBe('error.capture');
      } else expect(shot.data.geometry).toBeTruthy();
    }
    const d = await srv.call('desktop');
    expect(d.isError).toBe(false);
  });

  it('a journal path whose directory is a file: the action still succeeds, with a warning on stderr', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hypruse-journal-'));
    const file = join(dir, 'not-a-dir');
    writeFileSync(file, 'x');
    const srv = await start({ HYPRUSE_JOURNAL: join(file, 'journal.ndjson') });
    const err = stderrOf(srv);
    const r = await srv.call('pointer', { action: 'move', x: 640, y: 400 });
    expect(r.isError).toBe(false);
    expect(r.text[0]).toMatch(/^move ok/);
    await waitFor(() => /journal: cannot write/.test(err()), 3000, 'the journal warning on stderr');
    const again = await srv.call('desktop');
    expect(again.isError).toBe(false);
  });

  it('a file where the screenshot directory should be (file mode): error.unsafe_dir naming it, with a hint, and the server answers the next call the same way', async () => {
    const rt = mkdtempSync(join(tmpdir(), 'hypruse-rt-'));
    chmodSync(rt, 0o700);
    writeFileSync(join(rt, 'hypruse'), 'a file where the screenshot directory should be');
    const srv = await start({ XDG_RUNTIME_DIR: rt, WAYLAND_DISPLAY: join(desk!.env.XDG_RUNTIME_DIR, desk!.env.WAYLAND_DISPLAY) });
    const r = await srv.call('screenshot', {});
    expect(r.isError).toBe(true);
    const meta = (r.raw as { _meta?: Record<string, { code: string; hint: string | null }> })._meta?.['hypruse/error'];
    expect(r.text[0]).toMatch(/^error: /);
    // the folder of hypruse's files is checked before anything is written in it: a file there is refused as unsafe
    expect(meta?.code).toBe('error.unsafe_dir');
    expect(r.text[0]).toContain(join(rt, 'hypruse'));
    expect(meta?.hint).toBeTruthy();
    // that folder holds every file of the session (the beacon too): the server stays up and refuses each call alike
    const d = await srv.call('desktop');
    expect(d.isError).toBe(true);
    expect((d.raw as { _meta?: Record<string, { code: string }> })._meta?.['hypruse/error']?.code).toBe('error.unsafe_dir');
    expect(srv.pid && alive(srv.pid)).toBeTruthy();
  });

  it('SIGTERM mid-drag and mid-sequence: the server exits promptly, and a following click behaves normally', async () => {
    const app = await launchFixture('zenity-entry', { workspace: '6' });
    const node = (await swayNodes()).find((n) => n.pid === app.pid)!;
    const blank = { x: node.rect.x + 40, y: node.rect.y + Math.round(node.rect.height * 0.6) };
    // several moments of the signal: before the press, mid-drag, between the sequence's drags (a press
    // after the release would stay held when the process exits, and sway then sends every later click
    // to the surface that took the stale press)
    const moments = [
      ['drag', 40],
      ['drag', 120],
      ['drag', 260],
      ['sequence', 150],
      ['sequence', 330],
      ['sequence', 520],
    ] as const;
    for (const [kind, delay] of moments) {
      const srv = await start({});
      await srv.call('desktop');
      const args =
        kind === 'drag'
          ? { name: 'pointer', arguments: { action: 'drag', x: blank.x, y: blank.y, to_x: blank.x + 300, to_y: blank.y } }
          : {
              name: 'sequence',
              arguments: {
                steps: [
                  { op: 'pointer', action: 'move', x: blank.x, y: blank.y },
                  { op: 'pointer', action: 'drag', x: blank.x, y: blank.y, to_x: blank.x + 300, to_y: blank.y },
                  { op: 'pointer', action: 'drag', x: blank.x + 300, y: blank.y, to_x: blank.x, to_y: blank.y },
                ],
              },
            };
      const pending = srv.client.callTool(args, undefined, { timeout: 10000 }).catch((e: Error) => e);
      await sleep(delay);
      process.kill(srv.pid!, 'SIGTERM');
      expect(await exited(srv.pid!, 3000), `${kind} at ${delay} ms: the server did not exit within 3 s of SIGTERM`).toBe(true);
      await pending;
    }
    // a fresh server: clicking the dialog's OK through the real pointer closes it (sway confirms)
    const fresh = await start({});
    const ui = await fresh.call('ui', { window: String(node.id), name: 'OK' });
    expect(ui.isError, ui.text.join('\n')).toBe(false);
    const ok = (ui.data.elements as Array<{ name: string; x?: number; y?: number; at?: number[] }>).find((e) => e.name === 'OK')!;
    const at = ok.at ?? [ok.x!, ok.y!];
    const click = await fresh.call('pointer', { action: 'click', x: at[0], y: at[1] });
    expect(click.isError, click.text.join('\n')).toBe(false);
    await waitFor(async () => !(await swayNodes()).some((n) => n.id === node.id), 5000, 'the dialog to close after a normal click');
    await killFixture(app.pid).catch(() => undefined);
  }, scaledMs(120000));
});
