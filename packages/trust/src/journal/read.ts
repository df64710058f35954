import { readFile } from 'node:fs/promises';
import { HypruseError } from '@hypruse/core';
import type { JournalRecord } from './record.js';

export interface ReadJournal {
  records: JournalRecord[];
  /** Lines that were not JSON records (a torn last line, foreign text). */
  skipped: number;
}

/** Parse journal text: one record per line; torn or foreign lines are skipped and counted. */
export function parseJournal(text: string): ReadJournal {
  const records: JournalRecord[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line) as JournalRecord;
      if (typeof r === 'object' && r !== null && typeof r.seq === 'number' && typeof r.kind === 'string') records.push(r);
      else skipped++;
    } catch {
      skipped++;
    }
  }
  return { records, skipped };
}

export async function readJournal(path: string): Promise<ReadJournal> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new HypruseError('error.journal', code === 'ENOENT' ? `no journal at ${path}` : `cannot read the journal ${path} (${(err as Error).message})`, {
      hint: code === 'ENOENT' ? 'the journal is off by default: set HYPRUSE_JOURNAL=1 (or journal.path in the config), or name a file' : undefined,
    });
  }
  return parseJournal(text);
}

export interface JournalSummary {
  actions: number;
  dry: number;
  observations: number;
  refusals: number;
  errors: number;
  sessions: number;
}

export function summarize(records: JournalRecord[]): JournalSummary {
  const s: JournalSummary = { actions: 0, dry: 0, observations: 0, refusals: 0, errors: 0, sessions: 0 };
  for (const r of records) {
    if (r.kind === 'session') s.sessions++;
    else if (r.outcome === 'refused') s.refusals++;
    else if (r.outcome === 'error') s.errors++;
    else if (r.kind === 'act') {
      s.actions++;
      if (r.dry) s.dry++;
    } else s.observations++;
  }
  return s;
}

export function summaryLine(s: JournalSummary): string {
  return `${s.actions} action${s.actions === 1 ? '' : 's'} (${s.dry} dry), ${s.observations} observation${s.observations === 1 ? '' : 's'}, ${s.refusals} refusal${s.refusals === 1 ? '' : 's'}, ${s.errors} error${s.errors === 1 ? '' : 's'}`;
}
