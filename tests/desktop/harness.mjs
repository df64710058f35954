#!/usr/bin/env node
// The real-desktop test harness: a headless sway desktop with its own session
// bus and AT-SPI bus, started idempotently, torn down by recorded PID.
//
//   npm run desktop -- start | stop | status | env [--json]
//   npm run desktop -- app NAME [--workspace W] [--no-wait] [--timeout MS] [-- EXTRA ARGS]
//   npm run desktop -- kill-app PID | reset
//   npm run desktop -- exec -- CMD ARGS...
//
// Plain Node ESM (no build). Everything of the desktop runs as an
// unprivileged user: as root that is `hypruse-desk` (created once; sway
// refuses root), otherwise the calling user. Every process the desktop starts
// carries HYPRUSE_DESKTOP_INSTANCE=<id> in its environment, so `stop` also
// finds what the recorded PIDs spawned (the AT-SPI bus daemon, the registry,
// D-Bus-activated services, a terminal's shell) and ends exactly those.
// Logs go to stderr; stdout carries only the command's answer.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  accessSync, chmodSync, chownSync, closeSync, constants, existsSync, mkdirSync, openSync, readFileSync,
  readdirSync, renameSync, rmSync, writeFileSync,
} from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const IS_ROOT = process.getuid() === 0;
const DESK_USER_AS_ROOT = process.env.HYPRUSE_DESKTOP_USER || 'hypruse-desk';
const BASE = resolve(process.env.HYPRUSE_DESKTOP_DIR || (IS_ROOT ? '/tmp/hypruse-desktop' : `/tmp/hypruse-desktop-${process.getuid()}`));
const RUN = join(BASE, 'run');
const LOGS = join(BASE, 'logs');
const APPS = join(BASE, 'apps');
const STATE = join(BASE, 'state.json');
const LOCK = join(BASE, 'lock');
const SYS_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

const OUTPUTS = [
  { name: 'HEADLESS-1', mode: '1280x800', scale: 1, x: 0, y: 0, logical: [1280, 800] },
  { name: 'HEADLESS-2', mode: '1920x1080', scale: 1.5, x: 1280, y: 0, logical: [1280, 720] },
];

const FIXTURES = {
  'zenity-entry': { cmd: 'zenity', args: ['--entry', '--title=hypruse entry', '--text=Name?'] },
  'zenity-question': { cmd: 'zenity', args: ['--question', '--title=hypruse question', '--text=Proceed?'] },
  'widget-factory': { cmd: 'gtk3-widget-factory', args: [] },
  // a form of two unnamed fields labelled First and Last; OK prints "first|last"
  'zenity-forms': { cmd: 'zenity', args: ['--forms', '--title=hypruse form', '--text=Who?', '--add-entry=First', '--add-entry=Last'] },
  // its own process (no D-Bus single instance), so its window has the launched pid; settings in
  // memory and its files in this desktop's runtime dir, so a session an earlier run left behind is never restored
  mousepad: { cmd: '/usr/bin/env', args: ['GSETTINGS_BACKEND=memory', `XDG_CONFIG_HOME=${join(RUN, 'mousepad')}`, `XDG_DATA_HOME=${join(RUN, 'mousepad')}`, 'mousepad', '--disable-server'] },
  foot: { cmd: 'foot', args: [] },
  // one big button printing a line per registered click; `-- gtk3|gtk4|qt5` picks the toolkit
  'click-counter': { cmd: '/usr/bin/python3', args: [join(dirname(fileURLToPath(import.meta.url)), 'click-counter.py')] },
  // a GTK 3 window printing each button press with its click count (1-3), modifiers and surface point
  'pointer-probe': { cmd: '/usr/bin/python3', args: [join(dirname(fileURLToPath(import.meta.url)), 'pointer-probe.py')] },
  // GTK 4: a main window whose button opens a header-bar (client-side-decorated) dialog with an entry, Cancel and Apply
  'gtk4-dialog': { cmd: '/usr/bin/python3', args: [join(dirname(fileURLToPath(import.meta.url)), 'gtk4-dialog.py')] },
  // GTK 3: a labelled entry, a check button, an expander, a combo box, a notebook, a long scrolled list, Cancel and OK (OK prints them all)
  'gtk3-form': { cmd: '/usr/bin/python3', args: [join(dirname(fileURLToPath(import.meta.url)), 'gtk3-form.py')] },
};

