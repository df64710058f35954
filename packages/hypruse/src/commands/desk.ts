import { Tokens, UsageError, errorText, exitCodeFor, toHypruseError, type CompositorFactory } from '@hypruse/core';
import type { Command } from './types.js';

const USAGE = `hypruse desk start [NAME] [--size WxH] [--compositor ID] [--json]
hypruse desk stop NAME... | --all
hypruse desk status [NAME] [--json]
hypruse desk env NAME [--json]`;

interface DeskFlags {
  /** `reap` is internal: the watcher a desk with an owner starts. */
  sub: 'start' | 'stop' | 'status' | 'env' | 'reap';
  names: string[];
  size?: [number, number];
  compositor?: string;
  all: boolean;
  json: boolean;
}

export function parseDeskFlags(argv: string[]): DeskFlags {
  const [sub, ...rest] = argv;
  if (sub === 'reap' && rest.length === 1) return { sub, names: rest, all: false, json: false };
  if (sub !== 'start' && sub !== 'stop' && sub !== 'status' && sub !== 'env') {
    throw new UsageError(`${sub === undefined ? 'a sub-command is needed' : `unknown sub-command "${sub}"`}; usage:\n${USAGE}`, { code: 'usage.verb' });
  }
  const f: DeskFlags = { sub, names: [], all: false, json: false };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    const m = /^--([a-z]+)(?:=(.*))?$/.exec(a);
    if (!m) {
      if (a.startsWith('-')) throw new UsageError(`unknown flag ${a}; usage:\n${USAGE}`, { code: 'usage.flag' });
      f.names.push(a);
      continue;
    }
    const value = () => {
      const v = m[2] ?? rest[++i];
      if (v === undefined) throw new UsageError(`--${m[1]} needs a value; usage:\n${USAGE}`, { code: 'usage.flag' });
      return v;
    };
    if (m[1] === 'json') f.json = true;
    else if (m[1] === 'all' && sub === 'stop') f.all = true;
    else if (m[1] === 'size' && sub === 'start') {
      const v = value();
      const s = /^(\d{3,4})x(\d{3,4})$/.exec(v);
      const w = Number(s?.[1]);
      const h = Number(s?.[2]);
      if (!s || w < 320 || h < 240 || w > 7680 || h > 4320) throw new UsageError(`--size ${v} is not WIDTHxHEIGHT from 320x240 to 7680x4320`, { code: 'usage.flag' });
      f.size = [w, h];
    } else if (m[1] === 'compositor' && sub === 'start') f.compositor = value();
    else throw new UsageError(`unknown flag ${a} for desk ${sub}; usage:\n${USAGE}`, { code: 'usage.flag' });
  }
  if (sub === 'start' && f.names.length > 1) throw new UsageError(`desk start takes one name at most (given ${f.names.join(' ')})`, { code: 'usage.arguments' });
  if (sub === 'env' && f.names.length !== 1) throw new UsageError(`desk env takes one desk name; usage:\n${USAGE}`, { code: 'usage.arguments' });
  if (sub === 'status' && f.names.length > 1) throw new UsageError('desk status takes one name at most', { code: 'usage.arguments' });
  if (sub === 'stop' && !f.all && !f.names.length) throw new UsageError(`desk stop needs the desk's name, or --all; usage:\n${USAGE}`, { code: 'usage.arguments' });
  return f;
}

/** The installed compositor plugins' factories (the default set and the configured plugins). */
async function factories(): Promise<CompositorFactory[]> {
  const { createSession } = await import('../session.js');
  const s = await createSession({ source: 'cli', noCompositor: true });
  try {
    return s.container.isRegistered(Tokens.CompositorFactory, true) ? s.container.resolveAll<CompositorFactory>(Tokens.CompositorFactory) : [];
  } finally {
    await s.dispose();
  }
}

const envLines = (env: Record<string, string>) => Object.entries(env).map(([k, v]) => `${k}=${v}`).join('\n');

/**
 * `hypruse desk`: private headless desks of the agent's own. `start` brings
 * one up (its own compositor, Wayland socket, session and AT-SPI buses, in its
 * own 0700 runtime dir) and prints its environment; `HYPRUSE_DESK=NAME` (or
 * `desk: NAME` in the config) makes hypruse work there; `stop` ends every
 * process of the desk, apps included, by pid.
 */
