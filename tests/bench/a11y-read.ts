/**
 * Benchmark: median AtspiAccessibility.read() (all nodes, no filter) of a
 * window, side by side with hypruse 0.9.3's way (one busctl process per
 * attribute, serial; see a11y-busctl.mjs).
 *
 *   node --conditions=@hypruse/source --import tsx tests/bench/a11y-read.ts [--pid N] [--runs 20] [--busctl-runs 3]
 *
 * Needs DBUS_SESSION_BUS_ADDRESS / XDG_RUNTIME_DIR / SWAYSOCK of a desktop
 * running gtk3-widget-factory (the default target: the first window whose
 * app_id is gtk3-widget-factory).
 */
import { execFileSync } from 'node:child_process';
import { AtspiAccessibility } from '../../packages/a11y/src/atspi-accessibility.js';
// @ts-expect-error plain ESM script without types
import { busctlWalk, a11yBusAddress } from './a11y-busctl.mjs';

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : def;
}

interface SwayNode { pid?: number; name?: string; app_id?: string; rect: { width: number; height: number }; nodes?: SwayNode[]; floating_nodes?: SwayNode[] }

function findWindow(pid: number | null): SwayNode {
  const tree = JSON.parse(execFileSync('swaymsg', ['-t', 'get_tree'], { encoding: 'utf8' })) as SwayNode;
  const out: SwayNode[] = [];
  const walk = (n: SwayNode) => {
    if (n.pid) out.push(n);
    for (const c of [...(n.nodes ?? []), ...(n.floating_nodes ?? [])]) walk(c);
  };
  walk(tree);
  const w = out.find((n) => (pid ? n.pid === pid : n.app_id === 'gtk3-widget-factory'));
  if (!w) throw new Error(`no window ${pid ? `with pid ${pid}` : 'of gtk3-widget-factory'} in sway's tree`);
  return w;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const pidArg = Number(arg('pid', '0')) || null;
const runs = Number(arg('runs', '20'));
const busctlRuns = Number(arg('busctl-runs', '3'));
const w = findWindow(pidArg);
const query = { pid: w.pid ?? null, title: w.name ?? '', width: w.rect.width, height: w.rect.height, class: w.app_id };

const a11y = new AtspiAccessibility({ env: process.env, timeoutMs: 10000, maxNodes: 100000 });
const times: number[] = [];
const cpu: number[] = [];
let nodes = 0;
let elements = 0;
for (let i = 0; i < runs + 1; i++) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await a11y.read(query, { actionableOnly: false });
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  if (r.status !== 'ok') throw new Error(`read failed: ${JSON.stringify(r)}`);
  nodes = r.nodes;
  elements = r.elements.length;
  if (i > 0) {
    // the first run warms the JIT and the connection
    times.push(ms);
    cpu.push((c.user + c.system) / 1000);
  }
}
await a11y.dispose();
const ours = median(times);
console.log(`read(): ${nodes} nodes, ${elements} elements; median ${ours.toFixed(1)} ms over ${runs} runs (min ${Math.min(...times).toFixed(1)}, max ${Math.max(...times).toFixed(1)}); our CPU ${median(cpu).toFixed(1)} ms per read`);

if (busctlRuns > 0) {
  const address = await a11yBusAddress(process.env);
  const bt: number[] = [];
  let bnodes = 0;
  let calls = 0;
  for (let i = 0; i < busctlRuns; i++) {
    const t0 = performance.now();
    const r = await busctlWalk(address, query.pid);
    bt.push(performance.now() - t0);
    bnodes = r.nodes;
    calls = r.calls;
  }
  const theirs = median(bt);
  console.log(`busctl walk: ${bnodes} nodes, ${calls} busctl processes; median ${theirs.toFixed(0)} ms over ${busctlRuns} runs`);
  console.log(`speed-up: ${(theirs / ours).toFixed(1)}x`);
}
