// The tool suite on a real compositor (Hyprland 0.57, sway 1.12 or labwc 0.20)
// inside the real-compositor guest, through the built server in one long-lived
// process. Every effect is verified outside hypruse: the compositor's own client
// (hyprctl / swaymsg; labwc has no IPC: wlrctl and wlr-randr, its own
// wlr-foreign-toplevel and output-management clients), the app's stdout (zenity prints the entry text when OK
// is pressed; the GTK 3 probe prints its events), pixels read back with grim
// and decoded with sharp, and the built CLI's doctor. Runs only in the guest
// (tests/real/run.mjs); HYPRUSE_REAL_COMPOSITOR says which compositor.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startServer, startServerExactEnv, type Server } from '../support/server.js';
import {
  hyprctl, hyprctlJson, realCompositor, scaled, sessionEnv, sleep, swaymsg, swayWindows, until, windowOfPid, wlrOutputs, wlrctlFinds,
  type HyprClient, type SwayNode,
} from './support/session.js';

const run = promisify(execFile);
const comp = realCompositor();
if (!comp) throw new Error('tests/real/tools.test.ts runs only inside the real-compositor guest (node tests/real/run.mjs)');
const PROBE = join(import.meta.dirname, 'fixtures/gtk3-probe.py');
const RUN = Date.now().toString(36);
const work = mkdtempSync(join(tmpdir(), 'hypruse-real-tools-'));
chmodSync(work, 0o777);
/** labwc is reached through the Wayland protocols alone: no pids, no window positions, no window's workspace. */
const NO_IPC = comp === 'labwc';
/**
 * A test that applies to some of the guest's compositors only is defined only there: under CI a
 * skipped test counts as a failure, and a test that cannot apply is not one that was left out.
 */
const where = (applies: boolean): typeof it => (applies ? it : ((() => undefined) as unknown as typeof it));

interface Geo {
  x: number;
  y: number;
  w: number;
  h: number;
  workspace: string;
  floating: boolean;
  fullscreen: boolean;
}

/** A window's geometry and state as the compositor's own client reports it. */
async function geometryOf(address: string): Promise<Geo | null> {
  if (NO_IPC) throw new Error('labwc reports no window geometry to any client');
  if (comp === 'hyprland') {
    const c = (await hyprctlJson<HyprClient[]>('clients')).find((x) => x.address === address);
    return c ? { x: c.at[0], y: c.at[1], w: c.size[0], h: c.size[1], workspace: c.workspace.name, floating: c.floating, fullscreen: c.fullscreen > 0 } : null;
  }
  const n = swayWindows(await swaymsg<SwayNode>('get_tree')).find((x) => String(x.id) === address) as (SwayNode & { workspace: string; fullscreen_mode?: number; type: string }) | undefined;
  return n ? { x: n.rect.x, y: n.rect.y, w: n.rect.width, h: n.rect.height, workspace: n.workspace, floating: n.type === 'floating_con', fullscreen: (n.fullscreen_mode ?? 0) > 0 } : null;
}

async function fullscreen(address: string): Promise<void> {
  if (comp === 'hyprland') {
    const r = await hyprctl('dispatch', `hl.dsp.window.fullscreen({ mode = "fullscreen", action = "toggle", window = "address:${address}" })`);
    if (r !== 'ok') throw new Error(`hyprctl fullscreen: ${r}`);
  } else {
    await swaymsg('command', `[con_id=${address}] fullscreen enable`);
  }
  await until(`${address} fullscreen`, async () => (await geometryOf(address))?.fullscreen, scaled(5000));
}

async function switchWorkspace(name: string): Promise<void> {
  if (comp === 'hyprland') await hyprctl('dispatch', `hl.dsp.focus({ workspace = "${name}" })`);
  else await swaymsg('command', `workspace ${name}`);
}

