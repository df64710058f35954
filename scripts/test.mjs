#!/usr/bin/env node
// `npm test`: build, bring up a private headless sway desktop (when sway is
// installed), run vitest (projects unit + desktop) with a readable reporter on
// the terminal and the JSON reporter to a file, stop the desktop, and end with
// one plain line: `N passed, N failed, N skipped, N total` (the first three add up
// to the total). Exit 1 iff a test failed, a test file could not run, vitest
// itself failed, or (under CI) a test was skipped; 0 otherwise.
//
//   npm test                      everything
//   npm test -- tests/e2e         extra arguments go to vitest
//
// Without extra arguments it also runs the real-compositor stage
// (tests/real/run.mjs: real Hyprland 0.57 and sway 1.12 in a QEMU guest),
// whose rootfs is built in the background while the host suite runs, and
// counts its results in the same line.
//
// Environment: HYPRUSE_DESKTOP_DIR reuses (and then keeps) that desktop
// instead of a private one; HYPRUSE_TEST_SKIP_BUILD=1 skips the build;
// HYPRUSE_TEST_REAL=0 leaves out the real-compositor stage (loudly), HYPRUSE_TEST_REAL_BOOT=0
// only its guest boot (local use; CI refuses it), HYPRUSE_TEST_REAL_HYPRLAND=0 only real Hyprland 0.57 (the same);
// HYPRUSE_TEST_REPORT sets the JSON report path; CI=true makes a missing
// desktop, and any skipped test, a failure.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, closeSync, constants, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { summarize } from './test-summary.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const HARNESS = join(ROOT, 'tests/desktop/harness.mjs');
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');
const BUILD_SCRIPT = join(ROOT, 'packages/hypruse/scripts/build.mjs');
// The ceiling of the host suite (a hung run must end): 25 minutes on a quiet machine, following the time
// policy on a loaded one (set below, once the time scale is known).
let VITEST_TIMEOUT_MS = 25 * 60 * 1000;
const uid = process.getuid?.() ?? 'user';
// Per run (pid), so two suites running at once on one machine never read each other's reports.
const REPORT = resolve(process.env.HYPRUSE_TEST_REPORT || join(tmpdir(), `hypruse-test-${uid}`, String(process.pid), 'vitest-report.json'));

const say = (msg) => process.stderr.write(`test: ${msg}\n`);

// One timeout policy (hypruse's timeScale / HYPRUSE_TIME_SCALE) for the code under test and the
// desktop tests' own waits: unless set, measured here from how loaded the machine is at the start.
// Unit tests run unscaled (they assert exact ceilings of their own).
let timeScale = process.env.HYPRUSE_TIME_SCALE;
if (!timeScale) {
  const perCore = loadavg()[0] / Math.max(1, availableParallelism());
  timeScale = String(Math.min(10, Math.max(1, Math.round(perCore * 10) / 10)));
  say(`time scale ${timeScale} for the desktop tests (load ${loadavg()[0].toFixed(2)} on ${availableParallelism()} cores; set HYPRUSE_TIME_SCALE to override)`);
}

VITEST_TIMEOUT_MS = Math.round(VITEST_TIMEOUT_MS * Math.min(3, Math.max(1, Number(timeScale) || 1)));

const problems = []; // failures outside vitest's own test counts (each counts as one failed)

