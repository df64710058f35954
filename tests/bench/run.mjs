#!/usr/bin/env node
/**
 * `npm run bench`: brings up a private headless desktop (its own
 * HYPRUSE_DESKTOP_DIR, never the shared one), runs the benchmark suite
 * (tests/bench/suite.ts) against it, prints the table and writes
 * bench-results.md (repo root, git-ignored) and, with --write-docs only, the
 * generated section of docs/benchmarks.md, then tears the desktop down, also
 * on Ctrl-C. With --check it exits 1 when a target is missed.
 *
 *   npm run bench [-- --runs 15 --busctl-runs 5 --write-docs --check --keep-desktop]
 *   HYPRUSE_BENCH_DESKTOP_DIR=DIR npm run bench    (use/keep that desktop instead of a fresh private one)
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const harness = join(root, 'tests/desktop/harness.mjs');
const args = process.argv.slice(2);
const keep = args.includes('--keep-desktop');
const own = process.env.HYPRUSE_BENCH_DESKTOP_DIR;
const dir = own || mkdtempSync(join(tmpdir(), 'hypruse-bench-desktop-'));
const env = { ...process.env, HYPRUSE_DESKTOP_DIR: dir };

function desktop(cmd) {
  execFileSync(process.execPath, [harness, cmd], { env, stdio: ['ignore', 'inherit', 'inherit'], timeout: 90000 });
}

let stopped = false;
function stop() {
  if (stopped || keep || own) return;
  stopped = true;
  try {
    desktop('stop');
  } catch (e) {
    process.stderr.write(`bench: stopping the desktop failed: ${e.message}\n`);
  }
  rmSync(dir, { recursive: true, force: true });
}

process.stderr.write(`bench: desktop in ${dir}\n`);
desktop('start');
const child = spawn(process.execPath, ['--conditions=@hypruse/source', '--import', 'tsx', join(here, 'suite.ts'), ...args.filter((a) => a !== '--keep-desktop')], {
  env,
  stdio: 'inherit',
  cwd: root,
});
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    child.kill(sig);
  });
}
const code = await new Promise((resolve) => child.on('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));
stop();
process.exit(code);