/** A started app whose stdout is collected. */
interface App {
  child: ChildProcess;
  out: () => string;
}
const apps: App[] = [];
function startProbe(title: string, color: string): App {
  const child = spawn('python3', [PROBE, title, color], { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', () => undefined);
  const app = { child, out: () => out };
  apps.push(app);
  return app;
}

/** RGB at a pixel of a PNG file. */
async function pixelsOf(file: string) {
  const sharp = (await import('sharp')).default;
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    info,
    at(x: number, y: number): [number, number, number] {
      const i = (Math.round(y) * info.width + Math.round(x)) * info.channels;
      return [data[i], data[i + 1], data[i + 2]];
    },
  };
}
const near = (p: [number, number, number], q: [number, number, number], tol = 40) => p.every((v, i) => Math.abs(v - q[i]) <= tol);

/** The outputs and their scales as the compositor's own client reports them. */
async function realMonitors(): Promise<Array<[string, number]>> {
  if (comp === 'hyprland') return (await hyprctlJson<Array<{ name: string; scale: number }>>('monitors')).map((m): [string, number] => [m.name, m.scale]).sort();
  if (NO_IPC) return (await wlrOutputs()).map((o): [string, number] => [o.name, o.scale]).sort();
  return (await swaymsg<Array<{ name: string; scale: number; active: boolean }>>('get_outputs')).filter((o) => o.active).map((o): [string, number] => [o.name, o.scale]).sort();
}

async function zenityOut(file: string): Promise<string> {
  await until('zenity printed its answer', async () => readFileSync(file, 'utf8') !== '', scaled(8000)).catch(() => undefined);
  return readFileSync(file, 'utf8');
}

describe(`tool suite on real ${comp}`, () => {
  let server: Server;

  /**
   * Open a window as an agent would: launch; where the compositor tells no pid (labwc), launch is refused
   * as unsupported with its reason and the program is started with a plain command, its window found by
   * its unique title in wlrctl's list and then in desktop.
   */
  async function open(command: string, title: string, workspace: string): Promise<{ address: string; pid: number }> {
    const l = await server.call('launch', { command, workspace, wait_s: 30 });
    if (!NO_IPC) {
      expect(l.isError, l.text.join('\n')).toBe(false);
      return { address: String(l.data.address), pid: Number(l.data.pid) };
    }
    expect(l.isError, 'launch without a pid from the compositor is refused').toBe(true);
    expect(l.text.join('\n')).toMatch(/not supported[^]*reports no pid/);
    const child = spawn('sh', ['-c', `exec ${command}`], { env: process.env, stdio: 'ignore' });
    apps.push({ child, out: () => '' });
    await until(`wlrctl lists "${title}"`, () => wlrctlFinds(title), scaled(20000));
    const address = await until(`desktop lists "${title}"`, async () => {
      const d = await server.call('desktop');
      return (d.data.windows as Array<{ address: string; title: string }>).find((w) => w.title === title)?.address;
    }, scaled(10000));
    return { address, pid: child.pid! };
  }

  /** Whether a window is gone, as the compositor's own client sees it. */
  const gone = async (address: string, title: string) => (NO_IPC ? !(await wlrctlFinds(title)) : (await geometryOf(address)) === null);

  beforeAll(async () => {
    // HYPRUSE_TAKEOVER_MS=0 as for every end-to-end server: the suite's own input is the only input on this
    // seat, and under TCG it reaches the idle notifier late enough to count as the person's (doctor below still
    // checks the idle-notify route with the default setting). HYPRUSE_INDICATOR=0 as for every server whose
    // test compares grim's pixels: and its fades make the compositor render frames with llvmpipe under TCG.
    server = await startServer(sessionEnv(), { HYPRUSE_TAKEOVER_MS: '0', HYPRUSE_INDICATOR: '0' });
    // the first call pays the server's own start-up (several seconds in the guest)
    const d = await server.call('desktop');
    expect(d.isError, d.text.join('\n')).toBe(false);
  });

  afterAll(async () => {
    await server?.close();
    for (const a of apps) if (a.child.exitCode === null) a.child.kill('SIGTERM');
  });

  it('desktop lists both outputs with their scales, one of them fractional, as the compositor does', async () => {
    const d = await server.call('desktop');
    expect(d.isError, d.text.join('\n')).toBe(false);
    const mons = (d.data.monitors as Array<{ name: string; scale: number; geometry: number[] }>).map((m) => [m.name, m.scale]).sort();
    expect(mons).toEqual(await realMonitors());
    expect(mons.map((m) => m[1]).sort()).toEqual([1, 1.5]);
  });

  it('launch (a plain start where no pid is known) opens a GTK 4 zenity dialog; ui reads its controls; keyboard types; click_ui OK (Return where no window position is known) closes it and zenity prints the text', async () => {
    const out = join(work, `zenity-${RUN}.out`);
    const title = `real entry ${RUN}`;
    const { address: addr } = await open(`zenity --entry --title='${title}' --text='Name?' > ${out}`, title, '2');
    const g = NO_IPC ? null : await geometryOf(addr);
    if (!NO_IPC) {
      expect(g, 'the launched window exists in the compositor').not.toBeNull();
      expect(g!.workspace).toBe('2');
    }
    if (NO_IPC) {
      // no window position: ui and click_ui, which give and use points on the screen, refuse with the reason;
      // reading and typing need none (AT-SPI, and keys into the activated window), and Return answers OK
      const u = await server.call('ui', { window: addr });
      expect(u.isError, 'ui of a window without a position').toBe(true);
      expect(u.text.join('\n')).toMatch(/not supported[^]*no window position/);
      const t = await server.call('get_text', { window: addr });
      expect(t.isError, t.text.join('\n')).toBe(false);
      expect(t.text.join('\n')).toContain('Name?');
      const c = await server.call('click_ui', { name: 'OK', window: addr });
      expect(c.isError, 'click_ui needs the point of OK').toBe(true);
      expect(c.text.join('\n')).toMatch(/not supported[^]*no window position/);
      for (const step of [{ action: 'type', text: 'real wörld ✓' }, { action: 'key', keys: 'Return' }]) {
        const k = await server.call('keyboard', { ...step, window: addr });
        expect(k.isError, k.text.join('\n')).toBe(false);
      }
      expect(await zenityOut(out)).toBe('real wörld ✓\n');
      await until(`${addr} closed`, () => gone(addr, title), scaled(5000));
      return;
    }
    const u = await server.call('ui', { window: addr });
    expect(u.isError, u.text.join('\n')).toBe(false);
    const els = u.data.elements as Array<{ role: string; name: string; x: number; y: number }>;
    // GTK 4 names the role "button", GTK 3 "push button"
    const ok = els.find((e) => (e.role === 'push button' || e.role === 'button') && e.name === 'OK');
    expect(ok, `OK among ${els.map((e) => `${e.role} "${e.name}"`).join(', ')}`).toBeDefined();
    expect(els.some((e) => e.role === 'text' || e.role === 'entry' || e.role === 'text box')).toBe(true);
    if (g) expect(ok!.x >= g.x && ok!.x < g.x + g.w && ok!.y >= g.y && ok!.y < g.y + g.h, `OK at ${ok!.x},${ok!.y} inside ${JSON.stringify(g)}`).toBe(true);
    const k = await server.call('keyboard', { action: 'type', text: 'real wörld ✓', window: addr });
    expect(k.isError, k.text.join('\n')).toBe(false);
    const c = await server.call('click_ui', { name: 'OK', window: addr });
    expect(c.isError, c.text.join('\n')).toBe(false);
    expect(await zenityOut(out)).toBe('real wörld ✓\n');
    await until(`${addr} closed`, () => gone(addr, title), scaled(5000));
  });

  it('click_ui (act where no window position is known) toggles a GTK 3 check button (the app reports it) and types into its entry', async () => {
    // started as an agent starts an app: launch answers once the new window stopped moving (sway gives a
    // new tiled window its place after it first maps; a click on the points read before that can miss)
    const log = join(work, `probe-${RUN}.out`);
    const { address, pid } = await open(`python3 ${PROBE} 'real probe ${RUN}' '#3060c0' > ${log}`, `real probe ${RUN}`, '5');
    const w = { address };
    const app = { out: () => (existsSync(log) ? readFileSync(log, 'utf8') : ''), child: { kill: (sig: NodeJS.Signals) => { try { process.kill(pid, sig); } catch { /* gone */ } } } };
    if (NO_IPC) {
      // no point to click: act checks the box over AT-SPI, and puts the keyboard focus on the entry
      const a = await server.call('act', { action: 'check', name: 'Real check', window: w.address });
      expect(a.isError, a.text.join('\n')).toBe(false);
      const f = await server.call('act', { action: 'focus', role: 'text', window: w.address });
      expect(f.isError, f.text.join('\n')).toBe(false);
    } else {
      const c = await server.call('click_ui', { name: 'Real check', window: w.address });
      expect(c.isError, c.text.join('\n')).toBe(false);
    }
    await until('the probe reported the toggle', async () => app.out().includes('toggled 1'), scaled(5000));
    // the click left the focus on the check button: Tab moves it to the entry (act focus put it there)
    for (const step of [...(NO_IPC ? [] : [{ action: 'key', keys: 'Tab' }]), { action: 'type', text: 'gtk3 ok' }, { action: 'key', keys: 'Return' }]) {
      const k = await server.call('keyboard', { ...step, window: w.address });
      expect(k.isError, k.text.join('\n')).toBe(false);
    }
    await until('the probe reported the entry', async () => app.out().includes('activate gtk3 ok'), scaled(5000));
    app.child.kill('SIGTERM');
  });

  where(!NO_IPC)('a window screenshot of a covered window shows its own pixels, not the window covering it', async () => {
    await switchWorkspace('4');
    const red = startProbe(`real covered ${RUN}`, '#e01010');
    const a = await until('the red probe mapped', () => windowOfPid(comp, red.child.pid!), scaled(20000));
    const blue = startProbe(`real cover ${RUN}`, '#1010e0');
    const b = await until('the blue probe mapped', () => windowOfPid(comp, blue.child.pid!), scaled(20000));
    await fullscreen(b.address);
    const ga = (await geometryOf(a.address))!;
    const gb = (await geometryOf(b.address))!;
    // independent reader: the screen at the centre of the covered window is the cover's blue
    const cx = Math.round(ga.x + ga.w / 2);
    const cy = Math.round(ga.y + ga.h * 0.75);
    expect(cx >= gb.x && cx < gb.x + gb.w && cy >= gb.y && cy < gb.y + gb.h).toBe(true);
    const screenFile = join(work, `screen-${RUN}.png`);
    await until('the cover is on screen', async () => {
      await run('grim', ['-g', `${cx},${cy} 1x1`, screenFile], { timeout: scaled(10000) });
      return near((await pixelsOf(screenFile)).at(0, 0), [0x10, 0x10, 0xe0]);
    }, scaled(15000));
    const s = await server.call('screenshot', { window: a.address, lossless: true });
    expect(s.isError, s.text.join('\n')).toBe(false);
    const meta = s.data as { path: string; geometry: number[]; scale: number; source?: string };
    expect(meta.source, 'the window is captured from its own pixels, not cropped from the screen').toBe('window');
    const px = await pixelsOf(meta.path);
    const p = px.at((cx - meta.geometry[0]) * meta.scale, (cy - meta.geometry[1]) * meta.scale);
    expect(p, `pixel at the covered point is ${p}`).toSatisfy((v: [number, number, number]) => near(v, [0xe0, 0x10, 0x10]));
    red.child.kill('SIGTERM');
    blue.child.kill('SIGTERM');
  });

  where(NO_IPC)('wm fullscreen and close_window through the protocols (wlrctl sees both); a window screenshot is refused as unsupported with the reason', async () => {
    const title = `real wm ${RUN}`;
    const probe = startProbe(title, '#e01010');
    await until(`wlrctl lists "${title}"`, () => wlrctlFinds(title), scaled(20000));
    const address = await until(`desktop lists "${title}"`, async () => {
      const d = await server.call('desktop');
      const w = (d.data.windows as Array<{ address: string; title: string; at: unknown; position_unknown?: string }>).find((x) => x.title === title);
      if (w) expect(w.at === null && /no window position/.test(w.position_unknown ?? ''), JSON.stringify(w)).toBe(true);
      return w?.address;
    }, scaled(10000));
    const f = await server.call('wm', { action: 'fullscreen', target: address });
    expect(f.isError, f.text.join('\n')).toBe(false);
    await until(`wlrctl sees "${title}" fullscreen`, () => wlrctlFinds(title, 'fullscreen'), scaled(5000));
    const s = await server.call('screenshot', { window: address });
    expect(s.isError, 'a window without a reported position cannot be captured by itself').toBe(true);
    expect(s.text.join('\n')).toMatch(/not supported[^]*no window position/);
    const c = await server.call('wm', { action: 'close_window', target: address });
    expect(c.isError, c.text.join('\n')).toBe(false);
    await until(`"${title}" closed`, async () => !(await wlrctlFinds(title)), scaled(5000));
    await until('the probe exited', async () => probe.child.exitCode !== null || probe.child.signalCode !== null, scaled(5000));
  });

  where(NO_IPC)('desktop lists the workspaces labwc offers through ext-workspace-v1, windows on none it could know; wm workspace switches them: a probe window leaves the screen and comes back (grim)', async () => {
    const d = await server.call('desktop');
    expect(d.isError, d.text.join('\n')).toBe(false);
    const wss = d.data.workspaces as Array<{ id: string | number; name: string; windows: number | null; visible: boolean }>;
    // rc.xml: <desktops number="4"/>; one of them shown
    expect(wss.length, JSON.stringify(wss)).toBe(4);
    expect(wss.filter((w) => w.visible)).toHaveLength(1);
    expect(wss.every((w) => w.windows === null), 'ext-workspace-v1 tells no window membership').toBe(true);
    const shown = wss.find((w) => w.visible)!.name;
    const other = wss.find((w) => !w.visible)!.name;
    const title = `real workspace ${RUN}`;
    const probe = startProbe(title, '#e01010');
    await until(`wlrctl lists "${title}"`, () => wlrctlFinds(title), scaled(20000));
    const w = await until(`desktop lists "${title}"`, async () => {
      const x = await server.call('desktop');
      return (x.data.windows as Array<{ address: string; title: string; workspace: unknown; workspace_unknown?: string }>).find((y) => y.title === title);
    }, scaled(10000));
    expect([w.workspace, /ext-workspace-v1/.test(w.workspace_unknown ?? '')], JSON.stringify(w)).toEqual([null, true]);
    // the address is the window's ext-foreign-toplevel-list-v1 identifier, the same on every connection: a
    // second server, with a Wayland connection of its own, gives the window the same one
    const second = await startServer(sessionEnv(), { HYPRUSE_TAKEOVER_MS: '0', HYPRUSE_INDICATOR: '0' });
    try {
      const d2 = await second.call('desktop');
      expect((d2.data.windows as Array<{ address: string; title: string }>).find((y) => y.title === title)?.address).toBe(w.address);
    } finally {
      await second.close();
    }
    // red pixels on all outputs, as grim captures them
    const screenFile = join(work, `ws-${RUN}.png`);
    const red = async () => {
      await run('grim', [screenFile], { timeout: scaled(20000) });
      const px = await pixelsOf(screenFile);
      let n = 0;
      for (let y = 0; y < px.info.height; y += 4) for (let x = 0; x < px.info.width; x += 4) if (near(px.at(x, y), [0xe0, 0x10, 0x10])) n++;
      return n;
    };
    await until('the probe drawn', async () => (await red()) > 500, scaled(20000));
    try {
      const bad = await server.call('wm', { action: 'workspace', workspace: 'no such desk' });
      expect(bad.isError, 'a workspace labwc does not list').toBe(true);
      expect(bad.text.join('\n')).toMatch(new RegExp(`no workspace named[^]*"${other}"`));
      const sw = await server.call('wm', { action: 'workspace', workspace: other });
      expect(sw.isError, sw.text.join('\n')).toBe(false);
      await until(`the probe hidden on workspace ${other}`, async () => (await red()) < 20, scaled(10000));
      const after = await server.call('desktop');
      expect((after.data.workspaces as Array<{ name: string; visible: boolean }>).filter((x) => x.visible).map((x) => x.name)).toEqual([other]);
    } finally {
      await server.call('wm', { action: 'workspace', workspace: shown });
    }
    await until(`the probe shown again on workspace ${shown}`, async () => (await red()) > 500, scaled(10000));
    probe.child.kill('SIGTERM');
    await until(`"${title}" closed`, async () => !(await wlrctlFinds(title)), scaled(10000));
  });

  it('wait_for sees a window opened outside hypruse, with the address the compositor gives it', async () => {
    const waiting = server.call('wait_for', { event: 'window_open', match: `real late ${RUN}`, timeout_s: 60 });
    await sleep(scaled(300));
    const app = startProbe(`real late ${RUN}`, '#20a020');
    const w = await waiting;
    expect(w.isError, w.text.join('\n')).toBe(false);
    if (NO_IPC) {
      // no client of labwc names a window's address: wlrctl sees the title, desktop gives it the same address
      expect(await wlrctlFinds(`real late ${RUN}`)).toBe(true);
      const d = await server.call('desktop');
      expect((d.data.windows as Array<{ address: string; title: string }>).find((x) => x.title === `real late ${RUN}`)?.address).toBe(String(w.data.address));
    } else {
      const real = await until('the probe in the compositor', () => windowOfPid(comp, app.child.pid!), scaled(20000));
      expect(String(w.data.address)).toBe(real.address);
    }
    app.child.kill('SIGTERM');
  });

  it('sequence: wait_for (already), keyboard type and click_ui OK (Return where no window position is known) in one call on a GTK 4 dialog', async () => {
    const out = join(work, `zenity-seq-${RUN}.out`);
    const { address: addr } = await open(`zenity --entry --title='real sequence ${RUN}' --text='Name?' > ${out}`, `real sequence ${RUN}`, '3');
    const s = await server.call('sequence', {
      steps: [
        { op: 'wait_for', event: 'window_open', match: `real sequence ${RUN}`, timeout_s: 10 },
        { op: 'keyboard', action: 'type', text: 'plan ✓', window: addr },
        NO_IPC ? { op: 'keyboard', action: 'key', keys: 'Return', window: addr } : { op: 'click_ui', name: 'OK', window: addr },
      ],
    });
    expect(s.isError, s.text.join('\n')).toBe(false);
    expect(s.text[0]).toBe('sequence: all 3/3 steps ran');
    expect(await zenityOut(out)).toBe('plan ✓\n');
  });

  // Not on the guest's sway: the harness names its socket (SWAYSOCK=$XDG_RUNTIME_DIR/sway-ipc.sock) where a sway
  // session names it sway-ipc.UID.PID.sock, so only the variable finds it; the host's sway suite
  // (tests/e2e/server-stripped-env.test.ts) covers sway's own socket name.
  where(comp !== 'sway')('a host that strips the environment (HOME, PATH, XDG_RUNTIME_DIR only): the server finds the compositor, its Wayland display and the session bus; keys it types reach a dialog', async () => {
    const rt = process.env.XDG_RUNTIME_DIR!;
    const stripped = await startServerExactEnv({
      HOME: process.env.HOME ?? '/tmp', PATH: process.env.PATH ?? '/usr/bin:/bin', XDG_RUNTIME_DIR: rt,
      HYPRUSE_TAKEOVER_MS: '0', HYPRUSE_INDICATOR: '0', HYPRUSE_TIME_SCALE: process.env.HYPRUSE_TIME_SCALE ?? '1',
    });
    const out = join(work, `zenity-stripped-${RUN}.out`);
    const title = `real stripped ${RUN}`;
    // the dialog is the person's (started outside hypruse, in the full session environment)
    const child = spawn('sh', ['-c', `exec zenity --entry --title='${title}' --text='Name?' > ${out}`], { env: process.env, stdio: 'ignore' });
    apps.push({ child, out: () => '' });
    try {
      const d = await stripped.call('desktop');
      expect(d.isError, d.text.join('\n')).toBe(false);
      expect((d.data.monitors as Array<{ name: string; scale: number }>).map((m) => [m.name, m.scale]).sort()).toEqual(await realMonitors());
      const address = await until(`the stripped server lists "${title}"`, async () => {
        const x = await stripped.call('desktop');
        return (x.data.windows as Array<{ address: string; title: string }>).find((w) => w.title === title)?.address;
      }, scaled(20000));
      // ASCII: the stripped server runs in no locale, and the keys go to the display it discovered
      for (const step of [{ action: 'type', text: 'stripped ok' }, { action: 'key', keys: 'Return' }]) {
        const k = await stripped.call('keyboard', { ...step, window: address });
        expect(k.isError, k.text.join('\n')).toBe(false);
      }
      expect(await zenityOut(out)).toBe('stripped ok\n');
    } finally {
      await stripped.close();
      if (child.exitCode === null) child.kill('SIGTERM');
    }
  });

  it('hypruse doctor (the built CLI) reports every check ok', async () => {
    const r = await run(process.execPath, [BIN, 'doctor'], { env: { ...process.env }, timeout: scaled(60000) }).then(
      (x) => ({ code: 0, out: x.stdout }),
      (e: { code?: number; stdout?: string }) => ({ code: e.code ?? -1, out: e.stdout ?? '' }),
    );
    const lines = r.out.split('\n').filter((l) => /^\[(ok|FAIL)\]/.test(l));
    expect(lines.length, r.out).toBeGreaterThan(5);
    expect(lines.filter((l) => !l.startsWith('[ok]')), r.out).toEqual([]);
    expect(r.code).toBe(0);
  });
});
