import { TRUST_ORDER, toHypruseError, type ToolResult, type TrustCall, type TrustLayer } from '@hypruse/core';
import { journalFor } from '../journal/journal.js';
import { JOURNAL_VERSION, head, type JournalRecord } from '../journal/record.js';
import { redactBySchema, scrubText, type Redaction } from '../journal/redact-schema.js';

/** seq of each journaled call, so nested calls can name their parent. */
const seqs = new WeakMap<TrustCall, number>();

/**
 * Journal (outermost): one NDJSON record per call, refusals and errors
 * included, written when the call completes. Records what was asked and how
 * it ended, never a second copy of what the agent saw (no observation
 * payloads, no images). Unless `journal.text` is on, nothing the agent
 * typed, copied or read is stored: arguments and an action's result data are
 * stored along their schemas, every string that is not a fact as a digest
 * (see `fact` in core), and the result's free text is left out; error
 * messages and layer notes have quoted spans and every digested text cut out.
 */
export const journalLayer: TrustLayer = {
  name: 'journal',
  order: TRUST_ORDER.journal,
  appliesTo: (call) => call.config.journal.path !== null,
  async handle(call, next) {
    const journal = journalFor(call.config, call.env);
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
        const text = call.config.journal.text;
        const red: Redaction = { texts: [] };
        const rec: JournalRecord = {
          v: JOURNAL_VERSION,
          seq,
          ts: new Date(started).toISOString(),
          kind: call.kind,
          tool: call.tool,
          args: text ? { ...call.rawArgs } : (redactBySchema(call.definition?.input, call.rawArgs, red) as Record<string, unknown>),
          outcome: 'ok',
          ms: Math.round((performance.now() - t0) * 10) / 10,
        };
        if (failure === undefined && call.kind === 'act' && res) {
          if (text) rec.result = head([res.text[0] ?? '', ...call.notes].filter(Boolean).join('; '));
          else if (res.data) rec.facts = redactBySchema(res.data.dry_run === true ? undefined : call.definition?.output, res.data, red) as Record<string, unknown>;
        }
        if (!text && call.notes.length) rec.notes = call.notes.map((n) => head(scrubText(n, red)));
        if (failure !== undefined) {
          const e = toHypruseError(failure);
          rec.outcome = e.category === 'refused' ? 'refused' : 'error';
          rec.error = head(`${e.name}: ${text ? e.message : scrubText(e.message, red)}`);
          rec.code = e.code;
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
