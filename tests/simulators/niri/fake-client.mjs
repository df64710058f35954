#!/usr/bin/env node
// A stand-in for a Wayland app under the niri simulator: it connects to
// $NIRI_SOCKET, announces itself with the simulator-only {"SimClient":{...}}
// request (the simulator then maps a window whose pid is this process), and
// lives until the window is closed (the simulator hangs up) or it is killed.
//   node fake-client.mjs [--title T] [--app-id A] [--workspace ID] [--delay-ms N] [--ignore-close]
import { createConnection } from 'node:net';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const socket = process.env.NIRI_SOCKET;
if (!socket) {
  process.stderr.write('fake-client: NIRI_SOCKET is not set\n');
  process.exit(2);
}
const request = {
  SimClient: {
    pid: process.pid,
    title: opt('--title', 'fake client'),
    app_id: opt('--app-id', 'hypruse.fake'),
    workspace: opt('--workspace', null) === null ? null : Number(opt('--workspace')),
    delay_ms: Number(opt('--delay-ms', '0')),
    ignore_close: args.includes('--ignore-close'),
  },
};
const conn = createConnection(socket, () => conn.write(`${JSON.stringify(request)}\n`));
conn.on('data', () => {});
conn.on('close', () => process.exit(0));
conn.on('error', (e) => {
  process.stderr.write(`fake-client: ${e.message}\n`);
  process.exit(1);
});
process.on('SIGTERM', () => process.exit(0));
