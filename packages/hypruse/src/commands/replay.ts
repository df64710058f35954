import {
  TrustError, UsageError, errorText, exitCodeFor, toHypruseError, type HypruseError,
} from '@hypruse/core';
import { paceMs, planReplay, readJournal, type ReplayPlan } from '@hypruse/trust';
import { createSession, type Session } from '../session.js';
import type { Command } from './types.js';

const USAGE = 'hypruse replay <journal> [--execute] [--yes] [--from N] [--to N] [--speed X] [--max-gap S] [--skip-missing]';

export interface ReplayFlags {
  path: string;
  execute: boolean;
  yes: boolean;
  from?: number;
  to?: number;
  speed: number;
  maxGap: number;
  skipMissing: boolean;
}

export function parseReplayFlags(argv: string[]): ReplayFlags {
  const f: Partial<ReplayFlags> & { speed: number; maxGap: number } = { execute: false, yes: false, skipMissing: false, speed: 1, maxGap: 5 };
  const num = (flag: string, raw: string | undefined, whole: boolean, min: number): number => {
    const ok = raw !== undefined && (whole ? /^\d+$/.test(raw) : /^\d+(\.\d+)?$/.test(raw)) && Number(raw) >= min;
    if (!ok) {
      throw new UsageError(`${flag} needs ${whole ? 'a whole number' : 'a number'} >= ${min} (given ${raw === undefined ? 'nothing' : JSON.stringify(raw)}); usage: ${USAGE}`, { code: 'usage.flag' });
    }
    return Number(raw);
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = () => inline ?? argv[++i];
    switch (flag) {
      case '--execute': f.execute = true; break;
      case '--yes': case '-y': f.yes = true; break;
      case '--skip-missing': f.skipMissing = true; break;
      case '--from': f.from = num('--from', value(), true, 0); break;
      case '--to': f.to = num('--to', value(), true, 0); break;
      case '--speed': f.speed = num('--speed', value(), false, 0.01); break;
      case '--max-gap': f.maxGap = num('--max-gap', value(), false, 0); break;
      default:
        if (a.startsWith('-')) throw new UsageError(`unknown flag ${a}; usage: ${USAGE}`, { code: 'usage.flag' });
        if (f.path !== undefined) throw new UsageError(`one journal file (given ${f.path} and ${a}); usage: ${USAGE}`, { code: 'usage.flag' });
        f.path = a;
    }
  }
  if (!f.path) throw new UsageError(`name the journal to replay; usage: ${USAGE}`, { code: 'usage.flag' });
  if (f.from !== undefined && f.to !== undefined && f.from > f.to) throw new UsageError(`--from ${f.from} is after --to ${f.to}`, { code: 'usage.flag' });
  return f as ReplayFlags;
}

function argsText(args: Record<string, unknown>): string {
  const s = JSON.stringify(args);
  return s.length > 160 ? `${s.slice(0, 157)}...` : s;
}

