// Fault behaviour of the sway plugin on a real headless sway: bad input and a
// vanishing socket give typed errors quickly, never a hang, and a dead event
// connection comes back. Effects are checked with swaymsg, independently of
// the plugin.
import { spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HypruseError, scaledMs } from '@hypruse/core';
import { SwayCompositor } from '@hypruse/compositor-sway';
import { killFixture, launchFixture, requireDesktop, swaymsg, waitFor } from '../support/desktop.js';
import { SwayProxy } from './support/sway-proxy.js';

const desk = await requireDesktop();

async function typed(p: Promise<unknown>): Promise<{ err: HypruseError; ms: number }> {
  const t0 = Date.now();
  const err = await p.then(() => null, (e: unknown) => e);
  const ms = Date.now() - t0;
  expect(err).toBeInstanceOf(HypruseError);
  return { err: err as HypruseError, ms };
}

describe.skipIf(!desk)('sway plugin faults (real sway)', () => {
  let proxy: SwayProxy;
  let comp: SwayCompositor;

  beforeAll(async () => {
    proxy = await new SwayProxy(desk!.env.SWAYSOCK).listen();
    comp = new SwayCompositor({ socketPath: proxy.socketPath });
  });
  afterAll(async () => {
    await comp?.dispose();
    await proxy?.close();
  });

  it('an unknown address is not_found.window, a malformed one usage.address, at once', async () => {
    const unknown = await typed(comp.focusWindow('2147000000'));
    expect(unknown.err.code).toBe('not_found.window');
    expect(unknown.ms).toBeLessThan(scaledMs(500));
    const bad = await typed(comp.closeWindow('0xdeadbeef', 1000));
    expect(bad.err.code).toBe('usage.address');
    expect(bad.ms).toBeLessThan(50);
  });

  it("a closed window's address is not_found.window", async () => {
    const app = await launchFixture('foot', { args: ['-a', 'hypruse.faults', '-T', 'faults closed'] });
    await killFixture(app.pid);
    await waitFor(async () => !(await comp.snapshot()).windows.some((w) => w.address === String(app.conId)), 5000, 'the window to close');
    for (const call of [comp.focusWindow(String(app.conId)), comp.toggleFloating(String(app.conId)), comp.tagWindow(String(app.conId), 'x')]) {
      const r = await typed(call);
      expect(r.err.code).toBe('not_found.window');
      expect(r.ms).toBeLessThan(scaledMs(500));
    }
  });

  it('a malformed workspace name is usage.workspace before anything reaches sway', async () => {
    const before = (await swaymsg<Array<{ name: string }>>('-t', 'get_workspaces')).map((w) => w.name).sort();
    for (const name of ['x"; exec touch /tmp/pwned; "', 'a,b', 'line\nbreak', 'next', '']) {
      const r = await typed(comp.switchWorkspace(name));
      expect(r.err.code).toBe('usage.workspace');
      expect(r.ms).toBeLessThan(50);
    }
    expect((await swaymsg<Array<{ name: string }>>('-t', 'get_workspaces')).map((w) => w.name).sort()).toEqual(before);
    expect(existsSync('/tmp/pwned')).toBe(false);
  });

  it('the socket going away mid-call is error.ipc_closed at once; while gone, error.compositor; back, it reconnects by itself', async () => {
    await comp.snapshot();
    proxy.holdTypes.add(4); // GET_TREE never reaches sway: the call is in flight when the socket goes
    const inflight = typed(comp.snapshot());
    await new Promise((r) => setTimeout(r, 50));
    await proxy.unlisten();
    const r = await inflight;
    expect(r.err.code).toBe('error.ipc_closed');
    expect(r.ms).toBeLessThan(scaledMs(300));
    proxy.holdTypes.clear();
    const gone = await typed(comp.snapshot());
    expect(gone.err.code).toBe('error.compositor');
    expect(gone.err.hint).toMatch(/SWAYSOCK/);
    expect(gone.ms).toBeLessThan(scaledMs(1100));
    rmSync(proxy.socketPath, { force: true });
    await proxy.listen();
    const d = await comp.snapshot();
    expect(d.monitors.map((m) => m.name).sort()).toEqual(['HEADLESS-1', 'HEADLESS-2']);
  });

  it('a launch whose command fails returns at once with the exit code, not after the timeout', async () => {
    const t0 = Date.now();
    const res = await comp.launch('exit 3', { timeoutMs: 8000 });
    expect(res.window).toBeNull();
    expect(res.note).toMatch(/ended \(exit status 3\)/);
    expect(res.exited).toMatchObject({ code: 3, signal: null });
    expect(Date.now() - t0).toBeLessThan(scaledMs(1500));
  });

  it('a dead event connection is re-established and says so; events keep coming', async () => {
    const sub = await comp.subscribe();
    try {
      expect(proxy.eventConnections).toBe(1);
      expect(proxy.dropEventConnections()).toBe(1);
      const marker = await sub.next(scaledMs(3000));
      expect(marker).toMatchObject({ type: 'resync' });
      expect(proxy.eventConnections).toBe(1);
      const app = await launchFixture('foot', { args: ['-a', 'hypruse.faults', '-T', 'faults reconnect'] });
      try {
        let ev = await sub.next(scaledMs(5000));
        while (ev && !(ev.type === 'window_open' && ev.address === String(app.conId))) ev = await sub.next(scaledMs(5000));
        expect(ev).toMatchObject({ type: 'window_open', address: String(app.conId), class: 'hypruse.faults', pid: app.pid });
      } finally {
        await killFixture(app.pid);
      }
    } finally {
      sub.close();
    }
  });
});

