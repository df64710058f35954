import { LAUNCH_TOKEN_VAR, type DesktopEvent, type EventSubscription, type ProcessTable, type Spawner } from '@hypruse/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NiriCompositor } from '../src/niri-compositor.js';
import { NiriSimulator } from '../../../tests/simulators/niri/niri-simulator.js';

let sim: NiriSimulator;
let niri: NiriCompositor;

function make(extra: Partial<ConstructorParameters<typeof NiriCompositor>[0]> = {}) {
  return new NiriCompositor({ socketPath: sim.socketPath, requestTimeoutMs: 1000, ...extra });
}

beforeEach(async () => {
  sim = await NiriSimulator.start();
  niri = make();
});
afterEach(async () => {
  await niri.dispose();
  await sim.stop();
});

/** Next event matching `pred` within `ms`, or null. */
async function waitFor(sub: EventSubscription, pred: (e: DesktopEvent) => boolean, ms = 1000): Promise<DesktopEvent | null> {
  const end = Date.now() + ms;
  for (;;) {
    const left = end - Date.now();
    if (left <= 0) return null;
    const e = await sub.next(left);
    if (e === null) return null;
    if (pred(e)) return e;
  }
}

describe('NiriCompositor over the simulator', () => {
  it('snapshots the desktop with exact geometry on the scaled output', async () => {
    const d = await niri.snapshot();
    expect(d.monitors.map((m) => [m.name, m.geometry, m.scale])).toEqual([
      ['DP-1', { x: 0, y: 0, width: 1920, height: 1080 }, 1],
      ['HDMI-A-1', { x: 1920, y: 0, width: 1706, height: 1066 }, 1.5],
    ]);
    // HDMI-A-1: tile (1706-48)/2 = 829 wide at gap 16, border 2 → content 825x1030; niri gives a tiled window no position
    const tiled = d.windows.find((w) => w.address === '11')!;
    expect(tiled.geometry).toMatchObject({ width: 825, height: 1030 });
    expect(tiled.positionUnknown).toMatch(/tiled windows/);
    // floating: niri's position in the workspace view, exact (centred 640x400 + 2 px border on DP-1)
    await niri.toggleFloating('10');
    const floating = (await niri.snapshot()).windows.find((w) => w.address === '10')!;
    expect(floating.positionUnknown).toBeUndefined();
    expect(floating.geometry).toEqual({ x: (1920 - 644) / 2 + 2, y: (1080 - 404) / 2 + 2, width: 640, height: 400 });
    await niri.toggleFloating('10');
    expect(d.activeWindow).toBe('10');
    expect(d.layers!.find((l) => l.namespace === 'waybar')!.kind).toBe('bar');
  });

  it('still snapshots a niri that refuses the Layers request (layers: null)', async () => {
    const real = niri.ipc.layers.bind(niri.ipc);
    niri.ipc.layers = () => niri.ipc.request({ Action: { NotLayers: {} } }) as never;
    const d = await niri.snapshot();
    expect(d.layers).toBeNull();
    expect(d.windows).toHaveLength(2);
    niri.ipc.layers = real;
  });

  it('focuses windows and switches workspaces by id, name and index', async () => {
    await niri.focusWindow('11');
    let d = await niri.snapshot();
    expect([d.activeWindow, d.activeWorkspace]).toEqual(['11', '4']);
    await niri.switchWorkspace('chat');
    d = await niri.snapshot();
    expect(d.activeWorkspace).toBe('2');
    await niri.switchWorkspace('1');
    expect((await niri.snapshot()).activeWorkspace).toBe('1');
    await expect(niri.switchWorkspace('nowhere')).rejects.toMatchObject({ code: 'not_found.workspace' });
  });

  it('validates addresses and reports missing windows', async () => {
    await expect(niri.focusWindow('0x5600')).rejects.toMatchObject({ code: 'usage.address' });
    await expect(niri.focusWindow('999')).rejects.toMatchObject({ code: 'not_found.window' });
  });

  it('moves a window silently or following it', async () => {
    await niri.moveToWorkspace('10', '3', true);
    let d = await niri.snapshot();
    expect(d.windows.find((w) => w.address === '10')!.workspace).toBe('3');
    expect(d.activeWorkspace).toBe('1');
    expect(sim.requests).toContain('Action MoveWindowToWorkspace');
    await niri.moveToWorkspace('11', '3', false);
    d = await niri.snapshot();
    expect([d.activeWorkspace, d.activeWindow]).toEqual(['3', '11']);
  });

  it('toggles fullscreen and floating (targeted and on the focused window)', async () => {
    await niri.toggleFullscreen('10');
    let w = (await niri.snapshot()).windows.find((x) => x.address === '10')!;
    expect(w.fullscreen).toBe(true);
    expect(w.geometry).toEqual({ x: 0, y: 0, width: 1920, height: 1080 });
    await niri.toggleFloating(null);
    w = (await niri.snapshot()).windows.find((x) => x.address === '10')!;
    expect([w.floating, w.fullscreen]).toEqual([true, false]);
  });

  it('closes a window awaiting its WindowClosed, and reports one that stays open', async () => {
    expect(await niri.closeWindow('11', 1000)).toEqual({ status: 'closed' });
    expect((await niri.snapshot()).windows.map((w) => w.address)).toEqual(['10']);
    const stubborn = sim.openWindow({ title: 'unsaved', ignoreClose: true });
    const t0 = Date.now();
    expect(await niri.closeWindow(String(stubborn), 300)).toEqual({ status: 'still_open' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it('streams normalized events once subscribed', async () => {
    const sub = await niri.subscribe();
    const id = sim.openWindow({ title: 'hello', appId: 'demo', pid: 4321 });
    expect(await waitFor(sub, (e) => e.type === 'window_open')).toEqual({ type: 'window_open', address: String(id), class: 'demo', title: 'hello', workspace: '1', pid: 4321 });
    sim.setTitle(id, 'bye');
    expect(await waitFor(sub, (e) => e.type === 'title_change')).toEqual({ type: 'title_change', address: String(id), title: 'bye' });
    sim.setUrgent(10, true);
    expect(await waitFor(sub, (e) => e.type === 'urgent')).toEqual({ type: 'urgent', address: '10' });
    sub.close();
  });

  it('recovers from a dropped event stream: reconnects, re-syncs and reports what it missed', async () => {
    const sub = await niri.subscribe();
    expect(sim.eventStreamCount).toBe(1);
    sim.dropEventStreams();
    const missed = sim.openWindow({ title: 'opened while down' });
    expect(await waitFor(sub, (e) => e.type === 'window_open' && e.address === String(missed), 2000)).not.toBeNull();
    expect(sim.eventStreamCount).toBe(1);
    const live = sim.openWindow({ title: 'after' });
    expect(await waitFor(sub, (e) => e.type === 'window_open' && e.address === String(live))).not.toBeNull();
    sub.close();
  });

  it('gives a new subscriber no stale events from before it subscribed', async () => {
    (await niri.subscribe()).close();
    sim.openWindow({ title: 'between subscriptions' });
    const sub = await niri.subscribe();
    expect(await sub.next(150)).toBeNull();
    sub.close();
  });

  it('recovers from a garbage event line', async () => {
    const sub = await niri.subscribe();
    sim.sendGarbageEvent();
    expect(await waitFor(sub, (e) => e.type === 'resync', 2000)).not.toBeNull();
    sim.removeWindow(11);
    expect(await waitFor(sub, (e) => e.type === 'window_close')).toEqual({ type: 'window_close', address: '11' });
    sub.close();
  });

  it('fails subscribers with error.events when the stream cannot come back', async () => {
    const sub = await niri.subscribe();
    sim.refuseEventStreams = true;
    sim.dropEventStreams();
    await expect(sub.next(20000)).rejects.toMatchObject({ code: 'error.events' });
    sim.refuseEventStreams = false;
    const again = await niri.subscribe();
    again.close();
  });

  it('declares only what niri can do, with honest reasons', async () => {
    expect([...niri.capabilities].sort()).toEqual(['close', 'events', 'floating', 'focus', 'fullscreen', 'launch', 'layers', 'move', 'workspace']);
    expect(niri.unsupportedReason('cursor.set')).toMatch(/virtual pointer/);
    expect(niri.unsupportedReason('binds')).toMatch(/bindings/);
    await expect(niri.moveCursor({ x: 1, y: 1 })).rejects.toMatchObject({ code: 'unsupported.capability' });
    await expect(niri.binds()).rejects.toMatchObject({ code: 'unsupported.capability' });
    await expect(niri.tagWindow('10', 'x')).rejects.toMatchObject({ code: 'unsupported.capability' });
    await expect(niri.notify('hi', 100)).rejects.toMatchObject({ code: 'unsupported.capability' });
    expect(await niri.locked()).toBeNull();
    expect(await niri.installMarkRule('x')).toBe(false);
  });
});

describe('launch', () => {
  /** A fake process table: pid → ppid, plus environments. */
  function table(parents: Record<number, number>, environ: Record<number, Record<string, string>> = {}): ProcessTable {
    return {
      parent: (pid) => parents[pid] ?? null,
      pids: () => Object.keys(parents).map(Number),
      envVar: (pid, name) => environ[pid]?.[name] ?? null,
    };
  }

  it('is not fooled by an unrelated window opening first; finds the descendant of the launched process', async () => {
    const parents: Record<number, number> = { 90001: 1 };
    const spawner: Spawner = async () => {
      setTimeout(() => sim.openWindow({ title: 'unrelated', appId: 'other', pid: 777 }), 10);
      setTimeout(() => {
        parents[90002] = 90001; // the launcher shell forked the app
        sim.openWindow({ title: 'mine', appId: 'app', pid: 90002 });
      }, 80);
      return { pid: 90001, exitCode: () => undefined };
    };
    niri = make({ spawner, processTable: table(parents) });
    const r = await niri.launch('app', { timeoutMs: 2000 });
    expect(r.pid).toBe(90001);
    expect(r.window).toMatchObject({ title: 'mine', pid: 90002, workspace: '1' });
    expect(r.relocated).toBeUndefined();
  });

  it('recognises a re-parented app by the launch mark it inherited', async () => {
    const parents: Record<number, number> = { 90001: 1 };
    const environ: Record<number, Record<string, string>> = {};
    const spawner: Spawner = async (_cmd, env) => {
      setTimeout(() => {
        parents[90005] = 1; // launcher exited, app re-parented to init
        environ[90005] = { [LAUNCH_TOKEN_VAR]: env[LAUNCH_TOKEN_VAR]! };
        sim.openWindow({ title: 'orphan', pid: 90005 });
      }, 30);
      return { pid: 90001, exitCode: () => 0 };
    };
    niri = make({ spawner, processTable: table(parents, environ) });
    const r = await niri.launch('app &', { timeoutMs: 2000 });
    expect(r.window?.title).toBe('orphan');
  });

  it('moves the window to the requested workspace afterwards and says so', async () => {
    const spawner: Spawner = async () => {
      setTimeout(() => sim.openWindow({ title: 'mine', pid: 90010 }), 20);
      return { pid: 90010, exitCode: () => undefined };
    };
    niri = make({ spawner, processTable: table({ 90010: 1 }) });
    const r = await niri.launch('app', { timeoutMs: 2000, workspace: 'chat' });
    expect(r).toMatchObject({ relocated: true, window: { workspace: '2', title: 'mine' } });
    expect((await niri.snapshot()).windows.find((w) => w.title === 'mine')!.workspace).toBe('2');
  });

  it('returns no window with a reason when only other processes open windows', async () => {
    const spawner: Spawner = async () => {
      setTimeout(() => sim.openWindow({ title: 'unrelated', pid: 777 }), 10);
      return { pid: 90020, exitCode: () => undefined };
    };
    niri = make({ spawner, processTable: table({ 90020: 1, 777: 1 }) });
    const t0 = Date.now();
    const r = await niri.launch('app', { timeoutMs: 400 });
    expect(r.window).toBeNull();
    expect(r.note).toMatch(/no window of that process appeared within 0.4s/);
    expect(Date.now() - t0).toBeLessThan(1500);
  });

  it('stops early when the process fails before opening a window', async () => {
    const spawner: Spawner = async () => ({ pid: 90030, exitCode: () => 127 });
    niri = make({ spawner, processTable: table({}) });
    const t0 = Date.now();
    const r = await niri.launch('no-such-program', { timeoutMs: 5000 });
    expect(r.note).toMatch(/ended \(exit status 127\)/);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('rejects an empty command and an unknown workspace before spawning', async () => {
    let spawned = false;
    niri = make({ spawner: async () => ((spawned = true), { pid: 1, exitCode: () => undefined }) });
    await expect(niri.launch('  ', { timeoutMs: 100 })).rejects.toMatchObject({ code: 'usage.arguments' });
    await expect(niri.launch('x', { timeoutMs: 100, workspace: 'nowhere' })).rejects.toMatchObject({ code: 'not_found.workspace' });
    expect(spawned).toBe(false);
  });
});