export function planText(plan: ReplayPlan, flags: ReplayFlags, windowsChecked: boolean): string[] {
  const lines = [`replay plan: ${plan.steps.length} action${plan.steps.length === 1 ? '' : 's'} from ${flags.path}${windowsChecked ? '' : ' (recorded windows not checked: no desktop)'}`];
  for (const s of plan.steps) {
    const wait = paceMs(s.gapMs, flags.speed, flags.maxGap) / 1000;
    lines.push(`  #${s.record.seq}  +${wait.toFixed(1)}s  ${s.tool} ${argsText(s.args)}${s.record.result ? `  (was: ${s.record.result})` : ''}`);
  }
  for (const s of plan.skipped) lines.push(`  skip #${s.seq}: ${s.reason}`);
  for (const p of plan.problems) lines.push(`  cannot replay${p.seq === null ? '' : ` #${p.seq}`}: ${p.reason}`);
  return lines;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted'));
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new Error('aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function fail(e: HypruseError): number {
  process.stderr.write(`hypruse: ${errorText(e)}\n`);
  return exitCodeFor(e.category);
}

/**
 * Replay a journal: plan-only by default; `--execute` runs the recorded
 * actions through the same pipeline and trust layers (source `replay`, so
 * its own journal entries are marked and never replayed again), paced by the
 * recorded gaps. Refuses up front when any entry cannot be replayed safely.
 */
export const replayCommand: Command = {
  name: 'replay',
  summary: 'show (or with --execute, run) the actions recorded in a journal',
  usage: USAGE,
  async run(argv) {
    let flags: ReplayFlags;
    try {
      flags = parseReplayFlags(argv);
    } catch (err) {
      return fail(toHypruseError(err));
    }
    const controller = new AbortController();
    const onSignal = () => controller.abort();
    for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(sig, onSignal);
    let session: Session | null = null;
    try {
      const { records } = await readJournal(flags.path);
      session = await createSession({ source: 'replay' });
      let live: Set<string> | null = null;
      try {
        live = new Set((await session.compositor.snapshot(controller.signal)).windows.map((w) => w.address));
      } catch (err) {
        if (flags.execute) throw err;
      }
      const known = new Set(session.registry.all().flatMap((t) => [t.name, session!.registry.nameOf(t)]));
      const plan = planReplay(records, { config: session.config, from: flags.from, to: flags.to, skipMissing: flags.skipMissing, liveWindows: live, knownTools: known });
      for (const l of planText(plan, flags, live !== null)) process.stdout.write(`${l}\n`);
      if (plan.problems.length) {
        const first = plan.problems[0];
        throw new TrustError({
          layer: 'replay',
          code: 'refused.replay',
          reason: `${plan.problems.length} entr${plan.problems.length === 1 ? 'y' : 'ies'} cannot be replayed safely (first: ${first.seq === null ? '' : `#${first.seq} `}${first.reason})`,
          hint: 'narrow the range with --from/--to, use --skip-missing for windows that are gone, or replay a journal recorded with HYPRUSE_JOURNAL_TEXT=1',
        });
      }
      if (!flags.execute) {
        process.stdout.write(`plan only: nothing was delivered; run again with --execute to replay${plan.steps.length ? '' : ' (nothing to replay)'}\n`);
        return 0;
      }
      if (!plan.steps.length) {
        process.stdout.write('nothing to replay\n');
        return 0;
      }
      if (!flags.yes) {
        for (let n = 3; n > 0; n--) {
          process.stderr.write(`hypruse: replaying ${plan.steps.length} action${plan.steps.length === 1 ? '' : 's'} in ${n}... (Ctrl-C to cancel)\n`);
          await sleep(1000, controller.signal);
        }
      }
      const total = plan.steps.length;
      for (const [i, step] of plan.steps.entries()) {
        const wait = i === 0 ? 0 : paceMs(step.gapMs, flags.speed, flags.maxGap);
        if (wait > 0) await sleep(wait, controller.signal);
        process.stderr.write(`hypruse: replay [${i + 1}/${total}] #${step.record.seq} ${step.tool} ${argsText(step.args)}\n`);
        try {
          const r = await session.pipeline.call(step.tool, step.args, {
            signal: controller.signal,
            progress: (m) => process.stderr.write(`hypruse: ${m}\n`),
          });
          process.stderr.write(`hypruse: replay [${i + 1}/${total}] ok: ${r.text[0] ?? ''}\n`);
        } catch (err) {
          const e = toHypruseError(err);
          process.stderr.write(`hypruse: replay stopped at #${step.record.seq} (${i} of ${total} replayed)\n`);
          return fail(e);
        }
      }
      process.stdout.write(`replayed ${total} action${total === 1 ? '' : 's'}\n`);
      return 0;
    } catch (err) {
      if (controller.signal.aborted) {
        process.stderr.write('hypruse: cancelled: replay interrupted\n');
        return 1;
      }
      return fail(toHypruseError(err));
    } finally {
      for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.off(sig, onSignal);
      await session?.dispose();
    }
  },
};
