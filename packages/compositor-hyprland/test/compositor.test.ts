import { createConnection } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HypruseError, UnsupportedError, UsageError, type DesktopEvent } from '@hypruse/core';
import { HyprlandCompositor } from '../src/hyprland-compositor.js';
import { HyprlandCompositorFactory } from '../src/hyprland-compositor-factory.js';
import { socketsFor } from '../src/ipc/socket-paths.js';
// A test-local server on temp Unix sockets; `processes: 'fake'` starts no process.
import { HyprlandSimulator, shellWords, type SimulatorOptions } from '../../../tests/simulators/hyprland/index.js';

const running: Array<{ sim: HyprlandSimulator; comp: HyprlandCompositor }> = [];
async function setup(opts: SimulatorOptions = {}, requestTimeoutMs = 2000) {
  const sim = await new HyprlandSimulator({ processes: 'fake', ...opts }).start();
  const comp = new HyprlandCompositor({ sockets: socketsFor(sim.runtimeDir, sim.signature), inspector: sim.fakeInspector, requestTimeoutMs });
  running.push({ sim, comp });
  return { sim, comp };
}
afterEach(async () => {
  for (const { sim, comp } of running.splice(0)) {
    await comp.dispose();
    await sim.stop();
  }
});

async function nextOfType(sub: { next(ms: number): Promise<DesktopEvent | null> }, pred: (e: DesktopEvent) => boolean, ms = 2000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const e = await sub.next(Math.max(1, deadline - Date.now()));
    if (!e) return null;
    if (pred(e)) return e;
  }
}

describe.each([
  ['0.50', 'hyprlang'],
  ['0.54', 'hyprlang'],
  ['0.56', 'hyprlang'],
  ['0.56', 'lua'],
  ['main', 'lua'],
] as const)('Hyprland %s (%s) over real sockets', (version, provider) => {
  it('snapshot in one batch, and every window operation in the right dialect', async () => {
    const { sim, comp } = await setup({ version, configProvider: provider });
    const a = sim.openWindow({ class: 'foot', title: 'one' });
    const b = sim.openWindow({ class: 'gedit', title: 'two, with comma' });
    const before = sim.requests.length;
    const d = await comp.snapshot();
    expect(sim.requests.length - before).toBe(1);
    expect(sim.requests.at(-1)).toMatch(/^\[\[BATCH\]\]j\/monitors;j\/workspaces;j\/clients;j\/activewindow;j\/cursorpos;j\/layers$/);
    expect(d.windows.map((w) => w.title)).toEqual(['one', 'two, with comma']);
    expect(d.activeWindow).toBe(b.address);
    expect(await comp.dialect()).toBe(provider === 'lua' ? 'lua' : 'legacy');

    await comp.focusWindow(a.address);
    expect(sim.activeWindow).toBe(a.address);
    await comp.moveToWorkspace(b.address, '4', true);
    expect(sim.windows.find((w) => w.address === b.address)?.workspace).toBe(4);
    await comp.toggleFloating(a.address);
    expect(sim.windows.find((w) => w.address === a.address)?.floating).toBe(true);
    await comp.toggleFullscreen(a.address);
    expect(sim.windows.find((w) => w.address === a.address)?.fullscreen).toBe(2);
    await comp.moveCursor({ x: 2500.4, y: 300.6 });
    expect(sim.cursor).toEqual({ x: 2500, y: 301 });
    await comp.switchWorkspace('4');
    expect((await comp.snapshot()).activeWorkspace).toBe('4');
    await comp.tagWindow(a.address, 'hypruse-owned');
    expect(sim.windows.find((w) => w.address === a.address)?.tags).toEqual(['hypruse-owned']);
    expect(sim.dispatches.every((r) => r.dialect === provider)).toBe(true);
    expect(await comp.closeWindow(a.address, 1000)).toEqual({ status: 'closed' });
    expect(await comp.installMarkRule('hypruse-owned')).toBe(true);
    await comp.notify('hypruse opened foot', 2500);
    expect(sim.notifications).toEqual(['hypruse opened foot']);
    expect(await comp.locked()).toBe(false);
    sim.setLocked(true);
    expect(await comp.locked()).toBe(true);
  });
});

