// The test desktop itself: outputs, fixtures, the AT-SPI bus, idempotent start,
// and a stop that leaves no process behind. Verified with swaymsg, busctl and /proc.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  HARNESS, a11yBusAddress, atspiApplications, desktopEnv, desktopState, harness, killFixture, launchFixture,
  requireDesktop, resetDesktop, swayNodes, swaymsg, waitFor, type DesktopState,
} from '../support/desktop.js';

const desk = await requireDesktop();

interface SwayOutput {
  name: string;
  scale: number;
  rect: { x: number; y: number; width: number; height: number };
  current_mode: { width: number; height: number };
}

function busctl<T>(address: string, args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile('busctl', ['--address', address, '--json=short', ...args], { timeout: 5000, encoding: 'utf8' }, (err, out, errOut) =>
      err ? reject(new Error(`busctl ${args.join(' ')}: ${errOut || err.message}`)) : resolve((JSON.parse(out) as { data: T }).data));
  });
}

interface A11yNode { bus: string; path: string; role: string; name: string }

/** Every accessible of one application, depth first (through busctl, not our a11y package). */
async function a11yTree(address: string, bus: string, path: string, depth = 0): Promise<A11yNode[]> {
  const acc = ['org.a11y.atspi.Accessible'];
  const [[role], name, [children]] = await Promise.all([
    busctl<[string]>(address, ['call', bus, path, ...acc, 'GetRoleName']),
    busctl<string>(address, ['get-property', bus, path, ...acc, 'Name']),
    busctl<[Array<[string, string]>]>(address, ['call', bus, path, ...acc, 'GetChildren']),
  ]);
  const nodes: A11yNode[] = [{ bus, path, role, name }];
  if (depth < 12) for (const [b, p] of children) nodes.push(...(await a11yTree(address, b, p, depth + 1)));
  return nodes;
}

function procStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return rest[0] === 'Z' ? null : rest[19];
  } catch {
    return null;
  }
}

/** PIDs whose environment carries the marker of a harness instance. */
function pidsWithMarker(instance: string): number[] {
  const needle = `HYPRUSE_DESKTOP_INSTANCE=${instance}`;
  return readdirSync('/proc').filter((e) => /^\d+$/.test(e)).map(Number).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(needle);
    } catch {
      return false;
    }
  });
}

