import type { HypruseConfig } from '@hypruse/core';
import { JournalFile } from './journal-file.js';
import { resolveJournalPath } from './paths.js';
import { JOURNAL_VERSION, type JournalMode, type JournalRecord } from './record.js';

/**
 * The action journal of this process: numbering and appending never throw
 * (the recorder fails toward the action) and warn once on stderr.
 */
export class Journal {
  private warned = false;
  readonly file: JournalFile;

  constructor(
    readonly path: string,
    maxBytes: number,
    private readonly warn: (msg: string) => void = (m) => process.stderr.write(`hypruse warn: ${m}\n`),
  ) {
    this.file = new JournalFile(path, maxBytes);
  }

  private fail(err: unknown): void {
    if (this.warned) return;
    this.warned = true;
    this.warn(`journal: cannot write ${this.path} (${(err as Error)?.message ?? String(err)}); actions continue unrecorded`);
  }

  /** The next seq, or null when the journal cannot be written. */
  async seq(): Promise<number | null> {
    try {
      return await this.file.nextSeq();
    } catch (err) {
      this.fail(err);
      return null;
    }
  }

  async write(record: JournalRecord): Promise<void> {
    try {
      await this.file.append(record);
    } catch (err) {
      this.fail(err);
    }
  }
}

const journals = new Map<string, Journal>();

/** The journal for a config (one instance per path per process), or null when the journal is off. */
export function journalFor(config: HypruseConfig, env: NodeJS.ProcessEnv = process.env): Journal | null {
  const path = resolveJournalPath(config.journal.path, env);
  if (!path) return null;
  let j = journals.get(path);
  if (!j) {
    j = new Journal(path, config.journal.maxBytes);
    journals.set(path, j);
  }
  return j;
}

export function journalMode(config: HypruseConfig): JournalMode {
  return {
    readonly: config.readonly,
    confine: [...config.confine],
    auth_guard: config.authGuard,
    strict: config.strict,
    mark: config.mark,
    clipboard: config.clipboard,
    dry_run: config.dryRun,
    text_recorded: config.journal.text,
  };
}

async function sessionRecord(config: HypruseConfig, event: 'start' | 'stop', version: string, env?: NodeJS.ProcessEnv): Promise<void> {
  const j = journalFor(config, env);
  if (!j) return;
  const seq = await j.seq();
  if (seq === null) return;
  await j.write({ v: JOURNAL_VERSION, seq, ts: new Date().toISOString(), kind: 'session', event, pid: process.pid, version, mode: journalMode(config) });
}

/** Record that a session (the MCP server) started, with its mode settings. Never throws. */
export function journalSessionStart(config: HypruseConfig, version: string, env?: NodeJS.ProcessEnv): Promise<void> {
  return sessionRecord(config, 'start', version, env);
}

/** Record that a session stopped. Never throws. */
export function journalSessionStop(config: HypruseConfig, version: string, env?: NodeJS.ProcessEnv): Promise<void> {
  return sessionRecord(config, 'stop', version, env);
}
