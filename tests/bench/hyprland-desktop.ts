/**
 * Benchmark: median HyprlandCompositor.snapshot() (one `[[BATCH]]` over the
 * socket, in process) against hyprctl-style process-per-request baselines,
 * all against the Hyprland simulator running in its own process:
 *   - oneshot batch: one process per snapshot sending the same batch (hypruse 0.9.3's `hyprctl --batch`)
 *   - oneshot x6: one process per query, six per snapshot (unbatched hyprctl)
 *   - node -e batch: one Node process per snapshot (what a Node tool shelling out pays)
 * The one-shot client is tests/bench/hyprland-oneshot.c (compiled with cc if
 * available; that row is skipped otherwise).
 *
 *   node --conditions=@hypruse/source --import tsx tests/bench/hyprland-desktop.ts [--runs 50] [--windows 12]
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulator } from './lib/hyprland.js';
import { HyprlandCompositor, SNAPSHOT_QUERIES, buildBatch, socketsFor } from '../../packages/compositor-hyprland/src/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const arg = (n: string, d: string) => {
  const i = process.argv.indexOf(`--${n}`);
  return i >= 0 ? process.argv[i + 1] : d;
};
const runs = Number(arg('runs', '50'));
const windows = arg('windows', '12');

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];

// 1. simulator in its own process
const sim = await startSimulator(Number(windows));
const env: Record<string, string> = sim.env;

const results: Array<[string, number[]]> = [];
try {
  // 2. plugin, in process
  const comp = new HyprlandCompositor({ sockets: socketsFor(env.XDG_RUNTIME_DIR, env.HYPRLAND_INSTANCE_SIGNATURE) });
  for (let i = 0; i < 5; i++) await comp.snapshot();
  const plugin: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await comp.snapshot();
    plugin.push(performance.now() - t);
  }
  results.push(['plugin snapshot() (one [[BATCH]], in process)', plugin]);
  const d = await comp.snapshot();
  process.stderr.write(`snapshot: ${d.monitors.length} monitors, ${d.workspaces.length} workspaces, ${d.windows.length} windows, ${d.layers?.length} layers\n`);
  await comp.dispose();

  const childEnv = { ...process.env, ...env };
  const batch = buildBatch(SNAPSHOT_QUERIES.map((q) => `j/${q}`));

  // 3. compiled one-shot client
  const binDir = mkdtempSync(join(tmpdir(), 'hypr-bench-'));
  const bin = join(binDir, 'oneshot');
  const cc = spawnSync('cc', ['-O2', '-o', bin, join(here, 'hyprland-oneshot.c')], { stdio: 'inherit' });
  if (cc.status === 0 && existsSync(bin)) {
    const one: number[] = [];
    const six: number[] = [];
    for (let i = 0; i < runs; i++) {
      let t = performance.now();
      execFileSync(bin, [batch], { env: childEnv, maxBuffer: 1 << 26 });
      one.push(performance.now() - t);
      t = performance.now();
      for (const q of SNAPSHOT_QUERIES) execFileSync(bin, [`j/${q}`], { env: childEnv, maxBuffer: 1 << 26 });
      six.push(performance.now() - t);
    }
    results.push(['hyprctl-style one-shot process, batch (0.9.3 way)', one]);
    results.push(['hyprctl-style one-shot process per query (x6)', six]);
  } else process.stderr.write('cc unavailable: compiled one-shot rows skipped\n');
  rmSync(binDir, { recursive: true, force: true });

  // 4. node -e one-shot (what a Node tool shelling out to a helper pays)
  const nodeClient = `const s=require('net').createConnection(process.env.XDG_RUNTIME_DIR+'/hypr/'+process.env.HYPRLAND_INSTANCE_SIGNATURE+'/.socket.sock');let b='';s.on('connect',()=>s.write(process.argv[1]));s.on('data',d=>b+=d);s.on('close',()=>process.stdout.write(b));`;
  const nodeRuns: number[] = [];
  for (let i = 0; i < Math.min(runs, 20); i++) {
    const t = performance.now();
    execFileSync(process.execPath, ['-e', nodeClient, batch], { env: childEnv, maxBuffer: 1 << 26 });
    nodeRuns.push(performance.now() - t);
  }
  results.push(['node -e one-shot process, batch', nodeRuns]);
} finally {
  await sim.stop();
}

const base = median(results[0][1]);
process.stdout.write(`\nHyprland snapshot, ${runs} runs, ${windows} windows, simulator in its own process\n`);
process.stdout.write(`${'method'.padEnd(52)} ${'median ms'.padStart(10)} ${'p90 ms'.padStart(8)} ${'x plugin'.padStart(9)}\n`);
for (const [name, xs] of results) {
  process.stdout.write(`${name.padEnd(52)} ${median(xs).toFixed(2).padStart(10)} ${p90(xs).toFixed(2).padStart(8)} ${(median(xs) / base).toFixed(1).padStart(9)}\n`);
}
