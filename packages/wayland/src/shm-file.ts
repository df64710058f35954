import { randomBytes } from 'node:crypto';
import { closeSync, constants as C, ftruncateSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { privateRuntimeDir } from '@hypruse/core';
import { loadLibc } from './input/wire/libc.js';

/**
 * The file behind a wl_shm pool or a keymap: an anonymous memfd (no path, so
 * nothing another user could plant or read), or where memfd_create is not
 * available, a file created exclusively without following links
 * (O_CREAT|O_EXCL|O_NOFOLLOW) in hypruse's private folder and unlinked at once.
 * Reads and writes are synchronous: memory copies into the page cache, which
 * the thread pool would only delay.
 */
export class ShmFile {
  private closed = false;
  private constructor(
    readonly fd: number,
    /** `memfd` or `file` (the fallback). */
    readonly kind: 'memfd' | 'file',
  ) {}

  static async create(label: string, env: NodeJS.ProcessEnv): Promise<ShmFile> {
    const { libc } = loadLibc();
    if (libc) {
      const fd = libc.memfd(`hypruse-${label}`);
      if (fd >= 0) return new ShmFile(fd, 'memfd');
    }
    const path = join(privateRuntimeDir(env), `${label}-${process.pid}-${randomBytes(6).toString('hex')}`);
    const fd = openSync(path, C.O_RDWR | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, 0o600);
    try {
      unlinkSync(path);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    return new ShmFile(fd, 'file');
  }

  async truncate(size: number): Promise<void> {
    ftruncateSync(this.fd, size);
  }

  /** Write all of `buf` at `position`. */
  async write(buf: Uint8Array, position = 0): Promise<void> {
    for (let off = 0; off < buf.length; ) off += writeSync(this.fd, buf, off, buf.length - off, position + off);
  }

  /** Fill all of `buf` from `position`. */
  async read(buf: Uint8Array, position = 0): Promise<void> {
    for (let off = 0; off < buf.length; ) {
      const n = readSync(this.fd, buf, off, buf.length - off, position + off);
      if (n === 0) throw new Error(`short read: ${off} of ${buf.length} bytes`);
      off += n;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