class HarnessError extends Error {}

const log = (msg) => process.stderr.write(`desktop: ${msg}\n`);
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

// ---------------------------------------------------------------- processes

/** Start time of a process (field 22 of /proc/PID/stat), or null if gone or a zombie. */
function procStart(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (rest[0] === 'Z' || rest[0] === 'X') return null;
    return rest[19];
  } catch {
    return null;
  }
}

function procParent(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

const alive = (rec) => rec != null && procStart(rec.pid) === rec.start;
const record = (pid) => ({ pid, start: procStart(pid) });

/** PIDs whose environment carries this desktop's instance marker (never this process or its ancestors). */
function markedPids(instance) {
  if (!instance) return [];
  const needle = `\0HYPRUSE_DESKTOP_INSTANCE=${instance}\0`;
  const ancestors = new Set();
  for (let p = process.pid; p > 1; p = procParent(p)) ancestors.add(p);
  const out = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (ancestors.has(pid)) continue;
    let env;
    try {
      env = `\0${readFileSync(`/proc/${pid}/environ`, 'latin1')}`;
    } catch {
      continue;
    }
    if (env.includes(needle) && procStart(pid) !== null) out.push(record(pid));
  }
  return out;
}

/** SIGTERM the given processes, wait, SIGKILL what is left, and wait until all are gone. */
function terminate(recs, graceMs = 3000) {
  const live = () => recs.filter(alive);
  for (const r of live()) signal(r.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (live().length && Date.now() < deadline) sleep(50);
  const stubborn = live();
  for (const r of stubborn) {
    log(`pid ${r.pid} ignored SIGTERM; sending SIGKILL`);
    signal(r.pid, 'SIGKILL');
  }
  const killDeadline = Date.now() + 3000;
  while (live().length && Date.now() < killDeadline) sleep(50);
  const left = live();
  if (left.length) throw new HarnessError(`processes survived SIGKILL: ${left.map((r) => r.pid).join(', ')}`);
  // All have exited; their zombies (reparented to init) are init's to reap.
}

function signal(pid, sig) {
  try {
    process.kill(pid, sig);
  } catch (e) {
    if (e.code !== 'ESRCH') throw e;
  }
}

// ---------------------------------------------------------------- the desktop user

function passwdEntry(name) {
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const f = line.split(':');
    if (f[0] === name) return { name, uid: Number(f[2]), gid: Number(f[3]), home: f[5] };
  }
  return null;
}

function desktopUser(create) {
  if (!IS_ROOT) {
    const u = userInfo();
    return { name: u.username, uid: u.uid, gid: u.gid, home: u.homedir };
  }
  let u = passwdEntry(DESK_USER_AS_ROOT);
  if (!u && create) {
    log(`creating the unprivileged desktop user ${DESK_USER_AS_ROOT} (sway refuses to run as root)`);
    const r = spawnSync('useradd', ['--create-home', '--shell', '/bin/bash', '--comment', 'hypruse test desktop', DESK_USER_AS_ROOT], { encoding: 'utf8', timeout: 15000 });
    // A concurrent harness may have created it meanwhile (exit 9: user exists).
    if (r.status !== 0 && r.status !== 9) throw new HarnessError(`useradd ${DESK_USER_AS_ROOT} failed: ${(r.stderr || r.error?.message || '').trim()}`);
    u = passwdEntry(DESK_USER_AS_ROOT);
  }
  if (!u) throw new HarnessError(`desktop user ${DESK_USER_AS_ROOT} does not exist; run "npm run desktop -- start" first`);
  return u;
}

/** The environment every process of the desktop gets. */
function baseEnv(user, instance) {
  return {
    PATH: SYS_PATH,
    HOME: user.home,
    USER: user.name,
    LOGNAME: user.name,
    LANG: process.env.LANG || 'C.UTF-8',
    XDG_RUNTIME_DIR: RUN,
    DBUS_SESSION_BUS_ADDRESS: `unix:path=${RUN}/bus`,
    HYPRUSE_DESKTOP_INSTANCE: instance,
  };
}

