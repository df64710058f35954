// Compositor faults through a whole session (container, trust layers,
// pipeline, tools): the request socket closing mid-call and the event stream
// dropping during wait_for, on the Hyprland simulator (scripted drops) and on
// real sway behind an i3-ipc proxy the test controls. Each case asserts the
// exact error category and that the session answers the next call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HypruseError, scaledMs } from '@hypruse/core';
import { createSession, type Session } from 'hypruse';
import { HyprlandSimulator } from '../simulators/hyprland/index.js';
import { SwayProxy } from '../contract/support/sway-proxy.js';
import { killFixture, launchFixture, requireDesktop, waitFor } from '../support/desktop.js';

async function outcome(p: Promise<unknown>): Promise<{ err: HypruseError | null; value: unknown; ms: number }> {
  const t0 = Date.now();
  try {
    const value = await p;
    return { err: null, value, ms: Date.now() - t0 };
  } catch (e) {
    expect(e).toBeInstanceOf(HypruseError);
    return { err: e as HypruseError, value: null, ms: Date.now() - t0 };
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Hyprland simulator: the request socket drops mid-call, the event stream drops mid-wait', () => {
  let sim: HyprlandSimulator;
  let s: Session;
  beforeAll(async () => {
    sim = await new HyprlandSimulator({ version: '0.56', configProvider: 'hyprlang', processes: 'fake' }).start();
    sim.openWindow({ class: 'foot', title: 'faults one', workspace: '1' });
    s = await createSession({ source: 'mcp', noFile: true, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...sim.env } });
    expect(s.compositor.id).toBe('hyprland');
  });
  afterAll(async () => {
    await s?.dispose();
    await sim?.stop();
  });

  it('a connection dropped without a reply is error.ipc_closed (category error) at once; the next call answers', async () => {
    await s.pipeline.call('desktop', {});
    // a read-only query dropped once is sent once more; dropped again, it is the typed error
    sim.failNext({ mode: 'drop' });
    expect((await s.pipeline.call('desktop', {})).data?.windows).toBeTruthy();
    sim.failNext({ mode: 'drop' }, { mode: 'drop' });
    const r = await outcome(s.pipeline.call('desktop', {}));
    expect(r.err?.category).toBe('error');
    expect(r.err?.code).toMatch(/^error\.(ipc_closed|compositor)$/);
    expect(r.ms).toBeLessThan(scaledMs(2000));
    const next = await s.pipeline.call('desktop', {});
    expect(next.text[0]).toMatch(/^Hyprland|hyprland/i);
  });

  it('garbage and a silent socket are typed errors within the request timeout, never a hang', async () => {
    sim.failNext({ mode: 'garbage' });
    const g = await outcome(s.pipeline.call('desktop', {}));
    expect(g.err?.category).toBe('error');
    sim.failNext({ mode: 'silent' });
    const q = await outcome(s.pipeline.call('desktop', {}));
    expect(q.err?.category).toBe('error');
    expect(q.ms).toBeLessThan(scaledMs(12000));
    expect((await s.pipeline.call('desktop', {})).data?.windows).toBeTruthy();
  }, 30000);

  it('wait_for survives the event stream dropping: a window opened after the drop is still seen', async () => {
    const wait = outcome(s.pipeline.call('wait_for', { event: 'window_open', match: 'after-drop', timeout_s: 8 }));
    // the drop must hit a live event stream: wait for it to be connected (slow machines take longer)
    await waitFor(() => sim.eventClientCount > 0, scaledMs(5000), 'the event stream to connect');
    sim.dropEventClients();
    await sleep(700);
    sim.openWindow({ class: 'foot', title: 'after-drop', workspace: '1' });
    const r = await wait;
    // either the stream came back and saw the window, or the drop is reported as a typed events error; never a hang
    if (r.err) expect(r.err.code).toBe('error.events');
    else expect(JSON.stringify((r.value as { data?: unknown }).data)).toContain('after-drop');
    expect(r.ms).toBeLessThan(scaledMs(8000));
    expect((await s.pipeline.call('desktop', {})).data?.windows).toBeTruthy();
  }, 20000);
});

