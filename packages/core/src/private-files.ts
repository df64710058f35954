import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, constants as C, lstatSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { HypruseError } from './errors.js';
import { runtimeDir } from './runtime.js';

/**
 * Files hypruse writes (beacons, the stop/pause state, the journal, CLI state,
 * marks, screenshots) live in folders only this user can write, and are made
 * without following links: a folder is checked before use (a directory, not a
 * link, owned by this user, writable by nobody else), and a file is written
 * under a fresh random name created exclusively (O_CREAT|O_EXCL|O_NOFOLLOW)
 * and renamed over its final name, so a link another user planted is
 * neither followed nor written through.
 */

const uid = (): number | null => (typeof process.getuid === 'function' ? process.getuid() : null);

/** `$XDG_RUNTIME_DIR/hypruse`, or `/tmp/hypruse-<uid>` when there is no runtime dir. */
export function hypruseRuntimeDir(env: NodeJS.ProcessEnv = process.env): string {
  const rt = runtimeDir(env);
  return rt ? join(rt, 'hypruse') : `/tmp/hypruse-${uid() ?? 'user'}`;
}

const checked = new Set<string>();

function unsafe(dir: string, why: string): HypruseError {
  return new HypruseError('error.unsafe_dir', `the folder ${dir} is not safe for hypruse's files: ${why}`, {
    hint:
      `Another user may have made it to read or redirect hypruse's files. Do not use it: remove it (as its owner, or root) ` +
      `and let hypruse create its own, or set XDG_RUNTIME_DIR to a folder only you can write (mode 0700), then retry.`,
    data: { path: dir },
  });
}

/** Throw `error.unsafe_dir` unless `dir` is a real directory owned by this user that nobody else can write; tighten a readable one of ours to 0700. */
export function assertPrivateDir(dir: string): void {
  const st = lstatSync(dir);
  if (st.isSymbolicLink()) throw unsafe(dir, 'it is a symbolic link');
  if (!st.isDirectory()) throw unsafe(dir, 'it is not a directory');
  const me = uid();
  if (me !== null && st.uid !== me) throw unsafe(dir, `it belongs to uid ${st.uid}, not to you (uid ${me})`);
  if (st.mode & 0o022) throw unsafe(dir, `others can write in it (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')})`);
  if (st.mode & 0o077) chmodSync(dir, 0o700);
}

/**
 * Make (mode 0700) or check the private folder `dir`; its parent is made when
 * missing (recursively, 0700). Checked once per process while it exists.
 */
export function ensurePrivateDir(dir: string): string {
  if (checked.has(dir)) {
    try {
      if (lstatSync(dir).isDirectory()) return dir;
    } catch {
      /* gone: make it again */
    }
    checked.delete(dir);
  }
  try {
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o700); // the umask may have narrowed, never widened, it; make it exact
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      mkdirSync(dirname(dir), { recursive: true, mode: 0o700 });
      return ensurePrivateDir(dir);
    }
    if (code !== 'EEXIST') throw err;
  }
  assertPrivateDir(dir);
  checked.add(dir);
  return dir;
}

/** The folder for hypruse's session files, made or checked (`error.unsafe_dir` when another user could reach it). */
export function privateRuntimeDir(env: NodeJS.ProcessEnv = process.env): string {
  return ensurePrivateDir(hypruseRuntimeDir(env));
}

const EXCL = C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW;

function tempName(path: string): string {
  return `${path}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
}

/**
 * Write `data` to `path` atomically: into a fresh temporary name beside it,
 * created exclusively (never through a link), then renamed over `path` (a
 * link at `path` is replaced, not followed). The caller made the folder private.
 */
export function writeFileExclusiveSync(path: string, data: string | Uint8Array, mode = 0o600): void {
  const tmp = tempName(path);
  const fd = openSync(tmp, EXCL, mode);
  try {
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off);
  } catch (err) {
    closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      /* gone */
    }
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      /* gone */
    }
    throw err;
  }
}

/** `writeFileExclusiveSync`, asynchronously. */
export async function writeFileExclusive(path: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  const tmp = tempName(path);
  const fh = await open(tmp, EXCL, mode);
  try {
    await fh.writeFile(data);
    await fh.close();
    await rename(tmp, path);
  } catch (err) {
    await fh.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

/** Create `path` only if nothing (not even a link) is there: O_CREAT|O_EXCL|O_NOFOLLOW. */
export async function createExclusive(path: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  const fh = await open(path, EXCL, mode);
  try {
    await fh.writeFile(data);
  } finally {
    await fh.close();
  }
}

/** Flags to append to a file without following a link at its name. */
export const APPEND_NOFOLLOW = C.O_WRONLY | C.O_APPEND | C.O_CREAT | C.O_NOFOLLOW;
