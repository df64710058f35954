// Benchmark (not a test): median snapshot() latency of the in-process sway
// plugin vs. what a swaymsg-based implementation pays per snapshot (spawning
// `swaymsg -t get_tree`, `get_outputs`, `get_workspaces` and parsing them).
//
//   npm run desktop -- start
//   SWAYSOCK=... npx tsx --conditions=@hypruse/source tests/bench/sway-desktop.ts [N]
//   (without SWAYSOCK it uses the harness desktop's socket)
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { SwayCompositor } from '@hypruse/compositor-sway';
import { desktopState } from '../support/desktop.js';

const run = promisify(execFile);
const N = Number(process.argv[2] ?? 200);
const sock = process.env.SWAYSOCK ?? desktopState()?.swaysock;
if (!sock) {
  process.stderr.write('no sway: set SWAYSOCK or start the harness desktop (npm run desktop -- start)\n');
  process.exit(1);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)];

async function time(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < Math.min(20, n); i++) await fn(); // warm up
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

const comp = new SwayCompositor({ socketPath: sock });
const swaymsg = async (t: string) => JSON.parse((await run('swaymsg', ['-s', sock, '-r', '-t', t])).stdout);

const ours = await time(N, () => comp.snapshot());
const cold = new SwayCompositor({ socketPath: sock });
const t0 = performance.now();
await cold.snapshot();
const firstCall = performance.now() - t0;
await cold.dispose();
const sequential = await time(Math.min(N, 60), async () => {
  await swaymsg('get_tree');
  await swaymsg('get_outputs');
  await swaymsg('get_workspaces');
});
const parallel = await time(Math.min(N, 60), () => Promise.all(['get_tree', 'get_outputs', 'get_workspaces'].map(swaymsg)));
const d = await comp.snapshot();
await comp.dispose();

const f = (x: number) => `${x.toFixed(2)} ms`;
const lines = [
  `sway desktop snapshot benchmark (${d.monitors.length} monitors, ${d.workspaces.length} workspaces, ${d.windows.length} windows)`,
  `  snapshot() in process        median ${f(median(ours))}  p95 ${f(p95(ours))}  (n=${ours.length}; first call incl. connect ${f(firstCall)})`,
  `  3x swaymsg, sequential       median ${f(median(sequential))}  p95 ${f(p95(sequential))}  (n=${sequential.length})`,
  `  3x swaymsg, parallel spawns  median ${f(median(parallel))}  p95 ${f(p95(parallel))}  (n=${parallel.length})`,
  `  speed-up: ${(median(sequential) / median(ours)).toFixed(1)}x vs sequential, ${(median(parallel) / median(ours)).toFixed(1)}x vs parallel`,
];
process.stdout.write(`${lines.join('\n')}\n`);
