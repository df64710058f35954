#!/usr/bin/env node
// The real-compositor stage: real Hyprland 0.57, sway 1.12 and labwc 0.20 in a QEMU guest
// built from Debian sid packages (see docs/real-compositors.md).
//
//   node tests/real/run.mjs                     test: every compositor, contract + tool suites, doctor
//   node tests/real/run.mjs prepare             build (or reuse) the cached rootfs only
//   node tests/real/run.mjs record              record IPC transcripts into tests/simulators/recorded/
//   node tests/real/run.mjs exec --compositor hyprland|sway|labwc [--project DIR] -- SCRIPT [ARGS...]
//                                               boot, start that compositor, run SCRIPT (bash) as the
//                                               desktop user in the session, print its stdout/stderr
//
// Options: --report-dir DIR (test: where the vitest JSON reports and summary.json go),
// --only hyprland|sway|labwc (test: those compositors, comma-separated), --project DIR (the checkout the guest sees
// at /hypruse; default this one; it must be built: npm run build).
// Environment: HYPRUSE_VM_CACHE (rootfs cache; default /var/cache/hypruse-vm as root),
// HYPRUSE_VM_MIRROR (Debian mirror), HYPRUSE_VM_TIME_SCALE (how much slower this machine's
// guest is than on an idle machine of this project's kind, 1 = nominal; default measured from
// the boot; the guest's HYPRUSE_TIME_SCALE is ten times it, TCG being ~10x slower than the host),
// HYPRUSE_VM_MEMORY (MiB, default 4096), HYPRUSE_VM_DEADLINE_S (the most a guest may run after
// its init, default 2400).
// Every boot holds /tmp/hypruse-vm.lock (flock): one guest at a time on this machine.
// Exit: 0 all passed, 1 something failed, 2 usage; a skipped stage (no qemu outside CI) exits 0.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  accessSync, constants, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
const PACKAGES = join(HERE, 'packages.txt');
const BUILD = join(HERE, 'build-rootfs.sh');
const GUEST = join(HERE, 'guest');
const VM_LOCK = '/tmp/hypruse-vm.lock';
const IS_ROOT = process.getuid?.() === 0;
const CI = !!process.env.CI;
const COMPOSITORS = ['hyprland', 'sway', 'labwc'];
/** The compositors with an IPC whose transcripts are recorded (labwc has none). */
const RECORDED = ['hyprland', 'sway'];
/** The contract target ids (tests/contract/targets/real-*.ts) of the guest's compositors. */
const CONTRACT_TARGET = { hyprland: 'real-hyprland-0.57', sway: 'real-sway-1.12,real-wlroots-sway-1.12', labwc: 'real-wlroots-labwc-0.20' };

// Nominal durations (seconds) on an idle machine of this project's kind; every one is
// multiplied by the boot-measured scale. Boot to PID 1 is ~21 s under TCG.
const NOMINAL = { bootToInit: 21, firstInitDeadline: 300, system: 120, perCompositorTest: 900, perCompositorRecord: 420, exec: 900 };
// Nominal guest phases (seconds, idle machine; tests/real/guest/lib.sh names them). The load can rise
// after the boot was measured: a phase slower than its nominal time by more than the boot scale
// raises the scale, and the deadline with it (still capped by HYPRUSE_VM_DEADLINE_S).
const NOMINAL_PHASE = { 'guest-system': 10, session: 3, 'sway-ready': 5, 'labwc-ready': 5, 'hyprland-ipc': 39, 'hyprland-ready': 70 };

const t00 = Date.now();
const say = (msg) => process.stderr.write(`real: ${msg}\n`);
const secs = (ms) => (ms / 1000).toFixed(1);
const phases = [];
const phase = (name, ms) => {
  phases.push([name, ms]);
  say(`phase ${name}: ${secs(ms)} s`);
};