describe.skipIf(!desk)('test desktop harness', () => {
  const launched: number[] = [];
  afterAll(async () => {
    for (const pid of launched) await killFixture(pid).catch(() => {});
  });

  it('has HEADLESS-1 at scale 1 (1280x800 at 0,0) and HEADLESS-2 at scale 1.5 (logical 1280x720 at 1280,0)', async () => {
    const outputs = await swaymsg<SwayOutput[]>('-t', 'get_outputs');
    const byName = Object.fromEntries(outputs.map((o) => [o.name, o]));
    expect(Object.keys(byName).sort()).toEqual(['HEADLESS-1', 'HEADLESS-2']);
    expect(byName['HEADLESS-1'].scale).toBe(1);
    expect(byName['HEADLESS-1'].rect).toEqual({ x: 0, y: 0, width: 1280, height: 800 });
    expect(byName['HEADLESS-2'].scale).toBe(1.5);
    expect(byName['HEADLESS-2'].rect).toEqual({ x: 1280, y: 0, width: 1280, height: 720 });
    expect(byName['HEADLESS-2'].current_mode).toMatchObject({ width: 1920, height: 1080 });
  });

  it('prints the environment a test needs, matching desktopEnv()', async () => {
    const r = await harness(['env']);
    expect(r.code).toBe(0);
    const printed = Object.fromEntries(r.stdout.trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    expect(printed).toEqual(await desktopEnv());
    expect(existsSync(join(printed.XDG_RUNTIME_DIR, printed.WAYLAND_DISPLAY))).toBe(true);
    expect(printed.DBUS_SESSION_BUS_ADDRESS).toBe(`unix:path=${printed.XDG_RUNTIME_DIR}/bus`);
    const json = await harness(['env', '--json']);
    expect(JSON.parse(json.stdout)).toEqual(printed);
  });

  it('launches zenity-entry as the desktop user: in sway\'s tree by pid, on the AT-SPI bus, its answer captured', async () => {
    const app = await launchFixture('zenity-entry');
    launched.push(app.pid);
    expect(app.conId).toBeTypeOf('number');

    const node = (await swayNodes()).find((n) => n.pid === app.pid);
    expect(node).toMatchObject({ id: app.conId, name: 'hypruse entry', app_id: 'zenity', workspace: app.workspace });
    const owner = readFileSync(`/proc/${app.pid}/status`, 'utf8').match(/^Uid:\s+(\d+)/m)?.[1];
    expect(Number(owner)).toBe(desk!.state.user.uid);

    const apps = await waitFor(async () => {
      const list = await atspiApplications();
      return list.some((a) => a.name === 'zenity') ? list : null;
    }, 10000, 'zenity in the AT-SPI registry');
    const zenity = apps.find((a) => a.name === 'zenity')!;

    // Type into the entry and press OK over AT-SPI; zenity prints the text on stdout.
    const address = await a11yBusAddress();
    const tree = await a11yTree(address, zenity.bus, zenity.path);
    const text = tree.find((n) => n.role === 'text');
    const ok = tree.find((n) => n.role === 'push button' && n.name === 'OK');
    expect(text, JSON.stringify(tree)).toBeDefined();
    expect(ok, JSON.stringify(tree)).toBeDefined();
    await busctl(address, ['call', text!.bus, text!.path, 'org.a11y.atspi.EditableText', 'SetTextContents', 's', 'hypruse-42']);
    await busctl(address, ['call', ok!.bus, ok!.path, 'org.a11y.atspi.Action', 'DoAction', 'i', '0']);
    await waitFor(() => procStart(app.pid) === null, 5000, 'zenity to exit');
    expect(readFileSync(app.stdout, 'utf8')).toBe('hypruse-42\n');
    await waitFor(async () => !(await swayNodes()).some((n) => n.pid === app.pid), 5000, 'zenity\'s window to leave the tree');
  });

  it('launches an app onto a named workspace', async () => {
    const app = await launchFixture('foot', { workspace: '7' });
    launched.push(app.pid);
    expect(app.workspace).toBe('7');
    const node = (await swayNodes()).find((n) => n.pid === app.pid);
    expect(node?.workspace).toBe('7');
    await killFixture(app.pid);
    expect(procStart(app.pid)).toBeNull();
    await waitFor(async () => !(await swayNodes()).some((n) => n.pid === app.pid), 5000, 'foot\'s window to leave the tree');
  });

  it('reset closes every window (fixtures and foreign clients), leaves mode resize, focuses workspace 1', async () => {
    const fixture = await launchFixture('foot', { workspace: '4' });
    // A client started outside the harness, as this (test) user.
    const foreign = spawn('foot', [], { env: { ...process.env, ...desk!.env }, stdio: 'ignore', detached: true });
    foreign.unref();
    await waitFor(async () => (await swayNodes()).some((n) => n.pid === foreign.pid), 10000, 'the foreign foot window');
    await swaymsg('mode', 'resize');
    expect(await swaymsg<{ name: string }>('-t', 'get_binding_state')).toEqual({ name: 'resize' });

    const t0 = performance.now();
    await resetDesktop();
    process.stderr.write(`harness e2e: reset with 2 windows ${(performance.now() - t0).toFixed(0)} ms\n`);
    expect((await swayNodes()).filter((n) => n.pid !== undefined && (n.type === 'con' || n.type === 'floating_con'))).toEqual([]);
    expect(procStart(fixture.pid)).toBeNull();
    await waitFor(() => procStart(foreign.pid!) === null, 5000, 'the foreign foot to exit');
    expect(await swaymsg<{ name: string }>('-t', 'get_binding_state')).toEqual({ name: 'default' });
    const focused = (await swaymsg<Array<{ name: string; output: string; focused: boolean }>>('-t', 'get_workspaces')).find((w) => w.focused);
    expect(focused).toMatchObject({ name: '1', output: 'HEADLESS-1' });
  });

  it('a second start while running changes nothing', async () => {
    const before = desktopState()!;
    const r = await harness(['start']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/already running/);
    const after = desktopState()!;
    expect(after.instance).toBe(before.instance);
    expect(after.pids).toEqual(before.pids);
    expect(after.swaysock).toBe(before.swaysock);
    expect((await harness(['status'])).code).toBe(0);
  });

  it('a private instance starts, and stop ends every process it started and removes its runtime dir', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hypruse-desktop-e2e-'));
    const env = { ...process.env, HYPRUSE_DESKTOP_DIR: dir };
    const run = (args: string[]) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [HARNESS, ...args], { env, timeout: 60000, encoding: 'utf8' }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
    });
    try {
      const started = await run(['start']);
      expect(started.code, started.stderr).toBe(0);
      const state = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as DesktopState & { launcher: { pid: number; start: string } };
      expect(state.instance).not.toBe(desktopState()!.instance);
      // The AT-SPI bus launcher ends: the session bus starts another when asked, the desktop stays healthy and says so.
      process.kill(state.launcher.pid, 'SIGTERM');
      await waitFor(() => procStart(state.launcher.pid) !== state.launcher.start, 5000, 'the AT-SPI bus launcher to end');
      const status = await run(['status']);
      expect(status.code, status.stdout + status.stderr).toBe(0);
      expect(status.stderr).toMatch(new RegExp(`AT-SPI bus launcher started with the desktop \\(pid ${state.launcher.pid}\\) has ended`));
      const app = await run(['app', 'zenity-question']);
      expect(app.code, app.stderr).toBe(0);
      // The a11y bus daemon and registry are not recorded by PID; the marker finds them (and the activated launcher).
      const spawned = pidsWithMarker(state.instance);
      expect(spawned.length).toBeGreaterThanOrEqual(5);
      const cmdline = (pid: number) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        } catch {
          return ''; // ended since it was listed
        }
      };
      const launchers = spawned.filter((pid) => cmdline(pid).startsWith('/usr/libexec/at-spi-bus-launcher'));
      expect(launchers.length, 'one activated AT-SPI bus launcher').toBe(1);
      expect(launchers[0]).not.toBe(state.launcher.pid);

      const stopped = await run(['stop']);
      expect(stopped.code, stopped.stderr).toBe(0);
      expect(pidsWithMarker(state.instance)).toEqual([]);
      for (const rec of Object.values(state.pids)) expect(procStart(rec.pid)).not.toBe(rec.start);
      expect(existsSync(join(dir, 'run'))).toBe(false);
      expect(existsSync(join(dir, 'state.json'))).toBe(false);
      expect((await run(['status'])).code).toBe(1);
    } finally {
      await run(['stop']);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