const desk = await requireDesktop();

describe.skipIf(!desk)('real sway behind a proxy: socket closed mid-call, event stream dropped mid-wait', () => {
  let proxy: SwayProxy;
  let s: Session;
  beforeAll(async () => {
    proxy = await new SwayProxy(desk!.env.SWAYSOCK).listen();
    s = await createSession({ source: 'mcp', noFile: true, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...desk!.env, SWAYSOCK: proxy.socketPath } });
    expect(s.compositor.id).toBe('sway');
  });
  afterAll(async () => {
    await s?.dispose();
    await proxy?.close();
  });

  it('the socket closing while desktop waits for its reply is error.ipc_closed; the next call answers', async () => {
    await s.pipeline.call('desktop', {});
    proxy.holdTypes.add(4); // GET_TREE never reaches sway: the call is in flight when the connection drops
    const inflight = outcome(s.pipeline.call('desktop', {}));
    await sleep(100);
    proxy.dropAll();
    const r = await inflight;
    proxy.holdTypes.clear();
    expect(r.err?.code).toBe('error.ipc_closed');
    expect(r.err?.category).toBe('error');
    expect(r.ms).toBeLessThan(scaledMs(1500));
    const next = await s.pipeline.call('desktop', {});
    expect((next.data?.monitors as unknown[]).length).toBe(2);
  });

  it('an acting call whose connection drops is a typed error, and the next acting call works', async () => {
    const d = await s.pipeline.call('desktop', {});
    const ws = (d.data?.workspaces as Array<{ name: string; visible: boolean; monitor: string }>).find((w) => w.visible && w.monitor === 'HEADLESS-1')!.name;
    proxy.holdTypes.add(0); // RUN_COMMAND
    const inflight = outcome(s.pipeline.call('wm', { action: 'workspace', workspace: ws }));
    await sleep(150);
    proxy.dropAll();
    const r = await inflight;
    proxy.holdTypes.clear();
    expect(r.err?.category).toBe('error');
    expect(r.err?.code).toMatch(/^error\.(ipc_closed|compositor)$/);
    const again = await s.pipeline.call('wm', { action: 'workspace', workspace: ws });
    expect(again.text[0]).toBe(`on workspace ${ws}`);
  });

  it('wait_for survives the event connection dropping: a window opened after the drop is still seen', async () => {
    // matched on the app id: sway announces a new window before its title is set
    const appId = `faults.drop.${process.pid}`;
    const wait = outcome(s.pipeline.call('wait_for', { event: 'window_open', match: appId, timeout_s: 15 }));
    await waitFor(() => proxy.eventConnections > 0, scaledMs(5000), 'the event connection to sway');
    expect(proxy.dropEventConnections()).toBeGreaterThan(0);
    await sleep(600);
    const app = await launchFixture('foot', { args: ['-a', appId] });
    try {
      const r = await wait;
      if (r.err) expect(r.err.code).toBe('error.events');
      else expect(JSON.stringify((r.value as { data?: unknown }).data)).toContain(String(app.conId));
    } finally {
      await killFixture(app.pid);
    }
    expect((await s.pipeline.call('desktop', {})).data?.monitors).toBeTruthy();
  }, 30000);

  it('with the socket gone for good, calls fail fast with error.compositor instead of hanging', async () => {
    await proxy.unlisten();
    const r = await outcome(s.pipeline.call('desktop', {}));
    expect(r.err?.category).toBe('error');
    expect(r.err?.code).toMatch(/^error\.(compositor|ipc_closed)$/);
    expect(r.ms).toBeLessThan(scaledMs(3000));
    await proxy.listen();
    // back: the plugin reconnects by itself
    const next = await s.pipeline.call('desktop', {});
    expect((next.data?.monitors as unknown[]).length).toBe(2);
  });
});