function onPath(tool) {
  return (process.env.PATH || '/usr/sbin:/usr/bin:/sbin:/bin').split(':').concat(['/usr/sbin', '/sbin']).some((d) => {
    try {
      accessSync(join(d, tool), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

// ------------------------------------------------------------------ arguments
function parseArgs(argv) {
  const o = { mode: 'test', compositor: null, only: null, project: ROOT, reportDir: null, script: null, scriptArgs: [] };
  const a = [...argv];
  if (a[0] && !a[0].startsWith('-')) o.mode = a.shift();
  while (a.length) {
    const x = a.shift();
    if (x === '--') {
      o.script = a.shift() ?? null;
      o.scriptArgs = a.splice(0);
    } else if (x === '--compositor') o.compositor = a.shift();
    else if (x === '--only') o.only = a.shift();
    else if (x === '--no-boot') o.noBoot = true;
    else if (x === '--project') o.project = resolve(a.shift() ?? '');
    else if (x === '--report-dir') o.reportDir = resolve(a.shift() ?? '');
    else usage(`unknown argument ${x}`);
  }
  if (!['test', 'prepare', 'record', 'exec'].includes(o.mode)) usage(`unknown mode ${o.mode}`);
  if (o.mode === 'exec') {
    if (!COMPOSITORS.includes(o.compositor)) usage(`exec needs --compositor ${COMPOSITORS.join('|')}`);
    if (!o.script || !existsSync(o.script)) usage(`exec needs a script file after --${o.script ? ` (${o.script} does not exist)` : ''}`);
  }
  if (o.only) {
    o.only = o.only.split(',').filter(Boolean);
    const bad = o.only.filter((c) => !COMPOSITORS.includes(c));
    if (bad.length || !o.only.length) usage(`--only takes ${COMPOSITORS.join(', ')} (or several, comma-separated), not ${bad.join(',')}`);
  }
  return o;
}

function usage(msg) {
  say(msg);
  say('usage: run.mjs [test|prepare|record] [--only hyprland|sway|labwc] [--no-boot] [--report-dir DIR] [--project DIR]');
  say('       run.mjs exec --compositor hyprland|sway|labwc [--project DIR] -- SCRIPT [ARGS...]');
  process.exit(2);
}

// ------------------------------------------------------------------ rootfs cache
export function cacheDir() {
  return process.env.HYPRUSE_VM_CACHE || (IS_ROOT ? '/var/cache/hypruse-vm' : join(homedir(), '.cache/hypruse-vm'));
}

export function rootfsKey() {
  const h = createHash('sha256');
  h.update(readFileSync(PACKAGES));
  h.update('\0');
  h.update(readFileSync(BUILD));
  return h.digest('hex').slice(0, 16);
}

function run(cmd, args, opts = {}) {
  return spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, ...opts });
}

/** Build the rootfs for the current key, or reuse it. Returns its path; throws with the reason. */
export function ensureRootfs() {
  const dir = cacheDir();
  mkdirSync(dir, { recursive: true });
  const key = rootfsKey();
  const rootfs = join(dir, `rootfs-${key}`);
  const ok = `${rootfs}.ok`;
  if (existsSync(ok)) {
    say(`rootfs ${rootfs} (cached)`);
    return rootfs;
  }
  // One builder at a time; a second one waits and then finds it built.
  const t0 = Date.now();
  const tmp = `${rootfs}.building`;
  const script = `set -e; if [ -e '${ok}' ]; then exit 0; fi; rm -rf '${tmp}' '${tmp}'.*.log; bash '${BUILD}' '${tmp}' '${PACKAGES}'; mv '${tmp}' '${rootfs}'; touch '${ok}'`;
  say(`building the rootfs ${rootfs} (Debian sid; a few minutes; log in ${tmp}.*.log)`);
  const r = spawnSync('flock', [join(dir, 'build.lock'), 'bash', '-c', script], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', timeout: 40 * 60 * 1000 });
  for (const line of (r.stdout || '').split('\n')) {
    const m = /^phase (\S+) (\d+)s$/.exec(line);
    if (m) phase(`rootfs-${m[1]}`, Number(m[2]) * 1000);
  }
  if (r.status !== 0 || !existsSync(ok)) throw new Error(`building the rootfs failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`})`);
  phase('rootfs-build', Date.now() - t0);
  // Older keys are dead weight (a rootfs is ~2 GB); removed only while no guest runs (one may boot an older key).
  const old = readdirSync(dir).filter((name) => /^rootfs-[0-9a-f]{16}(\.ok|\.building.*)?$/.test(name) && !name.startsWith(`rootfs-${key}`));
  if (old.length) spawnSync('flock', ['-n', VM_LOCK, 'rm', '-rf', ...old.map((n) => join(dir, n))], { stdio: 'ignore' });
  return rootfs;
}

// ------------------------------------------------------------------ boot
const shq = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;

function latest(dir, prefix) {
  const names = readdirSync(dir).filter((n) => n.startsWith(prefix)).sort();
  if (!names.length) throw new Error(`no ${prefix}* in ${dir}`);
  return join(dir, names[names.length - 1]);
}

/**
 * Boot the guest with plan.sh (a bash fragment using guest/lib.sh) and wait until it powers off.
 * `budget` is the plan's nominal run time in seconds, scaled by the boot-measured factor.
 * Resolves with { jobDir, out, serial, timedOut, bootMs, scale }.
 */
export async function boot(rootfs, { plan, budget, project = ROOT, files = {} }) {
  const jobDir = mkdtempSync(join(tmpdir(), 'hypruse-vm-job-'));
  const out = join(jobDir, 'out');
  mkdirSync(out, { mode: 0o777 });
  spawnSync('chmod', ['777', jobDir, out]);
  for (const [name, src] of Object.entries(files)) copyFileSync(src, join(jobDir, name));
  const given = Number(process.env.HYPRUSE_VM_TIME_SCALE);
  writeFileSync(join(jobDir, 'plan.sh'), `${plan}\n`);
  if (given > 0) writeFileSync(join(jobDir, 'time-scale'), `${Math.min(100, given * 10)}\n`);
  copyFileSync(join(GUEST, 'init.sh'), join(jobDir, 'init.sh'));
  copyFileSync(join(GUEST, 'lib.sh'), join(jobDir, 'lib.sh'));
  // The rootfs's own init only hands over to this boot's job directory; rewritten only when it changed.
  const stub = readFileSync(join(GUEST, 'stub.sh'), 'utf8');
  const initPath = join(rootfs, 'hypruse-init');
  if (!existsSync(initPath) || readFileSync(initPath, 'utf8') !== stub) {
    writeFileSync(`${initPath}.new`, stub, { mode: 0o755 });
    renameSync(`${initPath}.new`, initPath);
  }
  const serial = join(jobDir, 'serial.log');
  const kernel = latest(join(rootfs, 'boot'), 'vmlinuz-');
  const initrd = latest(join(rootfs, 'boot'), 'initrd.img-');
  const mem = process.env.HYPRUSE_VM_MEMORY || '4096';
  const append = [
    'console=ttyS0', 'loglevel=4', 'root=rootfs', 'rootfstype=9p', 'rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose', 'rw',
    'init=/hypruse-init', 'panic=-1',
  ].join(' ');
  const qemu = [
    'qemu-system-x86_64', '-accel', 'tcg,thread=multi,tb-size=512', '-cpu', 'max', '-m', mem, '-smp', '2', '-nic', 'none', '-no-reboot',
    '-kernel', kernel, '-initrd', initrd, '-append', append,
    '-fsdev', `local,id=r,path=${rootfs},security_model=passthrough`, '-device', 'virtio-9p-pci,fsdev=r,mount_tag=rootfs',
    '-fsdev', `local,id=p,path=${project},security_model=none,readonly=on`, '-device', 'virtio-9p-pci,fsdev=p,mount_tag=hypruse',
    '-fsdev', `local,id=j,path=${jobDir},security_model=passthrough`, '-device', 'virtio-9p-pci,fsdev=j,mount_tag=job',
    '-device', 'virtio-rng-pci', '-vga', 'none', '-device', 'virtio-gpu-pci', '-display', 'none', '-serial', `file:${serial}`, '-monitor', 'none',
  ];
  // The lock is held for the whole life of qemu; "locked" tells when the wait is over.
  // In a process group of its own: a guest past its deadline is killed as a group, qemu with flock
  // (killing flock alone leaves qemu running, reparented, holding the lock).
  const child = spawn('flock', [VM_LOCK, 'sh', '-c', 'echo locked; exec "$@"', 'sh', ...qemu], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const tLock = Date.now();
  let tStart = null;
  child.stdout.on('data', (d) => {
    if (tStart === null && String(d).includes('locked')) {
      tStart = Date.now();
      if (tStart - tLock > 1000) say(`waited ${secs(tStart - tLock)} s for ${VM_LOCK} (another guest was running)`);
    }
  });
  // the group is not the terminal's: an interrupted run takes its guest down with it
  const onSignal = (sig) => {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      /* gone */
    }
    process.exit(sig === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const exited = new Promise((res) =>
    child.on('exit', (code, sig) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      res({ code, sig });
    }),
  );
  let bootMs = null;
  let scale = given > 0 ? given : null;
  let timedOut = null;
  let deadline = null;
  let done = null;
  const readSerial = () => {
    try {
      return readFileSync(serial, 'utf8');
    } catch {
      return '';
    }
  };
  const shown = { n: 0 };
  const echoSerial = (text) => {
    // Guest progress lines (hypruse-guest:) go to the terminal as they come.
    const lines = text.split('\n');
    for (let i = shown.n; i < lines.length - 1; i++) if (lines[i].startsWith('hypruse-guest:')) say(`guest: ${lines[i].slice(15)}`);
    shown.n = Math.max(shown.n, lines.length - 1);
  };
  while (!done) {
    const r = await Promise.race([exited, new Promise((res) => setTimeout(() => res(null), 1000))]);
    if (r) {
      done = r;
      break;
    }
    if (tStart === null) continue;
    const text = readSerial();
    echoSerial(text);
    const now = Date.now();
    if (bootMs === null && text.includes('hypruse-guest: init started')) {
      bootMs = now - tStart;
      const measured = Math.max(1, bootMs / 1000 / NOMINAL.bootToInit);
      if (!scale) scale = measured;
      const cap = (Number(process.env.HYPRUSE_VM_DEADLINE_S) || 40 * 60) * 1000;
      deadline = now + Math.min(cap, (NOMINAL.system + budget) * scale * 1000);
      phase('boot-to-init', bootMs);
      say(`boot scale ${measured.toFixed(2)} (guest deadline in ${secs(deadline - now)} s)`);
    }
    if (bootMs === null && now - tStart > NOMINAL.firstInitDeadline * (given > 0 ? given : 1) * 1000) timedOut = `the guest did not reach its init within ${NOMINAL.firstInitDeadline} s`;
    if (deadline !== null && !(given > 0)) {
      const slower = phaseScale(join(out, 'phases.txt'));
      if (slower > scale) {
        const cap = (Number(process.env.HYPRUSE_VM_DEADLINE_S) || 40 * 60) * 1000;
        const tInit = tStart + bootMs;
        say(`guest phases run at scale ${slower.toFixed(2)} (boot measured ${scale.toFixed(2)}): the deadline follows`);
        scale = slower;
        deadline = tInit + Math.min(cap, (NOMINAL.system + budget) * scale * 1000);
      }
    }
    if (deadline !== null && now > deadline) timedOut = `the guest ran past its deadline of ${secs(deadline - tStart - bootMs)} s after init (scale ${scale.toFixed(2)})`;
    if (timedOut) {
      say(`${timedOut}: killing it`);
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        /* gone */
      }
      done = await exited;
    }
  }
  const text = readSerial();
  echoSerial(`${text}\n`);
  if (tStart !== null) phase('guest-total', Date.now() - tStart);
  if (!text.includes('hypruse-guest: done') || timedOut) {
    const tail = text.split('\n').slice(-40).join('\n');
    say(`the guest did not finish cleanly${timedOut ? ` (${timedOut})` : ''}; qemu exit ${done.code ?? done.sig}${stderr ? `; qemu said: ${stderr.trim()}` : ''}\n----- serial log tail (${serial}) -----\n${tail}\n-----`);
  }
  const guestPhases = existsSync(join(out, 'phases.txt')) ? readFileSync(join(out, 'phases.txt'), 'utf8') : '';
  for (const line of guestPhases.split('\n')) {
    const [name, s] = line.split(' ');
    if (name && s) phases.push([`guest:${name}`, Number(s) * 1000]);
  }
  return { jobDir, out, serial, timedOut, clean: text.includes('hypruse-guest: done') && !timedOut, bootMs, scale: scale ?? 1, stderr };
}

/** The largest ratio of a finished guest phase (out/phases.txt: NAME SECONDS UPTIME) to its nominal time; 0 when none. */
function phaseScale(file) {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return 0;
  }
  let worst = 0;
  for (const line of text.split('\n')) {
    const [name, sec] = line.split(' ');
    const nominal = NOMINAL_PHASE[name];
    if (nominal && Number(sec) > 0) worst = Math.max(worst, Number(sec) / nominal);
  }
  return worst;
}

// ------------------------------------------------------------------ plans
// verbose: every test's result is in the log (readable in the job directory on the host) as it finishes
const VITEST = 'node node_modules/vitest/vitest.mjs run --config tests/real/vitest.config.ts --reporter=verbose --reporter=json';

function testPlan(list, record = false) {
  const lines = ['session_up'];
  for (const c of list) {
    lines.push(
      `if start_${c}; then`,
      ...(record && RECORDED.includes(c)
        ? [
            `  mkdir -p $OUT/recorded/${c}; chmod 777 $OUT/recorded $OUT/recorded/${c}`,
            `  ( cd /hypruse && as_desk node tests/real/guest/record.mjs ${c} $OUT/recorded/${c} ) >$OUT/${c}/record.log 2>&1`,
            `  echo $? >$OUT/${c}/record.rc; phase ${c}-record`,
          ]
        : []),
      `  ( cd /hypruse && as_desk env HYPRUSE_REAL_COMPOSITOR=${c} HYPRUSE_CONTRACT_TARGETS=${CONTRACT_TARGET[c]} ${VITEST} --outputFile.json=$OUT/${c}/vitest.json ) >$OUT/${c}/vitest.log 2>&1 &`,
      // a compositor that dies mid-suite ends the suites at once (their waits would run out one by one)
      `  suites_watch ${c} $!; echo $? >$OUT/${c}/vitest.rc`,
      `  say "${c} suites exited with $(cat $OUT/${c}/vitest.rc): $(sed 's/\\x1b\\[[0-9;]*m//g' $OUT/${c}/vitest.log | grep -E '^ +Tests ' | tail -1)"`,
      `  phase ${c}-suites`,
      'else',
      `  echo "${c} did not start" >$OUT/${c}/start-failed`,
      'fi',
      'stop_compositor',
    );
  }
  return lines.join('\n');
}

function recordPlan(list) {
  const lines = ['session_up'];
  for (const c of list) {
    lines.push(
      `if start_${c}; then`,
      `  mkdir -p $OUT/recorded/${c}; chmod 777 $OUT/recorded $OUT/recorded/${c}`,
      `  ( cd /hypruse && as_desk node tests/real/guest/record.mjs ${c} $OUT/recorded/${c} ) >$OUT/${c}/record.log 2>&1`,
      `  echo $? >$OUT/${c}/record.rc; phase ${c}-record`,
      'fi',
      'stop_compositor',
    );
  }
  return lines.join('\n');
}

function execPlan(c, args) {
  return [
    'session_up',
    `if start_${c}; then`,
    `  ( cd /hypruse && as_desk bash /job/script.sh ${args.map(shq).join(' ')} ) >$OUT/exec.stdout 2>$OUT/exec.stderr`,
    '  echo $? >$OUT/exec.rc; phase exec',
    'fi',
    'stop_compositor',
  ].join('\n');
}

// ------------------------------------------------------------------ stage
function missingTools() {
  const need = ['qemu-system-x86_64', 'debootstrap', 'flock', 'chroot'];
  return need.filter((t) => !onPath(t));
}

function niriCheck(rootfs) {
  const check = join(ROOT, 'tests/niri-ipc-check/check.sh');
  if (!existsSync(check)) return null;
  const t0 = Date.now();
  say('niri-ipc-check: building and running the checker in the rootfs (chroot)');
  const r = spawnSync('bash', [check, rootfs], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 20 * 60 * 1000, maxBuffer: 64 << 20 });
  process.stderr.write(r.stdout || '');
  phase('niri-ipc-check', Date.now() - t0);
  const m = /(\d+) passed, (\d+) failed/.exec((r.stdout || '').trim().split('\n').reverse().find((l) => /passed, \d+ failed/.test(l)) || '');
  if (!m) return { passed: 0, failed: 1, problem: `niri-ipc-check printed no "N passed, N failed" line (exit ${r.status ?? r.signal})` };
  const res = { passed: Number(m[1]), failed: Number(m[2]) };
  if (r.status !== 0 && res.failed === 0) return { ...res, failed: 1, problem: `niri-ipc-check exited ${r.status ?? r.signal} although it reported no failure` };
  return res;
}

function countReport(file, problems, label) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    problems.push(`${label}: no vitest JSON report (${e.code ?? e.message})`);
    return { passed: 0, failed: 0, skipped: 0 };
  }
  const r = { passed: report.numPassedTests ?? 0, failed: report.numFailedTests ?? 0, skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0) };
  for (const f of report.testResults ?? []) {
    const anyFailed = (f.assertionResults ?? []).some((a) => a.status === 'failed');
    if (f.status === 'failed' && !anyFailed) problems.push(`${label}: ${f.name.replace(/^\/hypruse\//, '')}: ${(f.message || 'failed to run').split('\n')[0]}`);
    for (const a of f.assertionResults ?? []) if (a.status === 'failed') say(`FAILED on ${label}: ${a.fullName}`);
  }
  if ((report.numTotalTests ?? 0) === 0) problems.push(`${label}: vitest found no tests`);
  return r;
}

/** A vitest-shaped JSON report for a check that only prints "N passed, N failed" (the niri-ipc check). */
function countsReport(name, passed, failed, message) {
  const a = [];
  for (let i = 0; i < passed; i++) a.push({ status: 'passed', fullName: `${name} check ${i + 1}`, title: `check ${i + 1}` });
  for (let i = 0; i < failed; i++) a.push({ status: 'failed', fullName: `${name} failure ${i + 1}`, title: `failure ${i + 1}`, failureMessages: [message ?? ''] });
  return { numTotalTests: a.length, numPassedTests: passed, numFailedTests: failed, testResults: [{ name, status: failed ? 'failed' : 'passed', assertionResults: a }] };
}

async function stageTest(opts) {
  const problems = [];
  const totals = { passed: 0, failed: 0, skipped: 0 };
  const reports = [];
  const inReports = []; // failures the reports themselves show (npm test's summary finds them there again)
  const reportDir = opts.reportDir || mkdtempSync(join(tmpdir(), 'hypruse-real-'));
  mkdirSync(reportDir, { recursive: true });
  const addReport = (name, file, code) => {
    reports.push({ name, file, code });
    const r = countReport(file, inReports, name);
    totals.passed += r.passed;
    totals.failed += r.failed;
    totals.skipped += r.skipped;
  };
  const finish = () => {
    for (const p of [...inReports, ...problems]) say(`FAILED: ${p}`);
    totals.failed += inReports.length + problems.length;
    say(`phases: ${phases.map(([n, ms]) => `${n} ${secs(ms)}s`).join(', ')}; total ${secs(Date.now() - t00)} s`);
    // problems: failures outside the reports (the reports' own failures are counted from them)
    writeFileSync(join(reportDir, 'summary.json'), `${JSON.stringify({ ...totals, reports, problems, phases }, null, 2)}\n`);
    process.stdout.write(`${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}\n`);
    return totals.failed ? 1 : 0;
  };
  const gate = stageGate();
  if (gate) {
    if (CI) problems.push(`real-compositor stage: ${gate}`);
    else {
      const bar = '!'.repeat(78);
      process.stderr.write(`\n${bar}\n!! SKIPPING the real-compositor stage (real Hyprland 0.57, sway 1.12, labwc 0.20): ${gate}\n${bar}\n\n`);
      writeFileSync(join(reportDir, 'summary.json'), `${JSON.stringify({ passed: 0, failed: 0, skipped: 0, reports: [], problems: [], skippedStage: gate }, null, 2)}\n`);
      return 0;
    }
    return finish();
  }
  let rootfs;
  try {
    rootfs = ensureRootfs();
  } catch (e) {
    problems.push(e.message);
    return finish();
  }
  const niri = niriCheck(rootfs);
  if (niri) {
    const file = join(reportDir, 'niri-ipc-check.json');
    writeFileSync(file, JSON.stringify(countsReport('tests/niri-ipc-check', niri.passed, niri.failed, niri.problem)));
    addReport('niri-ipc-check', file, niri.failed ? 1 : 0);
  }
  if (opts.noBoot) {
    say('!!! the guest boot is left out (--no-boot): only the rootfs checks ran');
    return finish();
  }
  // sway and labwc first: they are up in seconds, so their results are on the host (in the job directory) long before Hyprland's
  const list = opts.only ? ['sway', 'labwc', 'hyprland'].filter((c) => opts.only.includes(c)) : ['sway', 'labwc', 'hyprland'];
  const withRecord = process.env.HYPRUSE_VM_RECORD === '1';
  const g = await boot(rootfs, { plan: testPlan(list, withRecord), budget: (NOMINAL.perCompositorTest + (withRecord ? NOMINAL.perCompositorRecord : 0)) * list.length, project: opts.project });
  for (const c of list) {
    const dir = join(g.out, c);
    const rep = join(dir, 'vitest.json');
    if (existsSync(join(dir, 'crashed'))) problems.push(`real ${c} ${readFileSync(join(dir, 'crashed'), 'utf8').trim()} (its log and any crash report: ${dir})`);
    if (existsSync(join(dir, 'vitest.log'))) copyFileSync(join(dir, 'vitest.log'), join(reportDir, `vitest-real-${c}.log`));
    if (existsSync(join(dir, 'start-failed'))) problems.push(`real ${c} did not start in the guest (its log: ${join(dir, 'stdout.log')})`);
    else if (existsSync(rep)) {
      const file = join(reportDir, `vitest-real-${c}.json`);
      copyFileSync(rep, file);
      const rc = existsSync(join(dir, 'vitest.rc')) ? Number(readFileSync(join(dir, 'vitest.rc'), 'utf8').trim()) : null;
      addReport(`real ${c}`, file, rc);
    } else {
      const log = existsSync(join(dir, 'vitest.log')) ? readFileSync(join(dir, 'vitest.log'), 'utf8').split('\n').slice(-25).join('\n') : '';
      if (log) say(`vitest log tail on ${c}:\n${log}`);
      problems.push(`real ${c}: the guest wrote no test report${g.timedOut ? ` (${g.timedOut})` : ''}`);
    }
    if (existsSync(join(g.out, 'recorded', c))) cpSync(join(g.out, 'recorded', c), join(reportDir, 'recorded', c), { recursive: true });
  }
  if (!g.clean) problems.push(`the guest did not finish cleanly${g.timedOut ? ` (${g.timedOut})` : ''} (serial log ${g.serial})`);
  say(`guest files: ${g.out} (serial log ${g.serial})`);
  return finish();
}

function stageGate(needBuild = true) {
  if (process.platform !== 'linux') return 'not Linux';
  if (!IS_ROOT) return 'needs root (debootstrap, chroot, and a 9p root with passthrough ownership)';
  const miss = missingTools();
  if (miss.length) return `${miss.join(', ')} not installed (apt-get install qemu-system-x86 debootstrap)`;
  const built = join(opts0.project, 'packages/hypruse/dist/bin.js');
  if (needBuild && !existsSync(built)) return `the project is not built (${built} is missing; npm run build)`;
  return null;
}

async function stageRecord(opts) {
  const gate = stageGate();
  if (gate) {
    say(`cannot record: ${gate}`);
    return 1;
  }
  const rootfs = ensureRootfs();
  const g = await boot(rootfs, { plan: recordPlan(RECORDED), budget: NOMINAL.perCompositorRecord * RECORDED.length, project: opts.project });
  let rc = g.clean ? 0 : 1;
  const dest = { hyprland: 'hyprland-0.57', sway: 'sway-1.12' };
  for (const c of RECORDED) {
    const src = join(g.out, 'recorded', c);
    const log = join(g.out, c, 'record.log');
    const code = existsSync(join(g.out, c, 'record.rc')) ? readFileSync(join(g.out, c, 'record.rc'), 'utf8').trim() : 'none';
    if (code !== '0') {
      rc = 1;
      say(`recording on ${c} failed (exit ${code}); log:\n${existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(-30).join('\n') : '(none)'}`);
      continue;
    }
    // Only the transcript directory is replaced; other files beside it are not ours to touch.
    const target = join(opts.project, 'tests/simulators/recorded', dest[c], 'transcript');
    rmSync(target, { recursive: true, force: true });
    mkdirSync(dirname(target), { recursive: true });
    cpSync(src, target, { recursive: true });
    spawnSync('chown', ['-R', `${statSync(opts.project).uid}:${statSync(opts.project).gid}`, target]);
    say(`recorded ${c} into ${target}`);
  }
  say(`phases: ${phases.map(([n, ms]) => `${n} ${secs(ms)}s`).join(', ')}`);
  return rc;
}

async function stageExec(opts) {
  const gate = stageGate();
  if (gate) {
    say(`cannot exec: ${gate}`);
    return 1;
  }
  const rootfs = ensureRootfs();
  const g = await boot(rootfs, { plan: execPlan(opts.compositor, opts.scriptArgs), budget: NOMINAL.exec, project: opts.project, files: { 'script.sh': opts.script } });
  const rd = (f) => (existsSync(join(g.out, f)) ? readFileSync(join(g.out, f), 'utf8') : '');
  process.stdout.write(rd('exec.stdout'));
  process.stderr.write(rd('exec.stderr'));
  const code = rd('exec.rc').trim();
  say(`script exit ${code || 'none (it did not run or did not finish)'}; guest files in ${g.out}`);
  return code === '' ? 1 : Number(code);
}

const opts0 = parseArgs(process.argv.slice(2));
if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('run.mjs')) {
  let rc;
  if (opts0.mode === 'prepare') {
    const gate = stageGate(false);
    if (gate) {
      say(`prepare skipped: ${gate}`);
      rc = CI ? 1 : 0;
    } else {
      try {
        ensureRootfs();
        rc = 0;
      } catch (e) {
        say(e.message);
        rc = 1;
      }
    }
  } else if (opts0.mode === 'test') rc = await stageTest(opts0);
  else if (opts0.mode === 'record') rc = await stageRecord(opts0);
  else rc = await stageExec(opts0);
  process.exit(rc);
}