function appEnv(state) {
  return {
    ...baseEnv(state.user, state.instance),
    WAYLAND_DISPLAY: state.waylandDisplay,
    SWAYSOCK: state.swaysock,
    XDG_SESSION_TYPE: 'wayland',
    XDG_CURRENT_DESKTOP: 'sway',
    GDK_BACKEND: 'wayland',
    // a11y on: GTK 3 loads the AT-SPI bridge unless NO_AT_BRIDGE is set (it is not, env is built from scratch).
    GTK_A11Y: 'atspi',
  };
}

const asUser = (user) => (IS_ROOT && user ? { uid: user.uid, gid: user.gid } : {});

function run(user, env, cmd, args, timeoutMs = 5000) {
  const r = spawnSync(cmd, args, { env, encoding: 'utf8', timeout: timeoutMs, cwd: '/', ...asUser(user) });
  if (r.error?.code === 'ENOENT') throw new HarnessError(`${cmd} is not installed`);
  if (r.error?.code === 'ETIMEDOUT') return { ok: false, out: r.stdout ?? '', err: `${cmd} timed out after ${timeoutMs} ms` };
  return { ok: r.status === 0, out: r.stdout ?? '', err: (r.stderr ?? '').trim() || (r.error?.message ?? `exit ${r.status}`) };
}

function spawnDetached(user, env, cmd, args, logName, cwd = '/') {
  const fd = openSync(join(LOGS, logName), 'a');
  let child;
  try {
    child = spawn(cmd, args, { env, detached: true, stdio: ['ignore', fd, fd], cwd, ...asUser(user) });
  } finally {
    closeSync(fd);
  }
  child.on('error', () => {});
  child.unref();
  if (!child.pid) throw new HarnessError(`could not start ${cmd} (is it installed?)`);
  return record(child.pid);
}

// ---------------------------------------------------------------- state and lock

function readState() {
  try {
    return JSON.parse(readFileSync(STATE, 'utf8'));
  } catch {
    return null;
  }
}

