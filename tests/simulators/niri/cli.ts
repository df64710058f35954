/**
 * Run the niri simulator standalone:
 *   npx tsx tests/simulators/niri/cli.ts [--dir DIR] [--display NAME] [--no-demo-windows]
 * Prints `NIRI_SOCKET=…` (and WAYLAND_DISPLAY, XDG_RUNTIME_DIR) on stdout, logs
 * requests to stderr, and runs until SIGINT/SIGTERM.
 */
import { NiriSimulator } from './niri-simulator.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

const sim = await NiriSimulator.start({ dir: opt('--dir'), display: opt('--display'), demoWindows: !args.includes('--no-demo-windows') });
for (const [k, v] of Object.entries(sim.env)) process.stdout.write(`${k}=${v}\n`);
let seen = 0;
const log = setInterval(() => {
  while (seen < sim.requests.length) process.stderr.write(`niri-sim: ${sim.requests[seen++]}\n`);
}, 200);
const stop = async () => {
  clearInterval(log);
  await sim.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
