#!/usr/bin/env node
// `npm test`: build, bring up a private headless sway desktop (when sway is
// installed), run vitest (projects unit + desktop) with a readable reporter on
// the terminal and the JSON reporter to a file, stop the desktop, and end with
// one plain line: `N passed, N failed[, N skipped]`. Exit 1 iff a test failed,
// a test file could not run, or vitest itself failed; 0 otherwise.
//
//   npm test                      everything
//   npm test -- tests/e2e         extra arguments go to vitest
//
// Environment: HYPRUSE_DESKTOP_DIR reuses (and then keeps) that desktop
// instead of a private one; HYPRUSE_TEST_SKIP_BUILD=1 skips the build;
// HYPRUSE_TEST_REPORT sets the JSON report path; CI=true makes a missing
// desktop a failure.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const HARNESS = join(ROOT, 'tests/desktop/harness.mjs');
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');
const BUILD_SCRIPT = join(ROOT, 'packages/hypruse/scripts/build.mjs');
const VITEST_TIMEOUT_MS = 15 * 60 * 1000;
const uid = process.getuid?.() ?? 'user';
const REPORT = resolve(process.env.HYPRUSE_TEST_REPORT || join(tmpdir(), `hypruse-test-${uid}`, 'vitest-report.json'));

const say = (msg) => process.stderr.write(`test: ${msg}\n`);
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
mkdirSync(dirname(REPORT), { recursive: true });
rmSync(REPORT, { force: true });
const args = [VITEST, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${REPORT}`, ...process.argv.slice(2)];
const t0 = Date.now();
const child = spawn(process.execPath, args, { cwd: ROOT, env: desktopEnv, stdio: ['ignore', 'inherit', 'inherit'] });

let interrupted = null;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    interrupted = sig;
    child.kill(sig);
  });
}
const timer = setTimeout(() => {
  problems.push(`vitest ran longer than ${VITEST_TIMEOUT_MS / 60000} minutes and was stopped`);
  child.kill('SIGTERM');
  setTimeout(() => child.kill('SIGKILL'), 10000).unref();
}, VITEST_TIMEOUT_MS);

const [code, signal] = await new Promise((res) => {
  child.on('error', (e) => {
    problems.push(`vitest could not run: ${e.message}`);
    res([null, null]);
  });
  child.on('exit', (c, s) => res([c, s]));
});
clearTimeout(timer);
say(`vitest finished in ${((Date.now() - t0) / 1000).toFixed(1)} s (exit ${code ?? signal})`);
stopDesktop();

// ------------------------------------------------------------------ summary
let passed = 0;
let failed = 0;
let skipped = 0;
let report = null;
try {
  report = JSON.parse(readFileSync(REPORT, 'utf8'));
} catch (e) {
  problems.push(`no vitest JSON report at ${REPORT} (${e.code ?? e.message})`);
}
if (report) {
  passed = report.numPassedTests ?? 0;
  failed = report.numFailedTests ?? 0;
  skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  // A file that failed before any of its tests ran (import error, throw at top level) has no failed test.
  for (const file of report.testResults ?? []) {
    const anyFailed = (file.assertionResults ?? []).some((a) => a.status === 'failed');
    if (file.status === 'failed' && !anyFailed) {
      problems.push(`${file.name.startsWith(ROOT) ? file.name.slice(ROOT.length + 1) : file.name}: ${(file.message || 'failed to run').split('\n')[0]}`);
    }
  }
  if (code !== 0 && failed === 0 && problems.length === 0) {
    problems.push((report.numTotalTests ?? 0) === 0 ? 'vitest found no tests to run' : `vitest exited with ${code ?? signal} although no test failed (unhandled errors?)`);
  }
}
if (interrupted) problems.push(`interrupted by ${interrupted}`);
for (const p of problems) say(`FAILED: ${p}`);
failed += problems.length;
say(`JSON report: ${REPORT}`);
process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exit(failed > 0 ? 1 : 0);
