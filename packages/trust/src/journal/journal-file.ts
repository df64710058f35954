import { chmod, lstat, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { APPEND_NOFOLLOW, HypruseError, createExclusive, pidAlive, writeFileExclusive } from '@hypruse/core';
import type { JournalRecord } from './record.js';

const LOCK_WAIT_MS = 1000;
/** A lock held longer than this is stale (its holder died between open and unlink). */
const LOCK_STALE_MS = 2000;
const TAIL_BYTES = 256 * 1024;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One journal file. `seq` numbers are unique across processes: the last one
 * issued lives in `<journal>.seq`, read and bumped under an exclusive lock
 * file (`<journal>.lock`, O_EXCL, holder pid inside, stolen when the holder
 * is dead or the lock is older than 2 s); a missing counter resumes from the
 * journal's tail. Appends and rotation run under the same lock, so two
 * processes never rotate one generation away.
 */
export class JournalFile {
  private dirReady: Promise<void> | null = null;
  /** Calls of this instance run one at a time, so a process never contends with itself for the file lock. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly maxBytes: number,
  ) {}

  get seqPath(): string {
    return `${this.path}.seq`;
  }

  get lockPath(): string {
    return `${this.path}.lock`;
  }

  /**
   * The directory: created 0700 when hypruse creates it. An existing directory
   * is never re-moded (the person chose it: it may be /tmp or a shared folder);
   * the journal file itself is always 0600.
   */
  private ensureDir(): Promise<void> {
    this.dirReady ??= (async () => {
      const dir = dirname(this.path);
      const created = await mkdir(dir, { recursive: true, mode: 0o700 });
      if (created !== undefined) await chmod(dir, 0o700); // the umask may have widened it
      const st = await lstat(dir);
      const me = process.getuid?.();
      // a folder the person chose may be shared (mode 1777 /tmp): files there are made exclusively and never through a link;
      // one that is itself a link, or another user's folder they can write in, is refused
      if (st.isSymbolicLink() || (me !== undefined && st.uid !== me && st.uid !== 0 && (st.mode & 0o022) !== 0)) {
        throw new HypruseError('error.unsafe_dir', `the journal folder ${dir} is not safe: ${st.isSymbolicLink() ? 'it is a symbolic link' : `it belongs to uid ${st.uid} and others can write in it`}`, {
          hint: 'Point journal.path (HYPRUSE_JOURNAL) at a folder of your own.',
          data: { path: dir },
        });
      }
    })().catch((err) => {
      this.dirReady = null;
      throw err;
    });
    return this.dirReady;
  }

  private withLock<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(() => this.withFileLock(fn));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async withFileLock<T>(fn: () => Promise<T>): Promise<T> {
    await this.ensureDir();
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        await createExclusive(this.lockPath, String(process.pid));
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const stale = await this.staleLock();
        if (stale !== null) {
          // re-check right before removing, so a lock another waiter just re-created is not removed
          if ((await readFile(this.lockPath, 'utf8').catch(() => null)) === stale) await unlink(this.lockPath).catch(() => undefined);
          continue;
        }
        if (Date.now() > deadline) {
          throw new HypruseError('error.journal', `the journal lock ${this.lockPath} is held by another process for more than ${LOCK_WAIT_MS} ms`);
        }
        await sleep(2 + Math.random() * 4);
      }
    }
    try {
      return await fn();
    } finally {
      await unlink(this.lockPath).catch(() => undefined);
    }
  }

  /** The content of a stale lock (holder dead, or held too long), or null when the lock is live or gone. */
  private async staleLock(): Promise<string | null> {
    try {
      const [st, text] = await Promise.all([stat(this.lockPath), readFile(this.lockPath, 'utf8')]);
      const pid = Number(text.trim());
      if (text && Number.isInteger(pid) && pid > 0 && !pidAlive(pid)) return text;
      return Date.now() - st.mtimeMs > LOCK_STALE_MS ? text : null;
    } catch {
      return null; // gone already (retry)
    }
  }

  /** The highest seq in the journal's tail (and its .1 generation), 0 when empty. */
  async lastSeqInFiles(): Promise<number> {
    let max = 0;
    for (const p of [this.path, `${this.path}.1`]) {
      const tail = await readTail(p, TAIL_BYTES);
      for (const m of tail.matchAll(/"seq":(\d+)/g)) max = Math.max(max, Number(m[1]));
      if (max > 0) break;
    }
    return max;
  }

  /** Issue the next seq (unique across processes). */
  nextSeq(): Promise<number> {
    return this.withLock(async () => {
      let last = NaN;
      try {
        last = Number((await readFile(this.seqPath, 'utf8')).trim());
      } catch {
        /* no counter yet */
      }
      if (!Number.isInteger(last) || last < 0) last = await this.lastSeqInFiles();
      const seq = last + 1;
      await writeFileExclusive(this.seqPath, `${seq}\n`);
      return seq;
    });
  }

  /** Append one record, rotating first when it would cross `maxBytes` (0 = never). */
  append(record: JournalRecord): Promise<void> {
    const line = `${JSON.stringify(record)}\n`;
    return this.withLock(async () => {
      if (this.maxBytes > 0) {
        const size = await stat(this.path).then((s) => s.size, () => 0);
        if (size > 0 && size + Buffer.byteLength(line) > this.maxBytes) await rename(this.path, `${this.path}.1`);
      }
      const fh = await open(this.path, APPEND_NOFOLLOW, 0o600);
      try {
        await fh.chmod(0o600);
        await fh.write(line);
      } finally {
        await fh.close();
      }
    });
  }
}

async function readTail(path: string, bytes: number): Promise<string> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch {
    return '';
  }
  try {
    const { size } = await fh.stat();
    const len = Math.min(size, bytes);
    const buf = Buffer.alloc(len);
    await fh.read(buf, 0, len, size - len);
    return buf.toString('utf8');
  } finally {
    await fh.close();
  }
}
