// Test-side access to the real headless sway desktop run by
// tests/desktop/harness.mjs (`npm run desktop -- start`).
//
//   const desk = await requireDesktop();          // null: skipped loudly (CI: fails)
//   describe.skipIf(!desk)('...', () => { ... desk!.env ... });
//
// `swaymsg` and `atspiApplications` here verify effects independently of the
// code under test (they ask sway and the AT-SPI registry directly).
import { execFile } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { until } from '@hypruse/contract-kit';

export const HARNESS = fileURLToPath(new URL('../desktop/harness.mjs', import.meta.url));

export type FixtureName = 'zenity-entry' | 'zenity-question' | 'zenity-forms' | 'widget-factory' | 'mousepad' | 'foot' | 'click-counter' | 'pointer-probe' | 'gtk4-dialog' | 'gtk3-form';

/** The variables a process needs to live on the test desktop. */
export interface DesktopEnv extends Record<string, string> {
  WAYLAND_DISPLAY: string;
  SWAYSOCK: string;
  XDG_RUNTIME_DIR: string;
  DBUS_SESSION_BUS_ADDRESS: string;
  HYPRUSE_TEST_DESKTOP_USER: string;
  HYPRUSE_DESKTOP_DIR: string;
}

export interface ProcRecord {
  pid: number;
  start: string | null;
}

/** The harness state file (written by harness.mjs; read-only here). */
export interface DesktopState {
  version: number;
  instance: string;
  user: { name: string; uid: number; gid: number; home: string };
  base: string;
  runtimeDir: string;
  pids: { dbus: ProcRecord; atspi: ProcRecord; sway: ProcRecord };
  apps: Array<ProcRecord & { name: string; stdout: string; stderr: string }>;
  dbusAddress: string;
  a11yAddress: string;
  swaysock: string;
  waylandDisplay: string;
  startedAt: string;
}

export interface Desktop {
  env: DesktopEnv;
  state: DesktopState;
  /** Name of the unprivileged user the desktop and its apps run as. */
  user: string;
}

export interface LaunchedFixture {
  pid: number;
  /** Files receiving the app's stdout and stderr (zenity prints its answer to stdout). */
  stdout: string;
  stderr: string;
  /** Present unless launched with `wait: false`. */
  conId?: number;
  workspace?: string;
  output?: string;
  /** Milliseconds until the window showed in sway's tree. */
  ms?: number;
}

/** Directory of the harness state; the same rule as harness.mjs. */
export function desktopDir(): string {
  const uid = process.getuid?.() ?? -1;
  return process.env.HYPRUSE_DESKTOP_DIR || (uid === 0 ? '/tmp/hypruse-desktop' : `/tmp/hypruse-desktop-${uid}`);
}

function procStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return rest[0] === 'Z' ? null : (rest[19] ?? null);
  } catch {
    return null;
  }
}

/** The harness state if a desktop is running (its sway process alive, its sockets present), else null. */
export function desktopState(): DesktopState | null {
  let state: DesktopState;
  try {
    state = JSON.parse(readFileSync(join(desktopDir(), 'state.json'), 'utf8')) as DesktopState;
  } catch {
    return null;
  }
  const sway = state.pids?.sway;
  if (!sway || !state.swaysock || procStart(sway.pid) !== sway.start) return null;
  if (!existsSync(state.swaysock) || !existsSync(join(state.runtimeDir, state.waylandDisplay))) return null;
  return state;
}

function envOf(state: DesktopState): DesktopEnv {
  return {
    WAYLAND_DISPLAY: state.waylandDisplay,
    SWAYSOCK: state.swaysock,
    XDG_RUNTIME_DIR: state.runtimeDir,
    DBUS_SESSION_BUS_ADDRESS: state.dbusAddress,
    HYPRUSE_TEST_DESKTOP_USER: state.user.name,
    HYPRUSE_DESKTOP_DIR: state.base,
  };
}

/** WAYLAND_DISPLAY, SWAYSOCK, XDG_RUNTIME_DIR, DBUS_SESSION_BUS_ADDRESS (+ user, dir) of the running desktop; null if none. */
export async function desktopEnv(): Promise<DesktopEnv | null> {
  const state = desktopState();
  return state ? envOf(state) : null;
}

