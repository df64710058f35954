import { scaledMs, pidAlive } from '@hypruse/core';
import { beaconsDir, readBeacons, type Beacon } from '@hypruse/trust';
import type { Command } from './types.js';

const WAIT_MS = 5000;

const doing = (b: Beacon) => (b.state === 'active' && b.action ? ` while it was running ${b.action}` : '');

/**
 * `hypruse stop`: the panic button. Every hypruse process of this seat keeps
 * its own beacon (the MCP server and each running shell verb); stop sends
 * each SIGTERM (it releases held buttons and keys, then exits), waits for all
 * of them to go, and reports each. Beacons of processes that are gone are
 * removed.
 */
export const stopCommand: Command = {
  name: 'stop',
  summary: 'stop every hypruse process acting on this desktop: the MCP server and running shell verbs (SIGTERM to each beacon pid), and every private desk with its apps',
  usage: 'hypruse stop',
  async run(argv) {
    if (argv.length) {
      process.stderr.write(`hypruse: usage: hypruse stop takes no arguments (given ${argv.join(' ')})\n`);
      return 2;
    }
    const { listDesks, stopDesk } = await import('../desk/desk.js');
    const found = readBeacons();
    // a server working in a private desk keeps its beacon in the desk's runtime dir
    for (const d of listDesks()) {
      const inDesk = readBeacons({ XDG_RUNTIME_DIR: d.state.runtimeDir });
      found.live.push(...inDesk.live);
      found.stale.push(...inDesk.stale);
      found.unreadable.push(...inDesk.unreadable);
    }
    const stale = found.stale.length ? ` (removed ${found.stale.length} stale beacon${found.stale.length === 1 ? '' : 's'} of pid ${found.stale.join(', ')})` : '';
    for (const path of found.unreadable) process.stderr.write(`hypruse: warning: the beacon ${path} is unreadable; its process is still running\n`);
    // a monitor page acts on nothing (its Stop button is the same stop): it keeps running
    const targets = found.live.filter((b) => b.pid !== process.pid && b.mode?.source !== 'monitor');
    /** Then every private desk left (their servers stop their own): its apps, compositor and buses, by pid. */
    const stopDesks = async (): Promise<number> => {
      let bad = 0;
      for (const d of listDesks()) {
        const r = await stopDesk(d.state);
        if (r.survivors.length) {
          bad++;
          process.stderr.write(`hypruse: error: desk ${r.name}: pid ${r.survivors.join(', ')} survived SIGKILL\n`);
        } else process.stdout.write(`stopped desk ${r.name} (${r.ended} process${r.ended === 1 ? '' : 'es'}, ${r.apps} app${r.apps === 1 ? '' : 's'})\n`);
      }
      return bad;
    };
    if (!targets.length) {
      const deskFailures = await stopDesks();
      process.stdout.write(`no active hypruse session${stale}\n`);
      if (found.unreadable.length) process.stderr.write('hint: find the process with: pgrep -af hypruse, and stop it by its pid\n');
      return found.unreadable.length || deskFailures ? 1 : 0;
    }
    let failed = 0;
    const signalled: Beacon[] = [];
    for (const b of targets) {
      try {
        process.kill(b.pid, 'SIGTERM');
        signalled.push(b);
      } catch (err) {
        failed++;
        const e = err as NodeJS.ErrnoException;
        process.stderr.write(
          e.code === 'EPERM'
            ? `hypruse: error: not allowed to signal pid ${b.pid} (it belongs to another user)\nhint: run hypruse stop as that user\n`
            : `hypruse: error: cannot signal pid ${b.pid} (${e.message})\n`,
        );
      }
    }
    const waitMs = scaledMs(WAIT_MS);
    const deadline = Date.now() + waitMs;
    let waiting = signalled;
    while (waiting.length && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      waiting = waiting.filter((b) => pidAlive(b.pid));
    }
    for (const b of signalled) {
      if (waiting.includes(b)) {
        failed++;
        process.stderr.write(`hypruse: error: pid ${b.pid} got SIGTERM but did not exit within ${waitMs / 1000} s\nhint: kill -9 ${b.pid} (held input is then released when its Wayland connection closes)\n`);
      } else {
        process.stdout.write(`stopped hypruse (pid ${b.pid}, ${b.mode?.source ?? 'unknown'})${doing(b)}\n`);
      }
    }
    readBeacons(); // removes the beacons of the processes that just exited without removing their own
    failed += await stopDesks();
    if (stale) process.stdout.write(`${stale.trim()}\n`);
    if (failed) process.stderr.write(`hypruse: ${failed} of ${targets.length} hypruse process${targets.length === 1 ? '' : 'es'} in ${beaconsDir()} could not be stopped\n`);
    return failed ? 1 : 0;
  },
};
