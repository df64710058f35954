import { open, stat } from 'node:fs/promises';
import { parseJournal, type JournalRecord } from '@hypruse/trust';

/** How much of the journal's end the page shows when it opens. */
const BACKLOG_BYTES = 128 * 1024;
const BACKLOG_RECORDS = 200;

export interface JournalTailOptions {
  path: string;
  /** How often the file is looked at. */
  pollMs: number;
  onRecords: (records: JournalRecord[]) => void;
}

/**
 * The journal as it happens: the records every hypruse process of the
 * session appends (acts, observations, refusals, session start and stop),
 * passed on exactly as written, so the page shows what the journal holds and
 * redacts what it redacts. Follows rotation (the file shrinks or is replaced)
 * and a journal that does not exist yet.
 */
export class JournalTail {
  private offset = 0;
  private ino = -1;
  /** Bytes after the last newline: a record still being written (kept as bytes: a read may end inside a character). */
  private partial = Buffer.alloc(0);
  private timer: NodeJS.Timeout | null = null;
  private reading: Promise<void> | null = null;
  private recent: JournalRecord[] = [];

  constructor(private readonly opts: JournalTailOptions) {}

  /** The last records, for a page that just opened. */
  backlog(): JournalRecord[] {
    return [...this.recent];
  }

  async start(): Promise<void> {
    const st = await stat(this.opts.path).catch(() => null);
    if (st) {
      this.ino = st.ino;
      const from = Math.max(0, st.size - BACKLOG_BYTES);
      const bytes = await readRange(this.opts.path, from, st.size);
      // a cut first line is not a record
      const lines = from > 0 ? bytes.subarray(bytes.indexOf(0x0a) + 1) : bytes;
      const end = lines.lastIndexOf(0x0a) + 1;
      this.remember(parseJournal(lines.subarray(0, end).toString('utf8')).records);
      this.partial = Buffer.from(lines.subarray(end));
      this.offset = st.size;
    }
    this.timer = setInterval(() => void this.poll(), this.opts.pollMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Read what was appended since the last look (the timer's body; tests call it). */
  poll(): Promise<void> {
    this.reading ??= this.read().finally(() => {
      this.reading = null;
    });
    return this.reading;
  }

  private async read(): Promise<void> {
    const st = await stat(this.opts.path).catch(() => null);
    if (!st) return;
    if (st.ino !== this.ino || st.size < this.offset) {
      // rotated (renamed to .1 and started afresh) or truncated: the new file from its start
      this.ino = st.ino;
      this.offset = 0;
      this.partial = Buffer.alloc(0);
    }
    if (st.size === this.offset) return;
    const bytes = Buffer.concat([this.partial, await readRange(this.opts.path, this.offset, st.size)]);
    this.offset = st.size;
    const end = bytes.lastIndexOf(0x0a) + 1;
    this.partial = Buffer.from(bytes.subarray(end));
    const { records } = parseJournal(bytes.subarray(0, end).toString('utf8'));
    if (!records.length) return;
    this.remember(records);
    this.opts.onRecords(records);
  }

  private remember(records: JournalRecord[]): void {
    this.recent.push(...records);
    if (this.recent.length > BACKLOG_RECORDS) this.recent.splice(0, this.recent.length - BACKLOG_RECORDS);
  }
}

async function readRange(path: string, from: number, to: number): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(to - from);
    let done = 0;
    while (done < buf.length) {
      const { bytesRead } = await fh.read(buf, done, buf.length - done, from + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return buf.subarray(0, done);
  } finally {
    await fh.close();
  }
}