/** PIDs launched through launchFixture by this test file (vitest isolates modules per file). */
const launchedHere = new Set<number>();

/**
 * The running desktop for a desktop test file. Without one, prints a loud
 * skip reason and returns null (use `describe.skipIf(!desk)`); when
 * `process.env.CI` is set a missing desktop is an error instead.
 *
 * With a desktop, it also registers file-level hooks (unless `reset: false`):
 * before the file's tests, `resetDesktop()` (no app or window left from
 * earlier files, workspace 1 focused, outputs as configured); after them,
 * every fixture this file launched and did not kill is stopped.
 */
export async function requireDesktop(opts: { reset?: boolean } = {}): Promise<Desktop | null> {
  // The calling test file, taken before the first await (the stack is lost after it).
  const caller = (new Error().stack?.split('\n')[2] ?? '').replace(/^\s*at\s+/, '').replace(/^.*\((.*)\)$/, '$1').replace(/^file:\/\//, '');
  const state = desktopState();
  if (state) {
    if (opts.reset !== false) {
      beforeAll(() => resetDesktop(), 30000);
      afterAll(async () => {
        for (const pid of launchedHere) await killFixture(pid).catch(() => {});
      }, 30000);
    }
    return { env: envOf(state), state, user: state.user.name };
  }
  const status = await harness(['status']).catch((e: Error) => ({ code: 1, stdout: e.message, stderr: '' }));
  const reason = status.stdout.trim() || status.stderr.trim() || 'no desktop is running';
  if (process.env.CI) {
    throw new Error(`CI requires the test desktop, but it is not available (${reason}). "npm test" starts it; alone: npm run desktop -- start`);
  }
  const bar = '!'.repeat(78);
  process.stderr.write(
    `\n${bar}\n!! SKIPPING desktop tests in ${caller || 'this file'}\n!! because: ${reason}\n!! Start one with: npm run desktop -- start   (needs sway; see tests/desktop/README.md)\n${bar}\n\n`,
  );
  return null;
}

export interface HarnessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `node tests/desktop/harness.mjs ARGS` and resolves with its exit code and output (never rejects on a non-zero exit). */
export function harness(args: string[], timeoutMs = 60000): Promise<HarnessResult> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [HARNESS, ...args], { timeout: timeoutMs, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') {
        reject(new Error(`harness ${args.join(' ')} failed: ${err.message}\n${stderr}`));
        return;
      }
      resolve({ code: typeof err?.code === 'number' ? err.code : 0, stdout, stderr });
    });
  });
}

/** Launches a fixture app on the desktop as the desktop user; by default waits until its window is in sway's tree. */
export async function launchFixture(
  name: FixtureName,
  opts: { workspace?: string; wait?: boolean; timeoutMs?: number; args?: string[] } = {},
): Promise<LaunchedFixture> {
  const timeoutMs = opts.timeoutMs ?? 15000;
  const args = ['app', name, '--timeout', String(timeoutMs)];
  if (opts.workspace !== undefined) args.push('--workspace', opts.workspace);
  if (opts.wait === false) args.push('--no-wait');
  if (opts.args?.length) args.push('--', ...opts.args);
  const r = await harness(args, timeoutMs + 10000);
  if (r.code !== 0) throw new Error(`launching fixture ${name} failed (exit ${r.code}): ${r.stderr.trim()}`);
  const app = JSON.parse(r.stdout) as LaunchedFixture;
  launchedHere.add(app.pid);
  return app;
}

/** Stops an app started by launchFixture (and what it spawned). */
export async function killFixture(pid: number): Promise<void> {
  launchedHere.delete(pid);
  const r = await harness(['kill-app', String(pid)]);
  if (r.code !== 0) throw new Error(`kill-app ${pid} failed (exit ${r.code}): ${r.stderr.trim()}`);
}

/**
 * Back to the desktop as it was right after start: every app and window gone
 * (fixtures by PID, other windows closed, clients ignoring that ended by
 * PID), binding mode default, outputs as configured, workspace 1 on
 * HEADLESS-1 focused, cursor at its centre (640,400).
 */