describe.skipIf(!desk)('a sway that exits mid-session (throwaway private sway)', () => {
  let dir = '';
  let pid = 0;
  let socket = '';

  beforeAll(async () => {
    const { uid, gid } = desk!.state.user;
    dir = mkdtempSync(path.join(tmpdir(), 'hrun-sway-faults-'));
    chownSync(dir, uid, gid);
    writeFileSync(path.join(dir, 'config'), 'output HEADLESS-1 resolution 800x600 position 0 0\n');
    const child = spawn('sway', ['--config', path.join(dir, 'config')], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, XDG_RUNTIME_DIR: dir, WLR_BACKENDS: 'headless', WLR_RENDERER: 'pixman', WLR_LIBINPUT_NO_DEVICES: '1' },
      uid, gid, detached: true, stdio: 'ignore', cwd: dir,
    });
    child.unref();
    pid = child.pid!;
    socket = await waitFor(() => {
      const s = readdirSync(dir).find((n) => n.startsWith('sway-ipc.'));
      return s ? path.join(dir, s) : null;
    }, 10000, 'the throwaway sway socket');
  }, 20000);

  afterAll(() => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('calls fail fast with typed errors and the event subscription reports death', async () => {
    const comp = new SwayCompositor({ socketPath: socket });
    try {
      expect((await comp.snapshot()).monitors.map((m) => m.name)).toEqual(['HEADLESS-1']);
      const sub = await comp.subscribe();
      process.kill(pid, 'SIGTERM');
      const t0 = Date.now();
      let failure: unknown = null;
      try {
        for (;;) {
          const ev = await sub.next(scaledMs(5000)); // the reconnect schedule is scaled too: an unscaled wait ran out first at load 20
          if (ev === null) break;
        }
      } catch (e) {
        failure = e;
      }
      expect(failure).toBeInstanceOf(HypruseError);
      expect((failure as HypruseError).code).toBe('error.events');
      expect(Date.now() - t0).toBeLessThan(scaledMs(3000));
      const r = await typed(comp.snapshot());
      expect(['error.compositor', 'error.ipc_closed']).toContain(r.err.code);
      expect(r.ms).toBeLessThan(scaledMs(1100));
    } finally {
      await comp.dispose();
    }
  }, 20000);
});
