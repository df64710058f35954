/**
 * Run the Hyprland simulator standalone (benchmarks, manual poking):
 *   npx tsx tests/simulators/hyprland/cli.ts [--version 0.50|0.54|0.56|main] [--lua] [--windows N]
 * Prints the environment to export on stdout as KEY=VALUE lines, then serves
 * until SIGINT/SIGTERM.
 */
import { HyprlandSimulator } from './hyprland-simulator.js';
import type { HyprVersion } from './fixtures.js';

const args = process.argv.slice(2);
const opt = (n: string) => {
  const i = args.indexOf(n);
  return i >= 0 ? args[i + 1] : undefined;
};
const version = (opt('--version') ?? '0.56') as HyprVersion;
const sim = new HyprlandSimulator({ version, configProvider: args.includes('--lua') ? 'lua' : 'hyprlang', processes: 'spawn' });
await sim.start();
const n = Number(opt('--windows') ?? 6);
for (let i = 0; i < n; i++) sim.openWindow({ class: i % 2 ? 'foot' : 'firefox', title: `window ${i}, with a comma`, workspace: String((i % 3) + 1) });
for (const [k, v] of Object.entries(sim.env)) process.stdout.write(`${k}=${v}\n`);
process.stdout.write('READY\n');
const stop = async () => {
  await sim.stop();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