describe('state-changing actions are checked against the state read back over IPC', () => {
  it.each([['0.56', 'hyprlang'], ['main', 'lua']] as const)('%s: toggle_floating that Hyprland answers ok but does not apply is an error', async (version, provider) => {
    const { sim, comp } = await setup({ version, configProvider: provider });
    const dialog = sim.openWindow({ class: 'zenity', title: 'Question', staysFloating: true });
    const t0 = Date.now();
    await expect(comp.toggleFloating(dialog.address)).rejects.toMatchObject({
      code: 'error.compositor',
      message: `Hyprland answered ok to toggling floating on ${dialog.address}, but ${dialog.address} is still floating`,
    });
    expect(Date.now() - t0).toBeLessThan(4000);
    // Hyprland itself says ok to the very same request
    expect(sim.windows.find((w) => w.address === dialog.address)?.floating).toBe(true);
    // a window that does change passes
    const foot = sim.openWindow({ class: 'foot' });
    await comp.toggleFloating(foot.address);
    expect(sim.windows.find((w) => w.address === foot.address)?.floating).toBe(true);
  });

  it('fullscreen, move and workspace are read back too; relative workspace selectors are checked for a change', async () => {
    const { sim, comp } = await setup({ version: 'main', configProvider: 'lua' });
    const a = sim.openWindow({ class: 'foot' });
    await comp.toggleFullscreen(a.address);
    expect(sim.windows[0].fullscreen).toBe(2);
    await comp.toggleFullscreen(null);
    expect(sim.windows[0].fullscreen).toBe(0);
    await comp.moveToWorkspace(a.address, 'name:mail', true);
    expect(sim.workspaces.find((w) => w.id === sim.windows[0].workspace)?.name).toBe('mail');
    await comp.switchWorkspace('3');
    expect((await comp.snapshot()).activeWorkspace).toBe('3');
  });
});

describe('`fullscreen>>1` is also sent for maximize: events and state tell the two apart', () => {
  it.each([['0.56', 'hyprlang'], ['main', 'lua']] as const)('%s (%s)', async (version, provider) => {
    const { sim, comp } = await setup({ version, configProvider: provider });
    const a = sim.openWindow({ class: 'foot' });
    sim.openWindow({ class: 'gedit' });
    const sub = await comp.subscribe();
    const modeEvent = (e: DesktopEvent) => e.type === 'fullscreen' || (e.type === 'other' && ['maximize', 'fullscreen'].includes(e.name));
    // the user maximizes the window: Hyprland says `fullscreen>>1`, which is not fullscreen
    sim.setFullscreenMode(a.address, 1);
    expect(await nextOfType(sub, modeEvent)).toEqual({ type: 'other', name: 'maximize', data: `${a.address.slice(2)},1` });
    expect(comp.reader.raw.filter((r) => r.name === 'fullscreen')).toEqual([{ name: 'fullscreen', data: '1' }]);
    const w = (await comp.snapshot()).windows.find((x) => x.address === a.address)!;
    expect([w.fullscreen, w.extra?.maximized]).toEqual([false, true]);
    // toggling fullscreen on a maximized window must end in fullscreen, and the event names the window
    await comp.toggleFullscreen(a.address);
    expect(sim.windows.find((x) => x.address === a.address)?.fullscreen).toBe(2);
    const evs = [await nextOfType(sub, modeEvent), await nextOfType(sub, modeEvent)];
    expect(evs).toEqual([{ type: 'fullscreen', address: a.address, fullscreen: true }, { type: 'other', name: 'maximize', data: `${a.address.slice(2)},0` }]);
    await comp.toggleFullscreen(a.address);
    expect(await nextOfType(sub, modeEvent)).toEqual({ type: 'fullscreen', address: a.address, fullscreen: false });
    expect(sim.windows.find((x) => x.address === a.address)?.fullscreen).toBe(0);
    sub.close();
  });
});

