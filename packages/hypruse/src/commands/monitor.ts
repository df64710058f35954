import { UsageError, errorText, exitCodeFor, toHypruseError } from '@hypruse/core';
import type { Command } from './types.js';

const USAGE = 'hypruse monitor [--fps N]';

function parseArgs(argv: string[]): { fps?: number } {
  const out: { fps?: number } = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const m = /^--fps(?:=(.*))?$/.exec(a);
    if (!m) throw new UsageError(`unknown argument ${a}; usage: ${USAGE}`, { code: 'usage.flag' });
    const raw = m[1] ?? argv[++i];
    const fps = Number(raw);
    if (raw === undefined || !Number.isFinite(fps) || fps < 0.2 || fps > 10) throw new UsageError(`--fps ${raw ?? '(missing)'} is not a number from 0.2 to 10`, { code: 'usage.flag' });
    out.fps = fps;
  }
  return out;
}

/**
 * `hypruse monitor`: serve the monitor page until interrupted. The address,
 * with its token, is printed once on stdout; the beacon carries it without
 * the token, so doctor can say a monitor runs.
 */
export const monitorCommand: Command = {
  name: 'monitor',
  summary: 'serve the monitor page on 127.0.0.1 (live desktop, journal feed, Pause/Resume/Stop) until interrupted; prints its address with the token once',
  usage: USAGE,
  async run(argv) {
    let args: { fps?: number };
    try {
      args = parseArgs(argv);
    } catch (err) {
      process.stderr.write(`hypruse: usage: ${(err as Error).message}\n`);
      return 2;
    }
    const [{ createSession }, { startMonitor, announceMonitor }] = await Promise.all([import('../session.js'), import('../monitor/index.js')]);
    let session;
    try {
      session = await createSession({ source: 'cli', overrides: (c) => (args.fps ? { ...c, monitor: { ...c.monitor, fps: args.fps } } : c) });
    } catch (err) {
      const e = toHypruseError(err);
      process.stderr.write(`hypruse: ${errorText(e)}\n`);
      return exitCodeFor(e.category);
    }
    const s = session;
    let running;
    try {
      running = await startMonitor({ session: async () => s, config: s.config, logger: s.logger });
    } catch (err) {
      await s.dispose();
      const e = toHypruseError(err);
      process.stderr.write(`hypruse: monitor: cannot listen on 127.0.0.1 (${errorText(e)})\n`);
      return 1;
    }
    announceMonitor(s, 'monitor', running.origin);
    if (s.compositor.id === 'none') process.stderr.write('hypruse: warning: no compositor found: the page shows the state and the journal, but no desktop image\n');
    process.stdout.write(`monitor page: ${running.url}\n(open it in a browser on this machine; the address holds its token and is shown only now)\n`);
    await new Promise<void>((resolve) => {
      for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(sig, () => resolve());
    });
    await Promise.race([Promise.all([running.server.close(), s.dispose()]), new Promise((r) => setTimeout(r, 1500))]);
    return 0;
  },
};
