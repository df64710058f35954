#!/usr/bin/env node
// A fake Wayland app for the Hyprland simulator: asks the simulator (over
// $HYPRUSE_SIM_CONTROL) to map a window whose pid is this process, and lives
// until the window is closed. Flags: --class C --title T --delay MS
// --workspace W --single-instance (hand off to a running instance and exit) --no-window.
import { createConnection } from 'node:net';

const args = process.argv.slice(2);
const opt = (n, d) => {
  const i = args.indexOf(n);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : d;
};
const control = process.env.HYPRUSE_SIM_CONTROL;
if (!control) {
  process.stderr.write('fake-app: HYPRUSE_SIM_CONTROL is not set\n');
  process.exit(2);
}
const cls = opt('--class', 'fake-app');
const title = opt('--title', cls);
const delay = Number(opt('--delay', '0'));
const maxLife = setTimeout(() => process.exit(0), Number(opt('--max-life', '120000')));

if (args.includes('--no-window')) {
  setTimeout(() => process.exit(0), delay);
} else {
  setTimeout(() => {
    const sock = createConnection(control);
    sock.on('connect', () => {
      sock.write(JSON.stringify({ op: 'open', pid: process.pid, class: cls, title, singleInstance: args.includes('--single-instance'), workspace: opt('--workspace', undefined) }) + '\n');
    });
    let buf = '';
    sock.on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const msg = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (msg.op === 'close' || msg.op === 'handoff') {
          clearTimeout(maxLife);
          sock.end();
          process.exit(0);
        }
      }
    });
    sock.on('close', () => process.exit(0));
    sock.on('error', () => process.exit(1));
  }, delay);
}