describe('dialect switching', () => {
  it('re-probes once when a legacy dispatch gets the Lua syntax-error note, then speaks Lua', async () => {
    const { sim, comp } = await setup({ version: '0.56', configProvider: 'hyprlang' });
    const w = sim.openWindow({ class: 'foot' });
    await comp.focusWindow(w.address);
    expect(comp.dispatcher.probes).toBe(1);
    sim.setConfigProvider('lua');
    await comp.focusWindow(w.address);
    expect(comp.dispatcher.probes).toBe(2);
    expect(await comp.dialect()).toBe('lua');
    // the legacy attempt was refused with the real note, then the Lua form ran
    const legacyTry = sim.requests.findLast((r) => r.startsWith('dispatch focuswindow'));
    expect(sim.handle(legacyTry as string)).toContain('dispatch in lua is a shorthand');
    expect(sim.dispatches.at(-1)).toEqual({ dialect: 'lua', name: 'focus', args: { window: `address:${w.address}` } });
  });

  it('and back: a Lua dispatch answered "Invalid dispatcher" switches to legacy', async () => {
    const { sim, comp } = await setup({ version: '0.56', configProvider: 'lua' });
    const w = sim.openWindow({ class: 'foot' });
    await comp.toggleFloating(w.address);
    sim.setConfigProvider('hyprlang');
    await comp.toggleFloating(w.address);
    expect(await comp.dialect()).toBe('legacy');
    expect(sim.windows[0].floating).toBe(false);
    expect(sim.dispatches.at(-1)?.dialect).toBe('hyprlang');
  });

  it('a genuine refusal is reported with Hyprland\'s text, without re-probing', async () => {
    const { sim, comp } = await setup({ version: '0.56', configProvider: 'lua' });
    await expect(comp.switchWorkspace('e~x')).rejects.toMatchObject({ code: 'error.compositor', message: expect.stringContaining('Invalid workspace e~x') });
    expect(comp.dispatcher.probes).toBe(1);
    // a window that is gone is not_found.window, before anything is dispatched
    const w = sim.openWindow({ class: 'foot' });
    sim.closeWindowNow(w.address);
    const n = sim.dispatches.length;
    await expect(comp.focusWindow(w.address)).rejects.toMatchObject({ code: 'not_found.window' });
    await expect(comp.closeWindow(w.address, 100)).rejects.toMatchObject({ code: 'not_found.window' });
    expect(sim.dispatches.length).toBe(n);
  });

  it('runs legacy-style binds on a Lua config through their Lua translation, refuses what has none', async () => {
    const { sim, comp } = await setup({ version: 'main' });
    expect(await comp.runBind({ combo: 'SUPER+3', action: 'workspace', arg: '3' })).toBe('ran SUPER+3: workspace 3');
    expect(sim.dispatches.at(-1)).toEqual({ dialect: 'lua', name: 'focus', args: { workspace: '3' } });
    sim.openWindow({ class: 'foot' });
    await comp.runBind({ combo: 'SUPER+SHIFT+4', action: 'movetoworkspacesilent', arg: '4' });
    expect(sim.windows[0].workspace).toBe(4);
    await expect(comp.runBind({ combo: 'SUPER+P', action: 'pin', arg: '' })).rejects.toBeInstanceOf(UnsupportedError);
    await expect(comp.runBind({ combo: 'SUPER+X', action: 'workspace', arg: '1") hl.dsp.exit() --' })).rejects.toMatchObject({ code: 'usage.workspace' });
    expect(await comp.version()).toBe('Hyprland 0.57.0');
  });

  it('≤0.54 has no status request: legacy', async () => {
    const { comp } = await setup({ version: '0.54' });
    expect(await comp.dialect()).toBe('legacy');
  });
});

