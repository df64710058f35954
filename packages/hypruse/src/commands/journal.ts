import { errorText, exitCodeFor, loadConfig, toHypruseError, UsageError } from '@hypruse/core';
import { defaultJournalPath, head, isRedacted, readJournal, resolveJournalPath, summarize, summaryLine, type JournalRecord } from '@hypruse/trust';
import type { Command } from './types.js';

interface JournalFlags {
  acts: boolean;
  refused: boolean;
  n: number | null;
  verbose: boolean;
  json: boolean;
  path: string | null;
}

const USAGE = 'hypruse journal [--acts] [--refused] [-n N] [-v] [--json] [PATH]';

export function parseJournalFlags(argv: string[]): JournalFlags {
  const f: JournalFlags = { acts: false, refused: false, n: null, verbose: false, json: false, path: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--acts') f.acts = true;
    else if (a === '--refused') f.refused = true;
    else if (a === '-v' || a === '--verbose') f.verbose = true;
    else if (a === '--json') f.json = true;
    else if (a === '-n' || a.startsWith('-n=') || a.startsWith('--n=') || /^-n\d+$/.test(a)) {
      const raw = a === '-n' ? argv[++i] : a.replace(/^--?n=?/, '');
      if (raw === undefined || !/^\d+$/.test(raw)) throw new UsageError(`-n needs a whole number of entries (given ${raw === undefined ? 'nothing' : JSON.stringify(raw)}); usage: ${USAGE}`, { code: 'usage.flag' });
      f.n = Number(raw);
    } else if (a.startsWith('-') && a !== '-') {
      throw new UsageError(`unknown flag ${a}; usage: ${USAGE}`, { code: 'usage.flag' });
    } else if (f.path === null) f.path = a;
    else throw new UsageError(`one journal file at most (given ${f.path} and ${a}); usage: ${USAGE}`, { code: 'usage.flag' });
  }
  return f;
}

function time(ts: string): string {
  return ts.replace('T', ' ').replace(/Z$/, '');
}

/** `key=value` pairs of a record's facts (digests as `<N chars>`), and its notes. */
function factsLine(r: JournalRecord): string {
  const show = (v: unknown): string => (isRedacted(v) ? `<${v.chars} chars>` : typeof v === 'object' && v !== null ? JSON.stringify(v, (_k, x) => (isRedacted(x) ? `<${x.chars} chars>` : x)) : String(v));
  const facts = Object.entries(r.facts ?? {}).map(([k, v]) => `${k}=${show(v)}`);
  return head([facts.join(' '), ...(r.notes ?? [])].filter(Boolean).join('; '));
}

/** One line per record, compact. */
export function formatRecord(r: JournalRecord, verbose: boolean): string {
  const seq = `#${r.seq}`.padStart(6);
  if (r.kind === 'session') {
    const m = r.mode;
    const mode = m
      ? Object.entries(m)
          .filter(([, v]) => v === true || (Array.isArray(v) && v.length) || (typeof v === 'string' && v !== 'on'))
          .map(([k, v]) => (v === true ? k : `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`))
          .join(' ')
      : '';
    return `${seq} ${time(r.ts)} session ${r.event ?? '?'} pid ${r.pid ?? '?'} hypruse ${r.version ?? '?'}${mode ? ` [${mode}]` : ''}`;
  }
  const tags = [r.dry ? 'dry' : '', r.by ?? '', r.source ?? '', r.parent !== undefined ? `in #${r.parent}` : ''].filter(Boolean);
  const kind = r.kind === 'act' ? 'act    ' : 'observe';
  const outcome = (r.outcome ?? '?').padEnd(7);
  const detail = r.outcome === 'ok' ? (r.result ?? factsLine(r)) : (r.error ?? '');
  const line = `${seq} ${time(r.ts)} ${kind} ${String(r.tool ?? '?').padEnd(10)} ${outcome} ${`${r.ms ?? '?'}ms`.padStart(8)}${tags.length ? ` [${tags.join(' ')}]` : ''}${detail ? `  ${detail}` : ''}`;
  return verbose && r.args && Object.keys(r.args).length ? `${line}\n         args ${JSON.stringify(r.args)}` : line;
}

export const journalCommand: Command = {
  name: 'journal',
  summary: 'read the action journal (what the agent did, refusals and errors included)',
  usage: USAGE,
  async run(argv) {
    try {
      const f = parseJournalFlags(argv);
      let path = f.path;
      if (!path) {
        const { config } = await loadConfig({});
        path = resolveJournalPath(config.journal.path) ?? defaultJournalPath();
      }
      const { records, skipped } = await readJournal(path);
      const sorted = records.sort((a, b) => a.seq - b.seq);
      let shown = sorted.filter((r) => (!f.acts || r.kind === 'act') && (!f.refused || r.outcome === 'refused'));
      if (f.n !== null) shown = f.n === 0 ? [] : shown.slice(-f.n);
      if (f.json) {
        for (const r of shown) process.stdout.write(`${JSON.stringify(r)}\n`);
      } else {
        for (const r of shown) process.stdout.write(`${formatRecord(r, f.verbose)}\n`);
      }
      const torn = skipped ? `; ${skipped} unreadable line${skipped === 1 ? '' : 's'} skipped` : '';
      const line = `${path}: ${summaryLine(summarize(sorted))}${shown.length !== sorted.length ? `; showing ${shown.length} of ${sorted.length}` : ''}${torn}`;
      if (f.json) process.stderr.write(`hypruse: ${line}\n`);
      else process.stdout.write(`${line}\n`);
      return 0;
    } catch (err) {
      const e = toHypruseError(err);
      process.stderr.write(`hypruse: ${errorText(e)}\n`);
      return exitCodeFor(e.category);
    }
  },
};
