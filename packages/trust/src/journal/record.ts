/** The journal record format, version 1 (one JSON object per line). */
export const JOURNAL_VERSION = 1;

export type JournalKind = 'act' | 'observe' | 'session';
export type JournalOutcome = 'ok' | 'refused' | 'error';

export interface JournalMode {
  readonly: boolean;
  confine: string[];
  auth_guard: string;
  strict: boolean;
  mark: boolean;
  clipboard: boolean;
  dry_run: boolean;
  text_recorded: boolean;
}

export interface JournalRecord {
  v: number;
  seq: number;
  /** UTC ISO-8601 with milliseconds and Z: when the call started. */
  ts: string;
  kind: JournalKind;
  tool?: string;
  /** Arguments as called (no defaults); unless journal.text, every string that is not a fact is a digest. */
  args?: Record<string, unknown>;
  outcome?: JournalOutcome;
  ms?: number;
  /** Headline of the result and the layers' notes (acts, only with journal.text), whitespace collapsed, at most 240 characters. */
  result?: string;
  /** The result's data (acts, journal.text off), every string that is not a fact a digest. */
  facts?: Record<string, unknown>;
  /** Notes the trust layers added (journal.text off), quoted spans and recorded text cut out. */
  notes?: string[];
  /** `<ErrorType>: <message>`, at most 240 characters; with journal.text off, quoted spans and recorded text cut out. */
  error?: string;
  /** Stable error code (refused.confine, ...). */
  code?: string;
  /** seq of the enclosing call (sequence step, click_ui -> pointer). */
  parent?: number;
  dry?: true;
  by?: 'replay';
  source?: 'cli';
  event?: 'start' | 'stop';
  pid?: number;
  version?: string;
  mode?: JournalMode;
}

/** Whitespace collapsed, cut at `max` characters with `...`. */
export function head(s: string, max = 240): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max)}...` : one;
}