describe('no injection through hostile strings', () => {
  const hostile = `x") hl.dsp.exit() --]] .. os.exit() \n"; rm -rf ~ '`;

  it.each(['lua', 'hyprlang'] as const)('launch command reaches exec unchanged (%s)', async (provider) => {
    const { sim, comp } = await setup({ version: '0.56', configProvider: provider });
    const r = await comp.launch(provider === 'lua' ? hostile : hostile.replace('\n', ' '), { timeoutMs: 150 });
    expect(r.window).toBeNull();
    const exec = sim.dispatches.find((d) => d.name === 'exec_cmd' || d.name === 'exec');
    const words = shellWords(exec?.args.command as string);
    expect(words.slice(-3, -1)).toEqual(['sh', '-c']);
    expect(words.at(-1)).toBe(provider === 'lua' ? hostile : hostile.replace('\n', ' '));
    expect(sim.dispatches.filter((d) => d.name !== 'exec_cmd' && d.name !== 'exec')).toEqual([]);
  });

  it.each(['lua', 'hyprlang'] as const)('hostile workspace names are refused before anything is sent (%s)', async (provider) => {
    const { sim, comp } = await setup({ version: '0.56', configProvider: provider });
    const w = sim.openWindow({ class: 'foot' });
    const n = sim.requests.length;
    for (const ws of ['3,address:0x1', '1") hl.dsp.exit() --', '2] x', 'a\nb']) {
      await expect(comp.switchWorkspace(ws)).rejects.toMatchObject({ code: 'usage.workspace' });
      await expect(comp.moveToWorkspace(w.address, ws, true)).rejects.toBeInstanceOf(UsageError);
      await expect(comp.launch('foot', { workspace: ws, timeoutMs: 100 })).rejects.toBeInstanceOf(UsageError);
    }
    expect(sim.requests.length).toBe(n);
  });
});

describe('event stream', () => {
  it('maps live socket2 events and recovers from a dropped event socket with a resync signal', async () => {
    const { sim, comp } = await setup({ version: '0.56' });
    const sub = await comp.subscribe();
    const w = sim.openWindow({ class: 'foot', title: 'a, b' });
    expect(await nextOfType(sub, (e) => e.type === 'window_open')).toEqual({ type: 'window_open', address: w.address, workspace: '1', class: 'foot', title: 'a, b' });
    sim.dropEventClients();
    expect(await nextOfType(sub, (e) => e.type === 'resync')).toEqual({ type: 'resync', reason: expect.stringContaining('snapshot') });
    expect(comp.reader.reconnects).toBe(1);
    sim.setTitle(w.address, 'renamed, again');
    expect(await nextOfType(sub, (e) => e.type === 'title_change')).toEqual({ type: 'title_change', address: w.address, title: 'renamed, again' });
    sub.close();
  });

  it('drains continuously: a flood does not get hypruse dropped, while a stalled client is', async () => {
    const { sim, comp } = await setup({ version: '0.56' });
    const sub = await comp.subscribe();
    const stalled = createConnection(sim.eventsPath);
    await new Promise((r) => stalled.once('connect', r));
    stalled.pause();
    await new Promise((r) => setTimeout(r, 20));
    expect(sim.eventClientCount).toBe(2);
    // 2000 events of 1 KiB in bursts of 50 per tick: the stalled client's backlog passes 64 and Hyprland drops it
    for (let i = 0; i < 40; i++) {
      sim.flood(50, 1000);
      await new Promise((r) => setImmediate(r));
    }
    for (let i = 0; i < 100 && sim.eventClientCount > 1; i++) await new Promise((r) => setTimeout(r, 20));
    expect(sim.eventClientCount).toBe(1);
    stalled.destroy();
    const w = sim.openWindow({ class: 'after-flood' });
    expect(await nextOfType(sub, (e) => e.type === 'window_open', 5000)).toMatchObject({ address: w.address });
    expect(comp.reader.reconnects).toBe(0);
    expect(sim.eventClientCount).toBe(1);
    sub.close();
  });

  it('a subscription fails with a typed error when the compositor is gone for good', async () => {
    const { sim, comp } = await setup({ version: '0.56' });
    const sub = await comp.subscribe();
    await sim.stop();
    running.length = 0;
    await expect(nextOfType(sub, () => false, 8000)).rejects.toMatchObject({ code: 'error.events' });
    await comp.dispose();
  });
});

