import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { HypruseError, UsageError, ensurePrivateDir, environValue, writeFileExclusiveSync, scaledMs, type CompositorFactory, type HeadlessSpec } from '@hypruse/core';
import { beaconDir } from '@hypruse/trust';

/**
 * A private desk: a headless compositor session of hypruse's own, with its own
 * runtime dir (mode 0700), Wayland socket, session bus (dbus-daemon) and
 * AT-SPI bus (at-spi-bus-launcher). Its state lives in
 * `$XDG_RUNTIME_DIR/hypruse/desks/<name>/` of the person's session
 * (`state.json`, `logs/`, and `run/`, the desk's own runtime dir). Every
 * process of the desk, apps included, carries HYPRUSE_DESK_INSTANCE=<id> in
 * its environment; stopping the desk ends the recorded pids and the marked
 * processes, by pid, apps first and the session bus last.
 */

export const DESK_MARKER = 'HYPRUSE_DESK_INSTANCE';
const NAME_RE = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const RESERVED = new Set(['off', 'private']);

/** A process as recorded: its pid and its start time (field 22 of /proc/PID/stat), so a reused pid is never taken for it. */
export interface ProcRecord {
  pid: number;
  start: string;
}

export interface DeskState {
  v: 1;
  name: string;
  instance: string;
  compositor: string;
  /** The desk's folder (state, logs, configs). */
  dir: string;
  /** The desk's own runtime dir (mode 0700). */
  runtimeDir: string;
  uid: number;
  size: [number, number];
  /** The MCP server that owns it (stops it when it exits); null when started by `hypruse desk start`. */
  owner: ProcRecord | null;
  /** dbus (the session bus), a11y (at-spi-bus-launcher), compositor. */
  pids: Record<string, ProcRecord>;
  /** The session variables of the desk (XDG_RUNTIME_DIR, WAYLAND_DISPLAY, the compositor's socket, DBUS_SESSION_BUS_ADDRESS). */
  env: Record<string, string>;
  startedAt: string;
}

export interface DeskListing {
  state: DeskState;
  /** null when healthy, else why not. */
  problem: string | null;
  /** Processes carrying the desk's marker that are not its own services (apps, and what they started). */
  apps: ProcRecord[];
}

// ------------------------------------------------------------------ processes

export function procStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (rest[0] === 'Z' || rest[0] === 'X') return null;
    return rest[19] ?? null;
  } catch {
    return null;
  }
}

