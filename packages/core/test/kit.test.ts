// The plugin kit: the one layer table, the one request policy (timeout, size
// cap, typed errors) and the one reconnect policy with its typed resync event.
import { createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CapabilityTable, EventHub, LaunchMatcher, launchAndPlace, type Window, HypruseError, MAX_REPLY_BYTES, classifyLayer, liveSockets, unixRequest, type DesktopEvent, type StreamConnection } from '../src/index.js';

const dirs: string[] = [];
const servers: Server[] = [];
const conns: Socket[] = [];
afterEach(async () => {
  for (const c of conns.splice(0)) c.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function server(onConn: (s: Socket) => void): Promise<string> {
  const d = mkdtempSync(join(tmpdir(), 'kit-'));
  dirs.push(d);
  const path = join(d, 'sock');
  const s = createServer((c) => {
    conns.push(c);
    onConn(c);
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(path, r));
  return path;
}

const PEER = { name: 'examplewm', hint: 'start examplewm' };

describe('layer classification: one table for every compositor', () => {
  it.each([
    ['gtklock', 'top', 'lock'], ['hyprlock', 'overlay', 'lock'], ['swaylock', 'overlay', 'lock'], ['greetd-gtkgreet', 'overlay', 'lock'],
    ['bemenu', 'overlay', 'launcher'], ['rofi', 'overlay', 'launcher'], ['wofi', 'top', 'launcher'], ['fuzzel', 'overlay', 'launcher'],
    ['waybar', 'top', 'bar'], ['ags-bar', 'top', 'bar'], ['mako', 'overlay', 'notification'], ['swaync-control-center', 'overlay', 'notification'],
    ['squeekboard', 'top', 'osk'], ['swww-daemon', 'background', 'background'], ['mystery', 'background', 'background'], ['mystery', 'top', 'other'],
    ['eww-clock', 'top', 'bar'], ['clock', 'top', 'other'],
  ] as const)('%s on %s is %s', (ns, level, kind) => {
    expect(classifyLayer(ns, level)).toBe(kind);
  });
});

describe('unixRequest', () => {
  it('reads to the end of the stream, or until the reply is complete', async () => {
    const path = await server((s) => s.on('data', (d) => s.end(`re:${d}`)));
    expect((await unixRequest(path, 'hi', PEER, { what: 'hi' })).toString()).toBe('re:hi');
    const lines = await server((s) => s.on('data', () => s.write('one\ntwo')));
    expect((await unixRequest(lines, 'x', PEER, { what: 'x', complete: (b) => b.indexOf(10) })).toString()).toBe('one');
  });

  it('times out, caps the reply size and names a missing socket, with typed errors', async () => {
    const silent = await server(() => undefined);
    await expect(unixRequest(silent, 'x', PEER, { what: 'x', timeoutMs: 100 })).rejects.toMatchObject({ code: 'error.compositor', message: expect.stringContaining('within 100 ms') });
    const huge = await server((s) => {
      s.on('error', () => undefined);
      s.write(Buffer.alloc(4096, 97));
    });
    await expect(unixRequest(huge, 'x', PEER, { what: 'x', maxBytes: 1000 })).rejects.toMatchObject({ message: expect.stringContaining('exceeded 1000 bytes') });
    expect(MAX_REPLY_BYTES).toBe(64 * 1024 * 1024);
    await expect(unixRequest('/nonexistent/sock', 'x', PEER, { what: 'x' })).rejects.toMatchObject({ code: 'error.compositor', hint: 'start examplewm' });
    const closer = await server((s) => s.destroy());
    await expect(unixRequest(closer, 'x', PEER, { what: 'x' })).rejects.toMatchObject({ code: 'error.ipc_closed', data: { replied: false } });
  });
});

describe('EventHub', () => {
  it('reconnects after a drop and sends one resync before what the new connection delivers; fails subscribers when it cannot', async () => {
    let opens = 0;
    let drop: ((e: HypruseError) => void) | null = null;
    let refuse = false;
    const hub = new EventHub({
      peer: 'examplewm',
      async open(emit, dropped): Promise<StreamConnection> {
        if (refuse) throw new HypruseError('error.events', 'refused');
        opens++;
        drop = dropped;
        // a reconnect delivers its initial state while opening: it must come after the resync marker
        emit([{ type: 'other', name: 'hello', data: String(opens) }]);
        return { close: () => undefined };
      },
    });
    const sub = await hub.subscribe();
    expect(await sub.next(1000)).toEqual({ type: 'other', name: 'hello', data: '1' });
    drop!(new HypruseError('error.events', 'gone'));
    const got: DesktopEvent[] = [(await sub.next(5000))!, (await sub.next(5000))!];
    expect(got.map((e) => e.type)).toEqual(['resync', 'other']);
    expect(hub.reconnects).toBe(1);
    refuse = true;
    drop!(new HypruseError('error.events', 'gone again'));
    await expect(sub.next(20000)).rejects.toMatchObject({ code: 'error.events', message: expect.stringContaining('could not be re-established') });
    hub.dispose();
  });
});

describe('liveSockets and capability tables', () => {
  it('skips a socket whose process is dead', async () => {
    const d = mkdtempSync(join(tmpdir(), 'kit-live-'));
    dirs.push(d);
    for (const pid of [process.pid, 2 ** 22 + 7]) {
      const s = createServer();
      servers.push(s);
      await new Promise<void>((r) => s.listen(join(d, `wm.${pid}.sock`), r));
    }
    const skipped: string[] = [];
    expect(liveSockets(d, /^wm\.(\d+)\.sock$/, 1, skipped).map((s) => s.pid)).toEqual([process.pid]);
    expect(skipped).toHaveLength(1);
  });

  it('gives one reason per missing capability and refuses with unsupported.capability', () => {
    const t = new CapabilityTable('examplewm', ['focus'], { close: 'examplewm cannot close windows' });
    expect(t.has('focus')).toBe(true);
    expect(t.reason('close')).toBe('examplewm cannot close windows');
    expect(t.refuse('close')).toMatchObject({ code: 'unsupported.capability', message: 'not supported on examplewm: close (examplewm cannot close windows)' });
  });
});

describe('launchAndPlace', () => {
  it('moves a window that ignored the requested workspace, says so once, and reports the started pid', async () => {
    const token = 'T';
    const win: Window = { address: 'w1', class: 'app', title: 'mine', pid: 4242, geometry: { x: 0, y: 0, width: 10, height: 10 }, workspace: '1', floating: false, fullscreen: false, visible: true, focused: true };
    let listed: Window[] = [];
    const moves: string[] = [];
    const r = await launchAndPlace(
      {
        subscribe: async () => null,
        windows: async () => listed.map((w) => ({ address: w.address, pid: w.pid })),
        start: async () => {
          setTimeout(() => (listed = [win]), 20);
          return { child: { pid: 4242, exitCode: () => undefined }, matcher: new LaunchMatcher({ token, root: 4242, table: { parent: (p) => (p === 4242 ? 1 : null), envVar: () => null, pids: () => [4242] } }) };
        },
        window: async (a) => listed.find((w) => w.address === a) ?? null,
        move: async (a, ws) => {
          moves.push(`${a}->${ws}`);
          win.workspace = ws;
        },
      },
      { workspace: '3', timeoutMs: 3000 },
    );
    expect(moves).toEqual(['w1->3']);
    expect(r).toMatchObject({ pid: 4242, relocated: true, window: { workspace: '3' }, note: 'the window opened on workspace "1" and was moved to "3"' });
  });
});