describe('launch', () => {
  it('is not fooled by an unrelated window opening at the same time', async () => {
    const { sim, comp } = await setup({ version: '0.56' });
    let intruder = '';
    sim.onExec = () => {
      intruder = sim.openWindow({ class: 'intruder', title: 'not mine' }).address;
    };
    const r = await comp.launch('fake-app --class mine --title launched --delay 250', { timeoutMs: 3000, workspace: '3' });
    expect(intruder).not.toBe('');
    expect(r.window?.class).toBe('mine');
    expect(r.window?.address).not.toBe(intruder);
    expect(r.window?.workspace).toBe('3');
    expect(r.pid).toBe(r.window?.pid);
    expect(r.relocated).toBeUndefined();
  });

  it('passes the workspace rule in both dialects and the extra env to the process', async () => {
    for (const provider of ['lua', 'hyprlang'] as const) {
      const { comp } = await setup({ version: '0.56', configProvider: provider });
      const r = await comp.launch('fake-app --class envy', { timeoutMs: 2000, workspace: 'name:web', env: { MY_VAR: "it's" } });
      expect(r.window?.class).toBe('envy');
      expect(r.window?.extra?.workspaceName).toBe('web');
      expect(r.relocated).toBeUndefined();
    }
  });

  it('never adopts a window handed over to an already running instance (another process): says so instead', async () => {
    const { sim, comp } = await setup({ version: '0.56' });
    const first = await comp.launch('fake-app --class browser --single-instance', { timeoutMs: 2000 });
    expect(first.window?.workspace).toBe('1');
    const r = await comp.launch('fake-app --class browser --single-instance --delay 20', { timeoutMs: 1500, workspace: '5' });
    expect(r.window).toBeNull();
    const handed = sim.windows.find((w) => w.class === 'browser' && w.address !== first.window?.address)!;
    expect(handed).toBeDefined();
    expect(r.note).toContain(`1 other window opened meanwhile (${handed.address})`);
    expect(r.note).toMatch(/launched process has exited: a single-instance app may have handed over/);
    expect(handed.workspace).not.toBe(5);
  });

  it('says so when no window of its own appears', async () => {
    const { comp } = await setup({ version: '0.54' });
    const r = await comp.launch('fake-app --no-window', { timeoutMs: 300 });
    expect(r).toMatchObject({ pid: null, window: null, note: expect.stringMatching(/no window of that process appeared within 0\.3s/) });
  });
});

describe('close, binds, failures', () => {
  it('close reports still_open when the app keeps the window (prompting)', async () => {
    const { sim, comp } = await setup({ version: '0.56' });
    const w = sim.openWindow({ class: 'editor', title: 'unsaved refuse-close' });
    expect(await comp.closeWindow(w.address, 300)).toEqual({ status: 'still_open' });
  });

  it('runs legacy binds by their dispatcher and explains Lua binds instead of failing cryptically', async () => {
    const legacy = await setup({ version: '0.54' });
    legacy.sim.openWindow({ class: 'foot' });
    const lb = await legacy.comp.binds();
    expect(await legacy.comp.runBind(lb.find((b) => b.combo === 'SUPER+SHIFT+1')!)).toBe('ran SUPER+SHIFT+1: movetoworkspace 1');
    expect(legacy.sim.dispatches.at(-1)).toMatchObject({ dialect: 'hyprlang', name: 'movetoworkspace' });
    const lua = await setup({ version: '0.56', configProvider: 'lua' });
    const binds = await lua.comp.binds();
    expect(binds.every((b) => b.lua)).toBe(true);
    await expect(lua.comp.runBind(binds[0])).rejects.toBeInstanceOf(UnsupportedError);
    await expect(lua.comp.runBind(binds[0])).rejects.toThrowError(/Lua bind.*cannot be run/);
  });

  it.each([
    ['0.50', 'hyprlang', 'windowrulev2 bordercolor rgb(ff5555), tag:hypruse-owned'],
    ['0.54', 'hyprlang', 'windowrule match:tag hypruse-owned, border_color rgb(ff5555)'],
    ['0.56', 'hyprlang', 'windowrule match:tag hypruse-owned, border_color rgb(ff5555)'],
    ['0.56', 'lua', 'lua window_rule tag=hypruse-owned border_color=rgb(ff5555)'],
    ['main', 'lua', 'lua window_rule tag=hypruse-owned border_color=rgb(ff5555)'],
  ] as const)('%s (%s): the MARK rule is written in the grammar of the version and really colours a tagged window', async (version, provider, rule) => {
    const { sim, comp } = await setup({ version, configProvider: provider });
    const w = sim.openWindow({ class: 'foot' });
    expect(await comp.installMarkRule('hypruse-owned')).toBe(true);
    expect(sim.rules).toEqual([rule]);
    await comp.tagWindow(w.address, 'hypruse-owned');
    expect(sim.borderColorOf(w.address)).toBe('rgb(ff5555)');
  });

  it('0.53-0.56 accept a rule without match: (the tag effect) with ok, matching nothing: that form is never sent', async () => {
    const { sim } = await setup({ version: '0.56', configProvider: 'hyprlang' });
    const w = sim.openWindow({ class: 'foot', title: 't' });
    expect(sim.handle('keyword windowrule border_color rgb(ff5555), tag hypruse-owned')).toBe('ok');
    sim.handle(`dispatch tagwindow +hypruse-owned address:${w.address}`);
    expect(sim.borderColorOf(w.address)).toBeNull();
    // and 0.50-0.52 reject the 0.53+ form outright
    const old = await setup({ version: '0.50' });
    expect(old.sim.handle('keyword windowrule match:tag x, border_color rgb(ff5555)')).toMatch(/^config error/);
  });

  it('slow, garbage and dropped replies become typed errors, never hangs', async () => {
    const { sim, comp } = await setup({ version: '0.56' }, 300);
    sim.failNext({ mode: 'slow', delayMs: 1000 });
    const t0 = Date.now();
    await expect(comp.snapshot()).rejects.toMatchObject({ code: 'error.compositor', message: expect.stringMatching(/did not answer .* within 300 ms/) });
    expect(Date.now() - t0).toBeLessThan(900);
    sim.failNext({ mode: 'garbage' });
    await expect(comp.snapshot()).rejects.toMatchObject({ code: 'error.compositor', message: expect.stringContaining('not JSON') });
    // a read-only query dropped before any reply byte is sent once more (a busy Hyprland drops late-accepted connections)
    sim.failNext({ mode: 'drop' });
    expect((await comp.snapshot()).monitors).toHaveLength(2);
    sim.failNext({ mode: 'drop' }, { mode: 'drop' });
    await expect(comp.snapshot()).rejects.toMatchObject({ code: 'error.ipc_closed' });
    sim.failNext({ mode: 'silent' });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    await expect(comp.snapshot(ac.signal)).rejects.toMatchObject({ code: 'cancelled.request' });
    expect((await comp.snapshot()).monitors).toHaveLength(2);
  });
});

