import { TRUST_ORDER, toHypruseError, type ToolResult, type TrustCall, type TrustLayer } from '@hypruse/core';
import { journalFor } from '../journal/journal.js';
import { JOURNAL_VERSION, head, type JournalRecord } from '../journal/record.js';
import { redactArgs } from '../journal/redact.js';

/** seq of each journaled call, so nested calls can name their parent. */
const seqs = new WeakMap<TrustCall, number>();

/**
 * Journal (outermost): one NDJSON record per call, refusals and errors
 * included, written when the call completes. Records what was asked and how
 * it ended, never a second copy of what the agent saw (no observation
 * payloads, no images). Typed text is a digest unless `journal.text`.
 */
export const journalLayer: TrustLayer = {
  name: 'journal',
  order: TRUST_ORDER.journal,
  appliesTo: (call) => call.config.journal.path !== null,
  async handle(call, next) {
    const journal = journalFor(call.config);
    if (!journal) return next();
    const started = Date.now();
    const t0 = performance.now();
    const seq = await journal.seq();
    if (seq !== null) seqs.set(call, seq);
    let res: ToolResult | undefined;
    let failure: unknown;
    try {
      res = await next();
      return res;
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      if (seq !== null) {
        const rec: JournalRecord = {
          v: JOURNAL_VERSION,
          seq,
          ts: new Date(started).toISOString(),
          kind: call.kind,
          tool: call.tool,
          args: call.config.journal.text ? { ...call.rawArgs } : redactArgs(call.rawArgs),
          outcome: 'ok',
          ms: Math.round((performance.now() - t0) * 10) / 10,
        };
        if (failure !== undefined) {
          const e = toHypruseError(failure);
          rec.outcome = e.category === 'refused' ? 'refused' : 'error';
          rec.error = head(`${e.name}: ${e.message}`);
          rec.code = e.code;
        } else if (call.kind === 'act' && res) {
          const first = [res.text[0] ?? '', ...call.notes].filter(Boolean).join('; ');
          rec.result = head(first);
        }
        const parent = call.parent ? seqs.get(call.parent) : undefined;
        if (parent !== undefined) rec.parent = parent;
        if (call.dryRun && call.kind === 'act') rec.dry = true;
        if (call.source === 'replay') rec.by = 'replay';
        if (call.source === 'cli') rec.source = 'cli';
        await journal.write(rec);
      }
    }
  },
};