export const deskCommand: Command = {
  name: 'desk',
  summary: 'private headless desks for the agent (start|stop|status|env): its own compositor, Wayland socket, session and AT-SPI buses; nothing reaches the person\'s seat',
  usage: USAGE,
  async run(argv) {
    let f: DeskFlags;
    try {
      f = parseDeskFlags(argv);
    } catch (err) {
      process.stderr.write(`hypruse: ${errorText(toHypruseError(err))}\n`);
      return 2;
    }
    const desk = await import('../desk/desk.js');
    try {
      switch (f.sub) {
        case 'start': {
          const s = await desk.startDesk({ name: f.names[0], size: f.size, compositor: f.compositor, factories: await factories() });
          if (f.json) process.stdout.write(`${JSON.stringify({ name: s.name, compositor: s.compositor, pids: s.pids, env: s.env, dir: s.dir })}\n`);
          else {
            process.stdout.write(
              `desk ${s.name} started: ${s.compositor} pid ${s.pids.compositor?.pid}, session bus pid ${s.pids.dbus?.pid}, AT-SPI bus launcher pid ${s.pids.a11y?.pid}, ${s.size.join('x')}, runtime dir ${s.runtimeDir}\n` +
                `use it: HYPRUSE_DESK=${s.name} (or desk: "${s.name}" in the config); look at it: hypruse monitor with HYPRUSE_DESK=${s.name}; stop it: hypruse desk stop ${s.name}\n`,
            );
          }
          return 0;
        }
        case 'stop': {
          const targets = f.all ? desk.listDesks().map((d) => d.state) : f.names.map((n) => desk.findDesk(n));
          if (!targets.length) {
            process.stdout.write('no private desk is running\n');
            return 0;
          }
          let failed = 0;
          for (const s of targets) {
            const r = await desk.stopDesk(s);
            if (r.survivors.length) {
              failed++;
              process.stderr.write(`hypruse: error: desk ${r.name}: pid ${r.survivors.join(', ')} survived SIGKILL\n`);
            } else process.stdout.write(`desk ${r.name} stopped: ${r.ended} process${r.ended === 1 ? '' : 'es'} ended (${r.apps} app${r.apps === 1 ? '' : 's'})\n`);
          }
          return failed ? 1 : 0;
        }
        case 'status': {
          const all = desk.listDesks();
          const shown = f.names.length ? all.filter((d) => d.state.name === f.names[0]) : all;
          if (f.names.length && !shown.length) desk.findDesk(f.names[0]!); // throws not_found.desk with the running names
          if (f.json) {
            process.stdout.write(`${JSON.stringify(shown.map((d) => ({ name: d.state.name, instance: d.state.instance, compositor: d.state.compositor, healthy: d.problem === null, problem: d.problem, owner: d.state.owner?.pid ?? null, pids: d.state.pids, apps: d.apps.map((a) => a.pid), env: d.state.env, size: d.state.size, startedAt: d.state.startedAt })))}\n`);
            return 0;
          }
          if (!shown.length) {
            process.stdout.write(`no private desk is running (start one: hypruse desk start)\n`);
            return 0;
          }
          for (const d of shown) {
            const s = d.state;
            const who = s.owner ? `owned by the hypruse server pid ${s.owner.pid}` : 'started by hypruse desk start';
            process.stdout.write(
              `desk ${s.name}: ${d.problem ? `unhealthy (${d.problem})` : 'healthy'}; ${s.compositor} pid ${s.pids.compositor?.pid ?? '-'}, ${s.size.join('x')}, ${who}; ` +
                `apps: ${d.apps.map((a) => a.pid).join(' ') || 'none'}; runtime dir ${s.runtimeDir}\n`,
            );
          }
          return 0;
        }
        case 'reap': {
          const r = await desk.reapDesk(f.names[0]!);
          if (r) process.stderr.write(`hypruse: desk ${r.name}: its owner ended without stopping it; stopped it (${r.ended} processes)\n`);
          return 0;
        }
        case 'env': {
          const s = desk.findDesk(f.names[0]!);
          // what a process started by hand needs to run in the desk (and to be stopped with it)
          const shown: Record<string, string> = { ...s.env, XDG_SESSION_TYPE: 'wayland', [desk.DESK_MARKER]: s.instance };
          process.stdout.write(f.json ? `${JSON.stringify(shown)}\n` : `${envLines(shown)}\n`);
          return 0;
        }
      }
    } catch (err) {
      const e = toHypruseError(err);
      process.stderr.write(`hypruse: ${errorText(e)}\n`);
      return exitCodeFor(e.category);
    }
  },
};