describe('HyprlandCompositorFactory', () => {
  it('detects from the signature, discovers when it is unset or stale, declines with a reason, never throws', async () => {
    const { sim } = await setup({ version: '0.56' });
    const f = new HyprlandCompositorFactory();
    const rt = sim.runtimeDir;
    expect(await f.detect({ env: { HYPRLAND_INSTANCE_SIGNATURE: sim.signature }, runtimeDir: rt })).toMatchObject({ ok: true, env: { HYPRLAND_INSTANCE_SIGNATURE: sim.signature } });
    expect(await f.detect({ env: {}, runtimeDir: rt })).toMatchObject({ ok: true, detail: expect.stringContaining('discovered') });
    expect(await f.detect({ env: { HYPRLAND_INSTANCE_SIGNATURE: 'old_123_456' }, runtimeDir: rt })).toMatchObject({ ok: true, detail: expect.stringContaining('stale') });
    expect(await f.detect({ env: {}, runtimeDir: null })).toMatchObject({ ok: false, reason: expect.any(String) });
    expect(await f.detect({ env: {}, runtimeDir: '/nonexistent-dir' })).toMatchObject({ ok: false, reason: expect.stringContaining('HYPRLAND_INSTANCE_SIGNATURE is unset') });
    expect(await f.detect({ env: { HYPRLAND_INSTANCE_SIGNATURE: '../x' }, runtimeDir: rt })).toMatchObject({ ok: false });
    const comp = await f.create({ env: {}, runtimeDir: rt });
    expect(comp.capabilities.has('capture.toplevel')).toBe(true);
    expect((await comp.snapshot()).compositor).toBe('hyprland');
    await comp.dispose();
  });

  it('capture.toplevel only from 0.54', async () => {
    const { sim } = await setup({ version: '0.50' });
    const comp = await new HyprlandCompositorFactory().create({ env: { HYPRLAND_INSTANCE_SIGNATURE: sim.signature }, runtimeDir: sim.runtimeDir });
    expect(comp.capabilities.has('capture.toplevel')).toBe(false);
    expect(comp.unsupportedReason('capture.toplevel')).toMatch(/0\.54/);
    await comp.dispose();
  });
});

void HypruseError;