function writeState(state) {
  const tmp = `${STATE}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o644 });
  renameSync(tmp, STATE);
}

function withLock(fn, timeoutMs = 120000) {
  mkdirSync(BASE, { recursive: true, mode: 0o755 });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, 'pid'), `${process.pid}\n`);
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      let holder = 0;
      try {
        holder = Number(readFileSync(join(LOCK, 'pid'), 'utf8'));
      } catch {
        /* being written or removed */
      }
      if (holder && procStart(holder) === null) {
        rmSync(LOCK, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new HarnessError(`another harness command (pid ${holder || '?'}) holds ${LOCK}`);
      sleep(100);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- sway and bus queries

function swaymsg(state, args, timeoutMs = 5000) {
  const r = run(state.user, appEnv(state), 'swaymsg', ['-s', state.swaysock, '-r', ...args], timeoutMs);
  if (!r.ok) throw new HarnessError(`swaymsg ${args.join(' ')} failed: ${r.err}`);
  return JSON.parse(r.out);
}

function outputsProblem(outputs) {
  for (const want of OUTPUTS) {
    const o = outputs.find((x) => x.name === want.name);
    if (!o) return `output ${want.name} is missing`;
    const r = o.rect;
    if (o.scale !== want.scale || r.x !== want.x || r.y !== want.y || r.width !== want.logical[0] || r.height !== want.logical[1]) {
      return `output ${want.name} is ${r.width}x${r.height}@${r.x},${r.y} scale ${o.scale}, expected ${want.logical.join('x')}@${want.x},${want.y} scale ${want.scale}`;
    }
  }
  return null;
}

function a11yAddress(user, env) {
  const r = run(user, env, 'busctl', ['--address', env.DBUS_SESSION_BUS_ADDRESS, '--json=short', 'call', 'org.a11y.Bus', '/org/a11y/bus', 'org.a11y.Bus', 'GetAddress'], 3000);
  if (!r.ok) return { error: r.err };
  return { address: JSON.parse(r.out).data[0] };
}

/** Says so when the AT-SPI bus launcher started with the desktop has ended (another serves the bus now). */
function noteLauncher(state) {
  if (state.launcher && !alive(state.launcher)) {
    log(`note: the AT-SPI bus launcher started with the desktop (pid ${state.launcher.pid}) has ended; the session bus started another when asked${tail(join(LOGS, 'at-spi.log'), 5)}`);
  }
}

/** null when healthy, else the reason. */
function healthProblem(state) {
  if (!state) return 'no desktop is running (no state file)';
  for (const [name, rec] of Object.entries(state.pids)) {
    if (!alive(rec)) return `${name} (pid ${rec.pid}) is not running`;
  }
  // The AT-SPI bus launcher is not among them: the session bus starts another on demand (D-Bus
  // activation, as on a login session) if it ends; the bus answering GetAddress below is what counts.
  if (!existsSync(state.swaysock)) return `sway IPC socket ${state.swaysock} is missing`;
  if (!existsSync(join(RUN, state.waylandDisplay))) return `Wayland socket ${state.waylandDisplay} is missing`;
  let outputs;
  try {
    outputs = swaymsg(state, ['-t', 'get_outputs'], 3000);
  } catch (e) {
    return e.message;
  }
  const bad = outputsProblem(outputs);
  if (bad) return bad;
  const a11y = a11yAddress(state.user, baseEnv(state.user, state.instance));
  if (a11y.error) return `the session bus does not answer org.a11y.Bus.GetAddress: ${a11y.error}`;
  return null;
}

function waitUntil(what, timeoutMs, check, onTimeout = () => '') {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > deadline) throw new HarnessError(`timed out after ${timeoutMs} ms waiting for ${what}${onTimeout()}`);
    sleep(50);
  }
}

const tail = (file, lines = 15) => {
  try {
    const text = readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    return text ? `\n--- ${file} (last lines) ---\n${text}` : '';
  } catch {
    return '';
  }
};

// ---------------------------------------------------------------- commands

const SWAY_CONFIG = `# written by tests/desktop/harness.mjs
output HEADLESS-1 resolution 1280x800 position 0 0
# workspace 2 always lives on the scale-1.5 monitor, whichever test created it first
workspace 1 output HEADLESS-1
workspace 2 output HEADLESS-2
xwayland disable
set $mod Mod4
bindsym $mod+Return exec sh -c 'touch ${RUN}/bind-fired-super-return && exec foot'
bindsym $mod+Shift+q kill
# bindings that leave a file when they run: hypruse must never press them (tests/e2e/security-keys.test.ts)
bindsym $mod+Shift+Return exec touch ${RUN}/bind-fired-super-shift-return
bindsym Control+Mod1+m exec touch ${RUN}/bind-fired-ctrl-alt-m
bindcode $mod+Control+38 exec touch ${RUN}/bind-fired-code-38
bindsym Print exec touch ${RUN}/bind-fired-print
bindsym section exec touch ${RUN}/bind-fired-section
bindsym $mod+1 workspace number 1
bindsym $mod+2 workspace number 2
bindsym $mod+3 workspace number 3
bindsym $mod+Shift+1 move container to workspace number 1
bindsym $mod+Shift+2 move container to workspace number 2
bindsym $mod+f fullscreen toggle
bindsym $mod+Shift+space floating toggle
bindsym $mod+r mode "resize"
mode "resize" {
    bindsym Left resize shrink width 10px
    bindsym Right resize grow width 10px
    bindsym Up resize shrink height 10px
    bindsym Down resize grow height 10px
    bindsym Return mode "default"
    bindsym Escape mode "default"
}
`;

// Includes the stock session bus config and also lets root connect: dbus
// authenticates by uid, and by default only the bus owner may connect, so a
// test suite running as root could not reach the desktop user's bus otherwise.
const SESSION_CONF = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <include>/usr/share/dbus-1/session.conf</include>
  <policy context="default">
    <allow user="root"/>
  </policy>
</busconfig>
`;

function onPath(tool) {
  const dirs = tool.includes('/') ? [''] : SYS_PATH.split(':');
  return dirs.some((d) => {
    try {
      accessSync(d ? join(d, tool) : tool, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function cleanup(state) {
  if (!state) return;
  const bus = state.pids?.dbus;
  const notBus = (r) => r.pid !== bus?.pid;
  // Apps first (they exit while their buses still exist), then sway, the a11y
  // launcher and whatever else carries the marker, the session bus last.
  terminate((state.apps ?? []).filter(alive));
  terminate([...Object.values(state.pids ?? {}), ...(state.launcher ? [state.launcher] : []), ...markedPids(state.instance)].filter(notBus));
  terminate([...markedPids(state.instance), ...(bus ? [bus] : [])]);
  rmSync(RUN, { recursive: true, force: true });
  rmSync(APPS, { recursive: true, force: true });
  rmSync(STATE, { force: true });
}

function cmdStart() {
  withLock(() => {
    const old = readState();
    if (old) {
      const problem = healthProblem(old);
      if (!problem) {
        noteLauncher(old);
        log(`already running and healthy (sway pid ${old.pids.sway.pid}); nothing to do`);
        return;
      }
      log(`stale desktop (${problem}); cleaning up and starting again`);
      cleanup(old);
    }
    for (const tool of ['sway', 'swaymsg', 'dbus-daemon', 'busctl', '/usr/libexec/at-spi-bus-launcher']) {
      if (!onPath(tool)) throw new HarnessError(`${tool} is not installed (apt-get install sway dbus dbus-user-session at-spi2-core)`);
    }
    const t0 = Date.now();
    const user = desktopUser(true);
    const instance = randomBytes(8).toString('hex');
    const state = { version: 1, instance, user, base: BASE, runtimeDir: RUN, pids: {}, apps: [], startedAt: new Date().toISOString() };

    rmSync(RUN, { recursive: true, force: true });
    rmSync(APPS, { recursive: true, force: true });
    for (const d of [LOGS, APPS]) mkdirSync(d, { recursive: true, mode: 0o755 });
    chmodSync(BASE, 0o755); // the desktop user reads its configs here (mkdtemp makes 0700)
    mkdirSync(RUN, { mode: 0o700 });
    if (IS_ROOT) chownSync(RUN, user.uid, user.gid);
    chmodSync(RUN, 0o700);
    for (const f of ['sway.log', 'at-spi.log']) writeFileSync(join(LOGS, f), '');
    writeFileSync(join(BASE, 'session.conf'), SESSION_CONF, { mode: 0o644 });
    writeFileSync(join(BASE, 'sway.config'), SWAY_CONFIG, { mode: 0o644 });
    writeState(state); // from here on, a failed start can be cleaned up

    try {
      const env = baseEnv(user, instance);
      // 1. the session bus
      const d = run(user, env, 'dbus-daemon', [`--config-file=${join(BASE, 'session.conf')}`, `--address=unix:path=${RUN}/bus`, '--fork', '--print-pid'], 10000);
      const busPid = Number(d.out.trim().split('\n')[0]);
      if (!d.ok || !busPid) throw new HarnessError(`dbus-daemon did not start: ${d.err}`);
      state.pids.dbus = record(busPid);
      state.dbusAddress = env.DBUS_SESSION_BUS_ADDRESS;
      writeState(state);

      // 2. the accessibility bus
      state.launcher = spawnDetached(user, env, '/usr/libexec/at-spi-bus-launcher', ['--launch-immediately'], 'at-spi.log');
      writeState(state);
      let lastA11y = '';
      const a11y = waitUntil('the AT-SPI bus (org.a11y.Bus.GetAddress)', 10000, () => {
        if (!alive(state.launcher)) throw new HarnessError(`at-spi-bus-launcher exited${tail(join(LOGS, 'at-spi.log'))}`);
        const r = a11yAddress(user, env);
        lastA11y = r.error ?? '';
        return r.address && existsSync(join(RUN, 'at-spi', 'bus')) ? r.address : null;
      }, () => `: ${lastA11y}`);
      state.a11yAddress = a11y;

      // 3. sway
      const swayEnv = { ...env, WLR_BACKENDS: 'headless', WLR_RENDERER: 'pixman', WLR_LIBINPUT_NO_DEVICES: '1' };
      state.pids.sway = spawnDetached(user, swayEnv, 'sway', ['--config', join(BASE, 'sway.config')], 'sway.log', user.home);
      writeState(state);
      const sock = join(RUN, `sway-ipc.${user.uid}.${state.pids.sway.pid}.sock`);
      const display = waitUntil('the sway IPC and Wayland sockets', 15000, () => {
        if (!alive(state.pids.sway)) throw new HarnessError(`sway exited during start${tail(join(LOGS, 'sway.log'))}`);
        const wl = readdirSync(RUN).find((f) => /^wayland-\d+$/.test(f));
        return wl && existsSync(sock) ? wl : null;
      }, () => tail(join(LOGS, 'sway.log')));
      state.swaysock = sock;
      state.waylandDisplay = display;
      writeState(state);

      // 4. the second, fractional-scale monitor; positions of all outputs set explicitly
      swaymsg(state, ['create_output']);
      for (const o of OUTPUTS) swaymsg(state, ['output', o.name, 'resolution', o.mode, 'scale', String(o.scale), 'position', String(o.x), String(o.y)]);
      let lastProblem = '';
      waitUntil('both outputs at their scales and positions', 10000, () => {
        lastProblem = outputsProblem(swaymsg(state, ['-t', 'get_outputs'])) ?? '';
        return !lastProblem;
      }, () => `: ${lastProblem}`);
      writeState(state);
      log(`started in ${Date.now() - t0} ms: sway pid ${state.pids.sway.pid} as ${user.name}, ${display}, ${RUN}`);
    } catch (e) {
      log('start failed; stopping what was started');
      cleanup(state);
      throw e;
    }
  });
}

function cmdStop() {
  withLock(() => {
    const state = readState();
    if (!state) {
      log('no desktop is running');
      rmSync(RUN, { recursive: true, force: true });
      return;
    }
    cleanup(state);
    log(`stopped (sway pid ${state.pids?.sway?.pid ?? '-'})`);
  });
}

function cmdStatus() {
  const state = readState();
  const problem = healthProblem(state);
  if (problem) {
    process.stdout.write(`unhealthy: ${problem}\n`);
    return 1;
  }
  noteLauncher(state);
  const apps = (state.apps ?? []).filter(alive).map((a) => `${a.name}:${a.pid}`);
  process.stdout.write(`healthy: sway pid ${state.pids.sway.pid} as ${state.user.name}, ${state.waylandDisplay}, ${RUN}; apps: ${apps.join(' ') || 'none'}\n`);
  return 0;
}

function envOf(state) {
  return {
    WAYLAND_DISPLAY: state.waylandDisplay,
    SWAYSOCK: state.swaysock,
    XDG_RUNTIME_DIR: state.runtimeDir,
    DBUS_SESSION_BUS_ADDRESS: state.dbusAddress,
    HYPRUSE_TEST_DESKTOP_USER: state.user.name,
    HYPRUSE_DESKTOP_DIR: BASE,
  };
}

function runningState() {
  const state = readState();
  if (!state || !alive(state.pids?.sway) || !state.swaysock) throw new HarnessError('no desktop is running; start one with "npm run desktop -- start"');
  return state;
}

function cmdEnv(args) {
  const env = envOf(runningState());
  if (args.includes('--json')) process.stdout.write(`${JSON.stringify(env)}\n`);
  else process.stdout.write(Object.entries(env).map(([k, v]) => `${k}=${v}\n`).join(''));
}

function findWindow(tree, pid) {
  const walk = (node, output, workspace) => {
    if (node.type === 'output') output = node.name;
    if (node.type === 'workspace') workspace = node.name;
    if (node.pid === pid && (node.type === 'con' || node.type === 'floating_con')) return { conId: node.id, output, workspace };
    for (const child of [...(node.nodes ?? []), ...(node.floating_nodes ?? [])]) {
      const hit = walk(child, output, workspace);
      if (hit) return hit;
    }
    return null;
  };
  return walk(tree, null, null);
}

function parseOpts(args, spec) {
  const opts = {};
  const rest = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      opts['--'] = args.slice(i + 1);
      break;
    }
    if (a.startsWith('--')) {
      const [k, inline] = a.slice(2).split(/=(.*)/s);
      if (!(k in spec)) throw new HarnessError(`unknown option --${k}; accepted: ${Object.keys(spec).map((s) => `--${s}`).join(', ')}`);
      if (spec[k] === 'flag') opts[k] = true;
      else {
        const v = inline ?? args[++i];
        if (v === undefined) throw new HarnessError(`--${k} needs a value`);
        opts[k] = v;
      }
    } else rest.push(a);
  }
  return { opts, rest };
}

function cmdApp(args) {
  const { opts, rest } = parseOpts(args, { workspace: 'value', 'no-wait': 'flag', timeout: 'value' });
  const name = rest[0];
  const fixture = FIXTURES[name];
  if (!fixture || rest.length !== 1) throw new HarnessError(`usage: app NAME [--workspace W] [--no-wait] [--timeout MS] [-- EXTRA ARGS]; NAME is one of ${Object.keys(FIXTURES).join(', ')}`);
  const timeoutMs = opts.timeout ? Number(opts.timeout) : 15000;
  if (!(timeoutMs > 0)) throw new HarnessError(`--timeout must be a positive number of milliseconds, got ${opts.timeout}`);
  const state = runningState();
  if (opts.workspace) swaymsg(state, ['workspace', opts.workspace]);

  const tag = `${name}-${Date.now()}-${randomBytes(3).toString('hex')}`;
  const stdout = join(APPS, `${tag}.stdout`);
  const stderr = join(APPS, `${tag}.stderr`);
  const outFd = openSync(stdout, 'w', 0o644);
  const errFd = openSync(stderr, 'w', 0o644);
  let child;
  try {
    child = spawn(fixture.cmd, [...fixture.args, ...(opts['--'] ?? [])], {
      env: appEnv(state), detached: true, stdio: ['ignore', outFd, errFd], cwd: state.user.home, ...asUser(state.user),
    });
  } finally {
    closeSync(outFd);
    closeSync(errFd);
  }
  child.on('error', () => {});
  child.unref();
  if (!child.pid) throw new HarnessError(`could not start ${fixture.cmd} (is it installed?)`);
  const app = { name, ...record(child.pid), stdout, stderr };
  withLock(() => {
    const s = readState();
    if (!s || s.instance !== state.instance) throw new HarnessError('the desktop stopped while the app was launched');
    s.apps = [...(s.apps ?? []).filter(alive), app];
    writeState(s);
  });

  const answer = { pid: app.pid, stdout, stderr };
  if (!opts['no-wait']) {
    const t0 = Date.now();
    const win = waitUntil(`a window of ${name} (pid ${app.pid}) in sway's tree`, timeoutMs, () => {
      if (!alive(app)) throw new HarnessError(`${name} (pid ${app.pid}) exited before showing a window${tail(stderr)}`);
      return findWindow(swaymsg(state, ['-t', 'get_tree']), app.pid);
    }, () => tail(stderr));
    if (opts.workspace && win.workspace !== opts.workspace) {
      swaymsg(state, [`[con_id=${win.conId}]`, 'move', 'container', 'to', 'workspace', opts.workspace]);
      Object.assign(win, findWindow(swaymsg(state, ['-t', 'get_tree']), app.pid));
    }
    Object.assign(answer, win, { ms: Date.now() - t0 });
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}

/** A process and its marked descendants (an app and, say, a terminal's shell). */
function family(pid, marked) {
  const fam = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const r of marked) if (!fam.has(r.pid) && fam.has(procParent(r.pid))) (fam.add(r.pid), (grew = true));
  }
  return marked.filter((r) => fam.has(r.pid));
}

function cmdKillApp(args) {
  const pid = Number(args[0]);
  if (!Number.isInteger(pid) || pid <= 0) throw new HarnessError('usage: kill-app PID (a pid printed by "app")');
  withLock(() => {
    const state = readState();
    const app = state?.apps?.find((a) => a.pid === pid);
    if (!app) throw new HarnessError(`pid ${pid} is not an app launched through this harness`);
    terminate([app, ...family(pid, markedPids(state.instance)).filter((r) => r.pid !== pid)]);
    state.apps = state.apps.filter((a) => a.pid !== pid && alive(a));
    writeState(state);
  });
}

/** Views (windows) in sway's tree with their pids. */
function views(state) {
  const out = [];
  const walk = (n) => {
    if ((n.type === 'con' || n.type === 'floating_con') && n.pid) out.push({ conId: n.id, pid: n.pid });
    for (const c of [...(n.nodes ?? []), ...(n.floating_nodes ?? [])]) walk(c);
  };
  walk(swaymsg(state, ['-t', 'get_tree']));
  return out;
}

/**
 * Back to the state right after start, without restarting: every app gone
 * (launched ones by PID, any other window closed, then its client process
 * ended), binding mode default, outputs as configured, workspace 1 on
 * HEADLESS-1 focused, the cursor in its middle.
 */
function cmdReset() {
  withLock(() => {
    const state = runningState();
    const marked = markedPids(state.instance);
    const apps = (state.apps ?? []).filter(alive);
    terminate(apps.flatMap((a) => [a, ...family(a.pid, marked).filter((r) => r.pid !== a.pid)]));
    state.apps = [];
    writeState(state);
    if (views(state).length) {
      for (const v of views(state)) {
        try {
          swaymsg(state, [`[con_id=${v.conId}]`, 'kill']); // sway 1.7 has no [all]
        } catch {
          /* closed meanwhile */
        }
      }
      const deadline = Date.now() + 2000;
      while (views(state).length && Date.now() < deadline) sleep(50);
      // Clients that ignored the close request: end them and their marked children by PID.
      const left = views(state).filter((v) => v.pid !== state.pids.sway.pid).map((v) => record(v.pid)).filter((r) => r.start);
      if (left.length) {
        log(`ending clients that ignored the close request: ${left.map((r) => r.pid).join(', ')}`);
        const now = markedPids(state.instance);
        terminate(left.flatMap((r) => [r, ...family(r.pid, now).filter((x) => x.pid !== r.pid)]));
      }
      waitUntil('every window to leave the tree', 3000, () => views(state).length === 0);
    }
    swaymsg(state, ['mode', 'default']);
    for (const o of OUTPUTS) swaymsg(state, ['output', o.name, 'enable', 'resolution', o.mode, 'scale', String(o.scale), 'position', String(o.x), String(o.y)]);
    swaymsg(state, ['focus', 'output', OUTPUTS[0].name]);
    swaymsg(state, ['workspace', 'number', '1']);
    swaymsg(state, ['seat', 'seat0', 'cursor', 'set', String(OUTPUTS[0].logical[0] / 2), String(OUTPUTS[0].logical[1] / 2)]);
    let problem = '';
    waitUntil('the outputs to be as configured', 5000, () => !(problem = outputsProblem(swaymsg(state, ['-t', 'get_outputs'])) ?? ''), () => `: ${problem}`);
  });
}

function cmdExec(args) {
  const i = args.indexOf('--');
  const argv = i >= 0 ? args.slice(i + 1) : args;
  if (!argv.length) throw new HarnessError('usage: exec -- CMD ARGS...');
  const state = runningState();
  const env = { ...process.env, ...envOf(state) };
  if (IS_ROOT) Object.assign(env, { HOME: state.user.home, USER: state.user.name, LOGNAME: state.user.name });
  const child = spawn(argv[0], argv.slice(1), { env, stdio: 'inherit', ...asUser(state.user) });
  const forward = (sig) => child.pid && signal(child.pid, sig);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, forward);
  child.on('error', (e) => {
    log(`exec ${argv[0]} failed: ${e.message}`);
    process.exit(127);
  });
  child.on('exit', (code, sig) => process.exit(code ?? 128 + (sig ? osSignal(sig) : 0)));
}

const osSignal = (sig) => ({ SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 })[sig] ?? 1;

const USAGE = `usage: npm run desktop -- <command>
  start                 bring the headless sway desktop up (idempotent)
  stop                  stop every process of the desktop, remove its runtime dir
  status                healthy or not, with the reason (exit 1 when not)
  env [--json]          the environment a test needs (KEY=VALUE lines)
  app NAME [--workspace W] [--no-wait] [--timeout MS] [-- ARGS]
                        launch a fixture (${Object.keys(FIXTURES).join(', ')}); prints {"pid":N,...}
  kill-app PID          stop an app launched by "app"
  reset                 close every app and window; mode, outputs, workspace 1, cursor as after start
  exec -- CMD ARGS...   run CMD as the desktop user in the desktop environment
state: ${STATE}`;

function main(argv) {
  const [cmd, ...args] = argv;
  switch (cmd) {
    case 'start': return cmdStart(), 0;
    case 'stop': return cmdStop(), 0;
    case 'status': return cmdStatus();
    case 'env': return cmdEnv(args), 0;
    case 'app': return cmdApp(args), 0;
    case 'kill-app': return cmdKillApp(args), 0;
    case 'reset': return cmdReset(), 0;
    case 'exec': return cmdExec(args), undefined;
    case undefined: case 'help': case '--help': case '-h':
      process.stdout.write(`${USAGE}\n`);
      return cmd ? 0 : 2;
    default:
      process.stderr.write(`unknown command "${cmd}"\n${USAGE}\n`);
      return 2;
  }
}

try {
  const code = main(process.argv.slice(2));
  if (code !== undefined) process.exitCode = code;
} catch (e) {
  if (e instanceof HarnessError) {
    log(`error: ${e.message}`);
    process.exitCode = 1;
  } else throw e;
}