export async function resetDesktop(): Promise<void> {
  const r = await harness(['reset']);
  if (r.code !== 0) throw new Error(`resetting the test desktop failed (exit ${r.code}): ${r.stderr.trim()}`);
}

function run(cmd: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: timeoutMs, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')} failed: ${stderr.trim() || err.message}`));
      else resolve(stdout);
    });
  });
}

async function requireEnv(): Promise<DesktopEnv> {
  const env = await desktopEnv();
  if (!env) throw new Error('no test desktop is running (npm run desktop -- start)');
  return env;
}

/**
 * `swaymsg -r ARGS` against the test desktop, parsed from JSON; e.g.
 * `swaymsg<SwayOutput[]>('-t', 'get_outputs')` or `swaymsg('[con_id=7]', 'focus')`.
 */
export async function swaymsg<T = unknown>(...args: string[]): Promise<T> {
  const env = await requireEnv();
  return JSON.parse(await run('swaymsg', ['-s', env.SWAYSOCK, '-r', ...args], 5000)) as T;
}

/** A sway tree node, the fields tests usually look at. */
export interface SwayNode {
  id: number;
  type: string;
  name: string | null;
  pid?: number;
  app_id?: string | null;
  focused: boolean;
  rect: { x: number; y: number; width: number; height: number };
  window_rect?: { x: number; y: number; width: number; height: number };
  nodes: SwayNode[];
  floating_nodes: SwayNode[];
}

/** All nodes of sway's tree, depth first, each with the names of its output and workspace. */
export async function swayNodes(): Promise<Array<SwayNode & { output: string | null; workspace: string | null }>> {
  const out: Array<SwayNode & { output: string | null; workspace: string | null }> = [];
  const walk = (n: SwayNode, output: string | null, workspace: string | null) => {
    if (n.type === 'output') output = n.name;
    if (n.type === 'workspace') workspace = n.name;
    out.push({ ...n, output, workspace });
    for (const c of [...(n.nodes ?? []), ...(n.floating_nodes ?? [])]) walk(c, output, workspace);
  };
  walk(await swaymsg<SwayNode>('-t', 'get_tree'), null, null);
  return out;
}

async function busctl<T>(address: string, args: string[]): Promise<T> {
  const out = JSON.parse(await run('busctl', ['--address', address, '--json=short', ...args], 5000)) as { data: T };
  return out.data;
}

/** The AT-SPI bus address (org.a11y.Bus.GetAddress on the desktop's session bus). */
export async function a11yBusAddress(): Promise<string> {
  const env = await requireEnv();
  const [address] = await busctl<[string]>(env.DBUS_SESSION_BUS_ADDRESS, ['call', 'org.a11y.Bus', '/org/a11y/bus', 'org.a11y.Bus', 'GetAddress']);
  return address;
}

/** A busctl call on the AT-SPI bus (independent of our a11y package): its reply body. */
export async function a11yBusCall<T>(args: string[]): Promise<T> {
  return busctl<T>(await a11yBusAddress(), ['call', ...args]);
}

/** Applications registered with the AT-SPI registry (asked with busctl, independently of our a11y package). */
export async function atspiApplications(): Promise<Array<{ bus: string; path: string; name: string }>> {
  const address = await a11yBusAddress();
  const [children] = await busctl<[Array<[string, string]>]>(address, [
    'call', 'org.a11y.atspi.Registry', '/org/a11y/atspi/accessible/root', 'org.a11y.atspi.Accessible', 'GetChildren',
  ]);
  return Promise.all(
    children.map(async ([bus, path]) => {
      const name = await busctl<string>(address, ['get-property', bus, path, 'org.a11y.atspi.Accessible', 'Name']).catch(() => '');
      return { bus, path, name };
    }),
  );
}

/**
 * Polls `cond` until it returns a truthy value and resolves with it; rejects
 * after `timeoutMs` naming `what` (and the last error `cond` threw, if any).
 */
export async function waitFor<T>(
  cond: () => T | Promise<T>,
  timeoutMs = 5000,
  what = 'condition',
  intervalMs = 50,
): Promise<NonNullable<T>> {
  // The same machine-scaled policy as hypruse's own ceilings (HYPRUSE_TIME_SCALE; npm test measures it at start).
  return until(what, cond, scaledMs(timeoutMs), intervalMs);
}
