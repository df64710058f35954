import type { HypruseConfig } from '@hypruse/core';
import { hasRedacted } from './redact.js';
import { JOURNAL_VERSION, type JournalRecord } from './record.js';

/** Tools whose recorded calls can be replayed. */
export const REPLAYABLE_TOOLS: ReadonlySet<string> = new Set(['pointer', 'keyboard', 'click_ui', 'hypr', 'wm', 'launch', 'use_bind', 'clipboard']);

/** Arguments never replayed: a person's yes for one call is not a yes for its replay. */
export const UNREPLAYED_ARGS = ['confirm', 'allow_auth'] as const;

export interface ReplayStep {
  record: JournalRecord;
  tool: string;
  args: Record<string, unknown>;
  /** Recorded time since the previous step started (ms), before --speed/--max-gap. */
  gapMs: number;
}

export interface ReplayProblem {
  seq: number | null;
  reason: string;
}

export interface ReplayPlan {
  steps: ReplayStep[];
  /** Entries left out on purpose (not replayable, or a missing window under --skip-missing). */
  skipped: Array<{ seq: number; reason: string }>;
  /** Reasons to refuse the whole replay up front. */
  problems: ReplayProblem[];
}

export interface ReplayPlanOptions {
  config: HypruseConfig;
  from?: number;
  to?: number;
  skipMissing?: boolean;
  /** Window addresses on the desktop now; null when unknown (plan-only without a desktop). */
  liveWindows: ReadonlySet<string> | null;
  /** Tool names this hypruse knows; null to skip the check. */
  knownTools?: ReadonlySet<string> | null;
}

/** Window addresses a recorded call names (`window`, `target`, `address`). */
export function recordedWindows(args: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const k of ['window', 'target', 'address']) {
    const v = args[k];
    if (typeof v === 'string' && v && v !== 'active' && /^[A-Za-z0-9_:.-]+$/.test(v)) out.push(v);
  }
  return out;
}

function whyNotReplayable(r: JournalRecord, bySeq: Map<number, JournalRecord>): string | null {
  if (r.kind !== 'act') return 'not an action';
  if (r.outcome !== 'ok') return `it was ${r.outcome ?? 'not completed'}`;
  if (r.by === 'replay') return 'it was itself a replay';
  if (r.dry) return 'it was a dry run';
  if (r.tool === 'sequence') return 'a sequence is replayed through its steps';
  if (r.parent !== undefined) {
    const p = bySeq.get(r.parent);
    if (!p) return `its enclosing call #${r.parent} is not in the journal`;
    if (p.tool !== 'sequence') return `it ran inside ${p.tool} #${r.parent}, which is replayed instead`;
  }
  if (!r.tool || !REPLAYABLE_TOOLS.has(r.tool)) return `${r.tool ?? 'unknown tool'} is not a replayable tool`;
  return null;
}

/**
 * Which recorded actions a replay would run, and every reason to refuse it
 * up front (§10.1 item 4): a newer record format, text recorded as a digest,
 * a click on a mark number (marks die with the session), a clipboard write
 * without the clipboard enabled, read-only or dry-run mode, a recorded window
 * that no longer exists (unless --skip-missing).
 */
export function planReplay(records: JournalRecord[], opts: ReplayPlanOptions): ReplayPlan {
  const sorted = [...records].sort((a, b) => a.seq - b.seq);
  const bySeq = new Map(sorted.map((r) => [r.seq, r]));
  const plan: ReplayPlan = { steps: [], skipped: [], problems: [] };
  if (opts.config.readonly) plan.problems.push({ seq: null, reason: 'read-only mode is on (HYPRUSE_READONLY), so nothing can be replayed' });
  if (opts.config.dryRun) plan.problems.push({ seq: null, reason: 'dry-run mode is on (HYPRUSE_DRYRUN); a replay rehearsal is what plan-only already shows' });
  let prevTs: number | null = null;
  for (const r of sorted) {
    if (r.kind === 'session') continue;
    if (opts.from !== undefined && r.seq < opts.from) continue;
    if (opts.to !== undefined && r.seq > opts.to) continue;
    if (typeof r.v !== 'number' || r.v > JOURNAL_VERSION) {
      plan.problems.push({ seq: r.seq, reason: `written by a newer hypruse (record version ${String(r.v)}, this one reads ${JOURNAL_VERSION})` });
      continue;
    }
    const why = whyNotReplayable(r, bySeq);
    if (why) {
      if (r.kind === 'act') plan.skipped.push({ seq: r.seq, reason: why });
      continue;
    }
    const tool = r.tool!;
    const args: Record<string, unknown> = { ...(r.args ?? {}) };
    for (const k of UNREPLAYED_ARGS) delete args[k];
    if (opts.knownTools && !opts.knownTools.has(tool)) {
      plan.problems.push({ seq: r.seq, reason: `${tool} is not a tool of this hypruse` });
      continue;
    }
    if (hasRedacted(args)) {
      plan.problems.push({ seq: r.seq, reason: `${tool} typed text that was recorded as a digest (length and hash), so it cannot be re-typed; record with HYPRUSE_JOURNAL_TEXT=1 to replay typing` });
      continue;
    }
    if (tool === 'click_ui' && args.mark !== undefined && args.mark !== null && args.mark !== 0) {
      plan.problems.push({ seq: r.seq, reason: `click_ui clicked mark ${String(args.mark)}; mark numbers die with the session that drew them` });
      continue;
    }
    if (tool === 'clipboard' && args.action === 'write' && !opts.config.clipboard) {
      plan.problems.push({ seq: r.seq, reason: 'a clipboard write needs the clipboard tool (HYPRUSE_CLIPBOARD=1)' });
      continue;
    }
    const missing = opts.liveWindows ? recordedWindows(args).filter((w) => !opts.liveWindows!.has(w)) : [];
    if (missing.length) {
      if (opts.skipMissing) {
        plan.skipped.push({ seq: r.seq, reason: `window ${missing.join(', ')} no longer exists (--skip-missing)` });
      } else {
        plan.problems.push({ seq: r.seq, reason: `window ${missing.join(', ')} no longer exists (--skip-missing runs the rest)` });
      }
      continue;
    }
    const ts = Date.parse(r.ts);
    const gapMs = prevTs === null || Number.isNaN(ts) ? 0 : Math.max(0, ts - prevTs);
    if (!Number.isNaN(ts)) prevTs = ts;
    plan.steps.push({ record: r, tool, args, gapMs });
  }
  return plan;
}

/** The wait before a step: the recorded gap, capped by maxGapS, divided by speed. */
export function paceMs(gapMs: number, speed: number, maxGapS: number): number {
  const capped = Math.min(gapMs, Math.max(0, maxGapS) * 1000);
  return speed > 0 ? capped / speed : 0;
}
