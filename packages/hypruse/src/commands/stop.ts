import { readFileSync, unlinkSync } from 'node:fs';
import { beaconPath, readBeacon } from '@hypruse/trust';
import type { Command } from './types.js';

const WAIT_MS = 5000;

function alive(pid: number): boolean | 'eperm' {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? 'eperm' : false;
  }
}

/** Is this pid a hypruse process (and not an unrelated process that reused a dead hypruse's pid)? null when it cannot be told. */
function isHypruse(pid: number): boolean | null {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    return /hypruse/.test(cmd);
  } catch {
    return null;
  }
}

function removeStale(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    /* gone already */
  }
}

/**
 * `hypruse stop`: the panic button. Reads the activity beacon, sends the
 * hypruse process SIGTERM (it releases held buttons and keys, then exits),
 * waits for it to go, and says what happened.
 */
export const stopCommand: Command = {
  name: 'stop',
  summary: 'stop the hypruse agent session acting on this desktop (SIGTERM to the beacon pid)',
  usage: 'hypruse stop',
  async run(argv) {
    if (argv.length) {
      process.stderr.write(`hypruse: usage: hypruse stop takes no arguments (given ${argv.join(' ')})\n`);
      return 2;
    }
    const path = beaconPath();
    const b = readBeacon(path);
    if (b === null) {
      process.stdout.write('no active hypruse session\n');
      return 0;
    }
    if (b === 'unreadable') {
      process.stderr.write(`hypruse: error: the beacon ${path} is unreadable (no pid in it)\nhint: find the process with: pgrep -af hypruse, and stop it by its pid\n`);
      return 1;
    }
    const { pid } = b;
    if (pid === process.pid) {
      process.stdout.write('no active hypruse session\n');
      return 0;
    }
    const state = alive(pid);
    if (state === false || isHypruse(pid) === false) {
      removeStale(path);
      process.stdout.write(`no active hypruse session (removed a stale beacon of pid ${pid})\n`);
      return 0;
    }
    if (state === 'eperm') {
      process.stderr.write(`hypruse: error: not allowed to signal pid ${pid} (it belongs to another user)\nhint: run hypruse stop as that user\n`);
      return 1;
    }
    const doing = b.state === 'active' && b.action ? ` while it was running ${b.action}` : '';
    try {
      process.kill(pid, 'SIGTERM');
    } catch (err) {
      process.stderr.write(`hypruse: error: cannot signal pid ${pid} (${(err as Error).message})\n`);
      return 1;
    }
    const deadline = Date.now() + WAIT_MS;
    while (Date.now() < deadline) {
      if (alive(pid) === false) {
        removeStale(path);
        process.stdout.write(`stopped hypruse (pid ${pid})${doing}\n`);
        return 0;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    process.stderr.write(`hypruse: error: pid ${pid} got SIGTERM but did not exit within ${WAIT_MS / 1000} s\nhint: kill -9 ${pid} (held input is then released when its Wayland connection closes)\n`);
    return 1;
  },
};