function procParent(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

export const alive = (r: ProcRecord | null | undefined): boolean => r != null && procStart(r.pid) === r.start;
const record = (pid: number): ProcRecord => ({ pid, start: procStart(pid) ?? '' });

/** Every live process whose environment carries this desk's marker (never this process or its ancestors). */
export function markedProcesses(instance: string): ProcRecord[] {
  const ancestors = new Set<number>();
  for (let p = process.pid; p > 1; p = procParent(p)) ancestors.add(p);
  const out: ProcRecord[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (ancestors.has(pid)) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      continue; // gone, or not ours
    }
    if (environValue(environ, DESK_MARKER) === instance) {
      const r = record(pid);
      if (r.start) out.push(r);
    }
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/** SIGTERM these processes, SIGKILL what is left after the grace, and wait until all are gone. */
async function terminate(recs: ProcRecord[], graceMs: number): Promise<ProcRecord[]> {
  const live = () => recs.filter((r) => r.pid !== process.pid && alive(r));
  for (const r of live()) signal(r.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (live().length && Date.now() < deadline) await sleep(25);
  for (const r of live()) signal(r.pid, 'SIGKILL');
  const killDeadline = Date.now() + scaledMs(3000);
  while (live().length && Date.now() < killDeadline) await sleep(25);
  return live();
}

// ------------------------------------------------------------------ where desks live

/** `$XDG_RUNTIME_DIR/hypruse/desks` of the person's session (or `/tmp/hypruse-<uid>/desks`). */
export function desksDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(beaconDir(env), 'desks');
}

function readState(dir: string): DeskState | null {
  try {
    const s = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as DeskState;
    return s && s.v === 1 && typeof s.instance === 'string' ? s : null;
  } catch {
    return null;
  }
}

function writeState(s: DeskState): void {
  writeFileExclusiveSync(join(s.dir, 'state.json'), `${JSON.stringify(s, null, 2)}\n`);
}

/** Why a desk is not healthy, or null. */
export function deskProblem(s: DeskState): string | null {
  if (s.owner && !alive(s.owner)) return `its owner, the hypruse server pid ${s.owner.pid}, has ended`;
  for (const [what, r] of Object.entries(s.pids)) if (!alive(r)) return `${what} (pid ${r.pid}) is not running`;
  if (!s.env.WAYLAND_DISPLAY || !existsSync(join(s.runtimeDir, s.env.WAYLAND_DISPLAY))) return 'its Wayland socket is missing';
  return null;
}

/**
 * A desk nobody will stop: its owner has ended, or (started by the CLI) every process of it has
 * ended and its start is over a minute old. A desk still starting is never stale.
 */
function isStale(s: DeskState): boolean {
  if (s.owner) return !alive(s.owner);
  const pids = Object.values(s.pids);
  return pids.every((r) => !alive(r)) && Date.now() - Date.parse(s.startedAt) > 60_000;
}

/** Every desk of this user's session, with its health and its apps. */
export function listDesks(env: NodeJS.ProcessEnv = process.env): DeskListing[] {
  const root = desksDir(env);
  let names: string[];
  try {
    names = readdirSync(root).sort(byNumberThenName);
  } catch {
    return [];
  }
  const out: DeskListing[] = [];
  for (const name of names) {
    const state = readState(join(root, name));
    if (!state) continue;
    out.push({ state, problem: deskProblem(state), apps: deskApps(state) });
  }
  return out;
}

/** The desk's apps: marked processes other than its buses and what they started (the registry, activated services). */
export function deskApps(s: DeskState): ProcRecord[] {
  const own = new Set(Object.values(s.pids).map((r) => r.pid));
  const services = new Set([s.pids.dbus?.pid, s.pids.a11y?.pid].filter((p): p is number => p !== undefined));
  const underService = (pid: number) => {
    for (let p = procParent(pid), n = 0; p > 1 && n < 64; p = procParent(p), n++) if (services.has(p)) return true;
    return false;
  };
  // D-Bus names what it activated (the AT-SPI registry, settings daemons) in their environment
  const activated = (pid: number) => {
    try {
      return environValue(readFileSync(`/proc/${pid}/environ`, 'latin1'), 'DBUS_STARTER_BUS_TYPE') !== null;
    } catch {
      return false;
    }
  };
  return markedProcesses(s.instance).filter((r) => !own.has(r.pid) && !underService(r.pid) && !activated(r.pid));
}

function byNumberThenName(a: string, b: string): number {
  const na = /^\d+$/.test(a) ? Number(a) : Infinity;
  const nb = /^\d+$/.test(b) ? Number(b) : Infinity;
  return na !== nb ? na - nb : a.localeCompare(b);
}

export function findDesk(name: string, env: NodeJS.ProcessEnv = process.env): DeskState {
  const state = readState(join(desksDir(env), name));
  if (!state) {
    const running = listDesks(env).map((d) => d.state.name);
    throw new HypruseError('not_found.desk', `no private desk named "${name}" is running (running: ${running.join(', ') || 'none'})`, {
      hint: `start it with: hypruse desk start ${name}`,
    });
  }
  return state;
}

// ------------------------------------------------------------------ the desk's environment

/** What a desk's processes keep of the person's environment: who they are, where their files are, their language. */
const KEPT = /^(PATH|HOME|USER|LOGNAME|SHELL|LANG|LANGUAGE|LC_[A-Z]+|TZ|TERM|XDG_(CONFIG|DATA|STATE|CACHE)_HOME|XDG_(CONFIG|DATA)_DIRS|NO_COLOR)$/;

/**
 * The environment of the desk: the person's identity and files, none of the
 * person's session (no display, no compositor socket, no session bus), the
 * desk's own session variables and its marker. hypruse's own variables are
 * kept for hypruse (`keepHypruse`), never the desk choice itself.
 */
export function deskEnvironment(s: Pick<DeskState, 'instance' | 'runtimeDir' | 'env'>, host: NodeJS.ProcessEnv, keepHypruse = false): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(host)) {
    if (v === undefined) continue;
    if (KEPT.test(k) || (keepHypruse && k.startsWith('HYPRUSE_') && k !== 'HYPRUSE_DESK' && k !== DESK_MARKER)) out[k] = v;
  }
  out.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  out.HOME ??= homedir();
  return {
    ...out,
    XDG_RUNTIME_DIR: s.runtimeDir,
    DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(s.runtimeDir, 'bus')}`,
    XDG_SESSION_TYPE: 'wayland',
    ...s.env,
    [DESK_MARKER]: s.instance,
  };
}

// ------------------------------------------------------------------ start

export interface StartOptions {
  /** A name; default: the lowest free number. */
  name?: string;
  /** Logical size of its output (default 1280x800). */
  size?: [number, number];
  /** The compositor plugin to run (default: the first that can run headless and is installed). */
  compositor?: string;
  factories: CompositorFactory[];
  /** The person's environment (where desks are kept; what the desk keeps of it). */
  env?: NodeJS.ProcessEnv;
  /** The MCP server that owns the desk (stops it when it exits). */
  owner?: number;
  /** The command line of hypruse itself (node and its script), to start the desk's reaper with; none without it. */
  reaper?: string[];
}

/** The person's environment without the desk choice and marker (the reaper's). */
const hostOnly = (host: NodeJS.ProcessEnv): NodeJS.ProcessEnv => {
  const env = { ...host };
  delete env.HYPRUSE_DESK;
  delete env[DESK_MARKER];
  return env;
};

/**
 * `hypruse desk reap NAME`, started with a desk that has an owner: waits
 * until the owner has ended or the desk is gone; if the owner ended first
 * (killed without stopping its desk), stops the desk.
 */
export async function reapDesk(name: string, env: NodeJS.ProcessEnv = process.env): Promise<StopReport | null> {
  const dir = join(desksDir(env), name);
  for (;;) {
    const s = readState(dir);
    if (!s || !s.owner) return null;
    if (!alive(s.owner)) return stopDesk(s, env);
    await sleep(250);
  }
}

function onPath(program: string, env: NodeJS.ProcessEnv): string | null {
  const dirs = program.includes('/') ? [''] : (env.PATH ?? '/usr/bin:/bin').split(':').filter(Boolean);
  for (const d of dirs) {
    const p = d ? join(d, program) : program;
    try {
      accessSync(p, constants.X_OK);
      if (statSync(p).isFile()) return p;
    } catch {
      /* not here */
    }
  }
  return null;
}

const AT_SPI_LAUNCHER = ['/usr/libexec/at-spi-bus-launcher', '/usr/lib/at-spi2-core/at-spi-bus-launcher', '/usr/lib/at-spi-bus-launcher'];

function missing(what: string, pkg: string): HypruseError {
  return new HypruseError('unsupported.desk', `cannot start a private desk: ${what} is not installed`, {
    hint: `install the Debian package ${pkg} (apt-get install ${pkg}), then try again`,
    data: { package: pkg },
  });
}

/** The compositor the desk runs, its program and the launcher; each missing piece is a typed error naming its package. */
function chooseCompositor(opts: StartOptions, env: NodeJS.ProcessEnv): { factory: CompositorFactory; spec: HeadlessSpec; program: string } {
  const headless = opts.factories.filter((f) => f.headless);
  if (opts.compositor && opts.compositor !== 'auto') {
    const f = opts.factories.find((x) => x.id === opts.compositor);
    if (!f) throw new HypruseError('unsupported.desk', `no compositor plugin "${opts.compositor}" is installed (installed: ${opts.factories.map((x) => x.id).join(', ') || 'none'})`);
    if (!f.headless) {
      throw new HypruseError('unsupported.desk', `the ${f.id} plugin cannot run a private desk (it has no headless mode)`, {
        hint: `compositors that can: ${headless.map((x) => x.id).join(', ') || 'none'}; leave the compositor unset to use one of them`,
      });
    }
    const program = onPath(f.headless.program, env);
    if (!program) throw missing(`${f.headless.program} (the ${f.id} compositor)`, f.headless.debianPackage);
    return { factory: f, spec: f.headless, program };
  }
  if (!headless.length) throw new HypruseError('unsupported.desk', 'no installed compositor plugin can run a private desk');
  for (const f of headless) {
    const program = onPath(f.headless!.program, env);
    if (program) return { factory: f, spec: f.headless!, program };
  }
  const first = headless[0]!;
  throw missing(`${headless.map((f) => f.headless!.program).join(' or ')} (the ${first.id} compositor)`, first.headless!.debianPackage);
}

function tail(file: string, lines = 8): string {
  try {
    const t = readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    return t ? `; last lines of ${file}:\n${t}` : '';
  } catch {
    return '';
  }
}

function spawnLogged(program: string, args: string[], env: NodeJS.ProcessEnv, log: string, cwd: string): ProcRecord {
  const fd = openSync(log, 'a', 0o600);
  let child;
  try {
    child = spawn(program, args, { env, detached: true, stdio: ['ignore', fd, fd], cwd });
  } finally {
    closeSync(fd);
  }
  child.on('error', () => undefined);
  child.unref();
  if (!child.pid) throw new HypruseError('error.desk', `could not start ${program}${tail(log)}`);
  return record(child.pid);
}

async function waitUntil<T>(what: string, ms: number, check: () => T | null, why: () => string): Promise<T> {
  const deadline = Date.now() + scaledMs(ms);
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > deadline) throw new HypruseError('error.desk', `the private desk did not come up: timed out after ${scaledMs(ms)} ms waiting for ${what}${why()}`);
    await sleep(25);
  }
}

/** Claim a desk folder: `mkdir` is atomic, so two starts never take one name; a stale desk of that name is stopped first. */
async function claim(root: string, wanted: string | undefined, env: NodeJS.ProcessEnv): Promise<{ name: string; dir: string }> {
  // under hypruse's own folder, made private or refused (error.unsafe_dir)
  ensurePrivateDir(dirname(root));
  ensurePrivateDir(root);
  const candidates = wanted ? [wanted] : Array.from({ length: 64 }, (_, i) => String(i + 1));
  for (const name of candidates) {
    const dir = join(root, name);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        mkdirSync(dir, { mode: 0o700 });
        return { name, dir };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const old = readState(dir);
      if (old && !isStale(old)) break; // running, or starting: taken
      if (!old) {
        // a start in progress writes its state at once; a folder without one older than a minute is debris
        const age = Date.now() - statSync(dir).mtimeMs;
        if (age < 60_000) break;
        rmSync(dir, { recursive: true, force: true });
        continue;
      }
      await stopDesk(old, env); // stale: its processes end by pid, its folder goes
    }
    if (wanted) throw new HypruseError('usage.arguments', `a private desk named "${wanted}" is already running`, { hint: `stop it first (hypruse desk stop ${wanted}) or pick another name`, data: { name: wanted } });
  }
  throw new HypruseError('error.desk', `no free desk name under ${root} (64 desks running)`);
}

export function checkDeskName(name: string): void {
  if (!NAME_RE.test(name) || RESERVED.has(name)) {
    throw new UsageError(`"${name}" is not a desk name: a-z, 0-9, _ and -, at most 32 characters, starting with a letter or digit, not "off" or "private"`, { code: 'usage.arguments' });
  }
}

/** Start a desk; on any failure everything started so far is stopped again and the folder removed. */
export async function startDesk(opts: StartOptions): Promise<DeskState> {
  const host = opts.env ?? process.env;
  if (opts.name !== undefined) checkDeskName(opts.name);
  const [width, height] = opts.size ?? [1280, 800];
  const { factory, spec, program } = chooseCompositor(opts, host);
  const uid = process.getuid?.() ?? -1;
  if (uid === 0 && spec.refusesRoot) {
    throw new HypruseError('unsupported.desk', `cannot start a private desk as root: ${spec.refusesRoot}`, { hint: 'run hypruse as your own user' });
  }
  const dbusDaemon = onPath('dbus-daemon', host);
  if (!dbusDaemon) throw missing('dbus-daemon (the session bus)', 'dbus-daemon');
  const launcher = AT_SPI_LAUNCHER.find((p) => onPath(p, host));
  if (!launcher) throw missing('at-spi-bus-launcher (the accessibility bus)', 'at-spi2-core');

  const root = desksDir(host);
  const { name, dir } = await claim(root, opts.name, host);
  const runtimeDir = join(dir, 'run');
  const logs = join(dir, 'logs');
  const state: DeskState = {
    v: 1,
    name,
    instance: randomBytes(8).toString('hex'),
    compositor: factory.id,
    dir,
    runtimeDir,
    uid,
    size: [width, height],
    owner: opts.owner ? record(opts.owner) : null,
    pids: {},
    env: {},
    startedAt: new Date().toISOString(),
  };
  try {
    mkdirSync(runtimeDir, { mode: 0o700 });
    mkdirSync(logs, { mode: 0o700 });
    writeState(state);
    const env = deskEnvironment(state, host);

    // 1. the session bus (it forks; --print-pid names the daemon)
    const d = spawnSync(dbusDaemon, ['--session', `--address=unix:path=${join(runtimeDir, 'bus')}`, '--fork', '--print-pid', '--nopidfile'], {
      env, encoding: 'utf8', timeout: scaledMs(10000), cwd: dir,
    });
    const busPid = Number((d.stdout ?? '').trim().split('\n')[0]);
    if (d.status !== 0 || !Number.isInteger(busPid) || busPid <= 0) {
      throw new HypruseError('error.desk', `the desk's session bus (dbus-daemon) did not start: ${(d.stderr ?? '').trim() || d.error?.message || `exit ${d.status}`}`);
    }
    state.pids.dbus = record(busPid);
    writeState(state);

    // 2. the accessibility bus, registered on the session bus as org.a11y.Bus
    state.pids.a11y = spawnLogged(launcher, ['--launch-immediately'], env, join(logs, 'at-spi.log'), dir);
    writeState(state);
    await waitUntil('the AT-SPI bus socket', 10000, () => {
      if (!alive(state.pids.a11y)) throw new HypruseError('error.desk', `at-spi-bus-launcher exited during the desk's start${tail(join(logs, 'at-spi.log'))}`);
      return existsSync(join(runtimeDir, 'at-spi', 'bus')) || null;
    }, () => tail(join(logs, 'at-spi.log')));

    // 3. the compositor
    const how = spec.prepare({ dir, width, height });
    for (const [file, text] of Object.entries(how.files)) writeFileSync(file, text, { mode: 0o600 });
    state.pids.compositor = spawnLogged(program, how.args, { ...env, ...how.env }, join(logs, 'compositor.log'), env.HOME ?? dir);
    writeState(state);
    const found = await waitUntil(`${factory.id}'s sockets in ${runtimeDir}`, 15000, () => {
      if (!alive(state.pids.compositor)) throw new HypruseError('error.desk', `${program} exited during the desk's start${tail(join(logs, 'compositor.log'))}`);
      return spec.ready({ runtimeDir, pid: state.pids.compositor!.pid, uid });
    }, () => tail(join(logs, 'compositor.log')));
    state.env = { XDG_RUNTIME_DIR: runtimeDir, DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(runtimeDir, 'bus')}`, ...found };
    writeState(state);
    // 4. a desk with an owner gets a reaper: should the owner end without stopping it (SIGKILL), the reaper does
    if (state.owner && opts.reaper) {
      state.pids.reaper = spawnLogged(opts.reaper[0]!, [...opts.reaper.slice(1), 'desk', 'reap', name], hostOnly(host), join(logs, 'reaper.log'), '/');
      writeState(state);
    }
    return state;
  } catch (err) {
    await stopDesk(state, host).catch(() => undefined);
    throw err;
  }
}

// ------------------------------------------------------------------ stop

export interface StopReport {
  name: string;
  /** How many processes were ended (services and apps). */
  ended: number;
  apps: number;
  /** Pids that survived SIGKILL (should be none). */
  survivors: number[];
}

/**
 * Stop a desk: its apps first (they exit while their buses still exist), then
 * the compositor, the accessibility bus and whatever else carries the marker,
 * the session bus last; SIGTERM, then SIGKILL after the grace. By pid only.
 * The folder (with the runtime dir) is removed.
 */
export async function stopDesk(s: DeskState, _env: NodeJS.ProcessEnv = process.env, graceMs = scaledMs(3000)): Promise<StopReport> {
  const own = Object.values(s.pids);
  const bus = s.pids.dbus;
  const apps = deskApps(s);
  const survivors: number[] = [];
  survivors.push(...(await terminate(apps, graceMs)).map((r) => r.pid));
  const rest = [...own.filter((r) => r.pid !== bus?.pid), ...markedProcesses(s.instance).filter((r) => r.pid !== bus?.pid)];
  survivors.push(...(await terminate(rest, graceMs)).map((r) => r.pid));
  const last = [...(bus ? [bus] : []), ...markedProcesses(s.instance)];
  survivors.push(...(await terminate(last, graceMs)).map((r) => r.pid));
  const ended = new Set([...apps, ...rest, ...last].map((r) => r.pid)).size;
  rmSync(s.dir, { recursive: true, force: true });
  return { name: s.name, ended, apps: apps.length, survivors: [...new Set(survivors)] };
}

/** Stop every desk this process owns or whose owner has ended (called when hypruse stops). */
export async function stopOwnedDesks(env: NodeJS.ProcessEnv = process.env, owner = process.pid): Promise<StopReport[]> {
  const out: StopReport[] = [];
  for (const d of listDesks(env)) {
    if (d.state.owner && (d.state.owner.pid === owner || !alive(d.state.owner))) out.push(await stopDesk(d.state, env));
  }
  return out;
}