function onPath(tool) {
  return (process.env.PATH || '').split(':').filter(Boolean).some((d) => {
    try {
      accessSync(join(d, tool), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

// ------------------------------------------------------------------ real-compositor stage, part 1
// Building the guest rootfs is mostly network and dpkg: start it now, in the background.
const REAL = join(ROOT, 'tests/real/run.mjs');
const realStage = process.argv.length <= 2 && existsSync(REAL) && process.env.HYPRUSE_TEST_REAL !== '0';
if (process.argv.length <= 2 && process.env.HYPRUSE_TEST_REAL === '0') say('!!! the real-compositor stage is left out (HYPRUSE_TEST_REAL=0)');
let realPrepare = null;
if (realStage) {
  const log = REPORT.replace(/\.json$/, '-real-prepare.log');
  mkdirSync(dirname(log), { recursive: true });
  const t0 = Date.now();
  const fd = openSync(log, 'w');
  const child = spawn(process.execPath, [REAL, 'prepare'], { cwd: ROOT, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  realPrepare = new Promise((res) => {
    child.on('error', (e) => res({ code: null, error: e.message, log, ms: Date.now() - t0 }));
    child.on('exit', (code, signal) => res({ code, signal, log, ms: Date.now() - t0 }));
  });
  say(`real-compositor rootfs: preparing in the background (log ${log})`);
}

// ------------------------------------------------------------------ build
if (process.env.HYPRUSE_TEST_SKIP_BUILD === '1') say('build skipped (HYPRUSE_TEST_SKIP_BUILD=1)');
else if (!existsSync(BUILD_SCRIPT)) say(`build skipped: ${BUILD_SCRIPT} does not exist yet`);
else {
  const t0 = Date.now();
  const b = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'], timeout: 5 * 60 * 1000 });
  if (b.status !== 0) {
    say(`build failed (${b.error?.message ?? `exit ${b.status ?? b.signal}`}); tests not run`);
    process.stdout.write('0 passed, 1 failed\n');
    process.exit(1);
  }
  say(`built in ${Date.now() - t0} ms`);
}

// ------------------------------------------------------------------ desktop
const ownDir = !process.env.HYPRUSE_DESKTOP_DIR;
const desktopDir = process.env.HYPRUSE_DESKTOP_DIR || mkdtempSync(join(tmpdir(), 'hypruse-test-desktop-'));
const desktopEnv = { ...process.env, HYPRUSE_DESKTOP_DIR: desktopDir };
const harness = (args, stdio = ['ignore', 'inherit', 'inherit']) =>
  spawnSync(process.execPath, [HARNESS, ...args], { env: desktopEnv, stdio, encoding: 'utf8', timeout: 120000 });

let startedDesktop = false;
if (!onPath('sway')) {
  say('sway is not installed: desktop tests will skip (and fail under CI)');
  if (process.env.CI) problems.push('sway is not installed, but CI requires the desktop tests');
} else if (harness(['status'], ['ignore', 'pipe', 'pipe']).status === 0) {
  say(`using the running desktop in ${desktopDir}`);
} else {
  const t0 = Date.now();
  const s = harness(['start']);
  if (s.status === 0) {
    startedDesktop = true;
    say(`desktop up in ${Date.now() - t0} ms (${desktopDir})`);
  } else {
    say(`the desktop did not start (exit ${s.status ?? s.signal}); desktop tests will skip${process.env.CI ? ' and CI fails' : ''}`);
    if (process.env.CI) problems.push('the test desktop did not start');
  }
}

function stopDesktop() {
  if (startedDesktop) {
    startedDesktop = false;
    const s = harness(['stop']);
    if (s.status !== 0) problems.push(`stopping the desktop failed (exit ${s.status ?? s.signal})`);
  }
  if (ownDir) rmSync(desktopDir, { recursive: true, force: true });
}

// ------------------------------------------------------------------ vitest
// Two runs: the unit project with files in parallel, then the desktop project
// one file at a time (its files share one desktop, and each resets it).
// Extra arguments (npm test -- tests/e2e) make one run with files one at a time.
const extra = process.argv.slice(2);
const runs = extra.length
  ? [{ name: 'selected', args: ['--no-file-parallelism', ...extra], scaled: true }]
  : [
      { name: 'unit', args: ['--project', 'unit'] },
      { name: 'desktop', args: ['--project', 'desktop', '--no-file-parallelism'], scaled: true },
    ];
const reports = [];
let interrupted = null;
let current = null;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    interrupted = sig;
    current?.kill(sig);
  });
}
const t0 = Date.now();
const results = [];
for (const run of runs) {
  if (interrupted) break;
  const report = REPORT.replace(/\.json$/, `-${run.name}.json`);
  mkdirSync(dirname(report), { recursive: true });
  rmSync(report, { force: true });
  reports.push(report);
  const args = [VITEST, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...run.args];
  const left = Math.max(60000, VITEST_TIMEOUT_MS - (Date.now() - t0));
  const env = run.scaled ? { ...desktopEnv, HYPRUSE_TIME_SCALE: timeScale } : desktopEnv;
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
  current = child;
  const timer = setTimeout(() => {
    problems.push(`vitest (${run.name}) ran past the ${Math.round(VITEST_TIMEOUT_MS / 60000)}-minute budget and was stopped`);
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10000).unref();
  }, left);
  const [code, signal] = await new Promise((res) => {
    child.on('error', (e) => {
      problems.push(`vitest (${run.name}) could not run: ${e.message}`);
      res([null, null]);
    });
    child.on('exit', (c, sg) => res([c, sg]));
  });
  clearTimeout(timer);
  results.push({ run, report, code, signal });
  say(`vitest ${run.name} finished in ${((Date.now() - t0) / 1000).toFixed(1)} s (exit ${code ?? signal})`);
}
stopDesktop();

// ------------------------------------------------------------------ real-compositor stage, part 2
const realSummaries = [];
if (realPrepare && !interrupted) {
  const p = await realPrepare;
  say(`real-compositor rootfs prepared in ${(p.ms / 1000).toFixed(1)} s (exit ${p.code ?? p.signal ?? p.error})`);
  if (p.code !== 0) process.stderr.write(readFileSync(p.log, 'utf8').split('\n').slice(-30).join('\n') + '\n');
  const dir = REPORT.replace(/\.json$/, '-real');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // The guest boots by default with real sway 1.12, labwc 0.20 and then real Hyprland 0.57 (the contract
  // and tool suites pass on each). HYPRUSE_TEST_REAL_BOOT=0 leaves the boot out, and
  // HYPRUSE_TEST_REAL_HYPRLAND=0 real Hyprland (about 14 minutes of the guest), for local use only:
  // loudly, and CI refuses both.
  const withHyprland = process.env.HYPRUSE_TEST_REAL_HYPRLAND !== '0';
  const noBoot = process.env.HYPRUSE_TEST_REAL_BOOT === '0';
  if (noBoot && process.env.CI) problems.push('HYPRUSE_TEST_REAL_BOOT=0 is for local use: CI boots the real-compositor guest');
  if (!withHyprland && process.env.CI) problems.push('HYPRUSE_TEST_REAL_HYPRLAND=0 is for local use: CI runs real Hyprland 0.57 in the guest');
  if (noBoot) say('!!! the real-compositor guest is NOT booted in this run (HYPRUSE_TEST_REAL_BOOT=0): real sway 1.12 and Hyprland 0.57 are left out');
  else if (!withHyprland) say('!!! real Hyprland 0.57 is left out of this run (HYPRUSE_TEST_REAL_HYPRLAND=0)');
  const realArgs = [REAL, 'test', '--report-dir', dir, ...(noBoot ? ['--no-boot'] : withHyprland ? [] : ['--only', 'sway,labwc'])];
  const child = spawn(process.execPath, realArgs, { cwd: ROOT, env: desktopEnv, stdio: ['ignore', 'ignore', 'inherit'] });
  current = child;
  const [code, signal] = await new Promise((res) => {
    child.on('error', (e) => {
      problems.push(`the real-compositor stage could not run: ${e.message}`);
      res([null, null]);
    });
    child.on('exit', (c, sg) => res([c, sg]));
  });
  try {
    const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    realSummaries.push(s);
    if (s.skippedStage) say(`!!! the real-compositor stage was SKIPPED: ${s.skippedStage}`);
    say(`real-compositor stage: ${s.passed} passed, ${s.failed} failed (exit ${code ?? signal}; reports in ${dir})`);
  } catch (e) {
    problems.push(`the real-compositor stage wrote no summary (exit ${code ?? signal}; ${e.code ?? e.message})`);
  }
}

// ------------------------------------------------------------------ summary
const parsed = results.map(({ run, report: file, code, signal }) => {
  let report = null;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    say(`no vitest JSON report for ${run.name} at ${file} (${e.code ?? e.message})`);
  }
  return { name: run.name, report, code, signal };
});
// The real-compositor stage's reports (one vitest run per compositor, and the niri check) and
// its failures outside them (a guest that did not boot or hung, a compositor that did not start).
for (const s of realSummaries) {
  for (const r of s.reports ?? []) {
    let report = null;
    try {
      report = JSON.parse(readFileSync(r.file, 'utf8'));
    } catch (e) {
      say(`no JSON report for ${r.name} at ${r.file} (${e.code ?? e.message})`);
    }
    parsed.push({ name: r.name, report, code: r.code, signal: null });
  }
  problems.push(...(s.problems ?? []));
}
if (interrupted) problems.push(`interrupted by ${interrupted}`);
const summary = summarize(parsed, { ci: Boolean(process.env.CI), root: ROOT, problems });
for (const f of summary.failures) say(`FAILED: ${f}`);
say(`JSON reports: ${reports.join(', ')}`);
process.stdout.write(`${summary.line}\n`);
process.exit(summary.failed > 0 ? 1 : 0);
