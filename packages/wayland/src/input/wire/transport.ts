/**
 * Byte transport under the Wayland client: a Unix stream socket. When fds
 * must travel (the virtual keyboard's keymap, screencopy's wl_shm pool), the
 * socket is made and connected through libc (koffi, see libc.ts) and then
 * handed to a Node `net.Socket`, which owns the fd from then on and does all
 * the reading; every write goes out through sendmsg(2) on that fd, only
 * while the socket is not destroyed (Node closes the fd synchronously inside
 * destroy(), and nothing else writes to it). Without koffi it is Node's
 * `net` alone, which cannot pass fds.
 */
import net from 'node:net';
import { HypruseError } from '@hypruse/core';
import { AF_UNIX, EAGAIN, EINPROGRESS, EINTR, F_DUPFD_CLOEXEC, MAX_FDS, SOCK_CLOEXEC, SOCK_NONBLOCK, SOCK_STREAM, errnoText, loadLibc, unixAddress, type Libc } from './libc.js';

export interface WireTransport {
  /** True when file descriptors can be sent (sendmsg through koffi). */
  readonly fdPassing: boolean;
  readonly kind: 'sendmsg' | 'net';
  /**
   * Queue bytes (and fds) in order; resolves once written to the socket. The
   * transport sends duplicates of `fds`, so the caller may close its own at any time.
   */
  write(data: Buffer, fds?: number[]): Promise<void>;
  onData(cb: (chunk: Buffer) => void): void;
  onClose(cb: (err?: Error) => void): void;
  destroy(): void;
}

/** Null when fds can be passed here, else the reason (koffi or libc did not load). */
export function fdPassingUnavailable(): string | null {
  const { libc, error } = loadLibc();
  return libc ? null : `koffi did not load: ${error}`;
}

function connectError(path: string, why: string, cause?: unknown): HypruseError {
  return new HypruseError('error.wayland', `cannot connect to the Wayland socket ${path}: ${why}`, {
    hint: 'Run inside a Wayland session, or set WAYLAND_DISPLAY and XDG_RUNTIME_DIR to the compositor\'s socket.',
    cause,
  });
}

export async function connectTransport(
  path: string,
  opts: { wantFds: boolean; timeoutMs: number; signal?: AbortSignal },
): Promise<WireTransport> {
  const libc = opts.wantFds ? loadLibc().libc : null;
  return libc ? connectNative(libc, path, opts) : connectNet(path, opts);
}

function withTimeout<T>(
  path: string,
  opts: { timeoutMs: number; signal?: AbortSignal },
  start: (resolve: (v: T) => void, reject: (e: unknown) => void) => () => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    let cleanup: () => void = () => {};
    const finish = (fn: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const timer = setTimeout(
      () => finish(() => { cleanup(); reject(connectError(path, `no answer within ${opts.timeoutMs} ms`)); }),
      opts.timeoutMs,
    );
    const onAbort = () => finish(() => { cleanup(); reject(new HypruseError('cancelled.request', 'cancelled while connecting to Wayland')); });
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    cleanup = start(
      (v) => finish(() => resolve(v)),
      (e) => finish(() => reject(e)),
    );
  });
}

/** Close callbacks that run exactly once, whichever of error/close/end comes first. */
function closeOnce() {
  const closeCbs: Array<(e?: Error) => void> = [];
  let closed = false;
  return {
    closeCbs,
    isClosed: () => closed,
    close: (err?: Error) => {
      if (closed) return;
      closed = true;
      for (const cb of closeCbs) cb(err);
    },
  };
}

/** Longest pause between two tries of a write the socket had no room for. */
const MAX_RETRY_MS = 16;

interface PendingWrite {
  data: Buffer;
  /** Our duplicates, closed once sent (or dropped). */
  fds: number[];
  resolve: () => void;
  reject: (err: Error) => void;
}

function closeAll(libc: Libc, fds: number[]): void {
  for (const fd of fds.splice(0)) libc.close(fd);
}

/** Duplicates of `fds` (close-on-exec) owned by the transport, or an error naming the bad one. */
function duplicate(libc: Libc, fds: readonly number[]): number[] | Error {
  if (fds.length > MAX_FDS) return new Error(`at most ${MAX_FDS} file descriptors per message (got ${fds.length})`);
  const out: number[] = [];
  for (const fd of fds) {
    const d = Number.isInteger(fd) && fd >= 0 ? libc.fcntl(fd, F_DUPFD_CLOEXEC, 0) : -9;
    if (d < 0) {
      closeAll(libc, out);
      return new Error(`cannot pass file descriptor ${fd}: ${errnoText(-d)}`);
    }
    out.push(d);
  }
  return out;
}

function connectNative(libc: Libc, path: string, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<WireTransport> {
  return withTimeout<WireTransport>(path, opts, (resolve, reject) => {
    const addr = unixAddress(path);
    if (typeof addr === 'string') {
      reject(connectError(path, addr));
      return () => {};
    }
    const fd = libc.socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      reject(connectError(path, `socket() failed: ${errnoText(-fd)}`));
      return () => {};
    }
    /** Until handed to net.Socket the fd is ours to close; after that only Node closes it. */
    let owned = true;
    let retry: NodeJS.Timeout | undefined;
    let delay = 1;
    const release = () => {
      clearTimeout(retry);
      if (owned) {
        owned = false;
        libc.close(fd);
      }
    };
    const attempt = () => {
      retry = undefined;
      const r = libc.connect(fd, addr, addr.length);
      // A Unix stream connect completes at once, or says EAGAIN while the listener's backlog is full.
      if (r < 0 && (-r === EAGAIN || -r === EINPROGRESS || -r === EINTR)) {
        retry = setTimeout(attempt, delay);
        delay = Math.min(delay * 2, MAX_RETRY_MS);
        return;
      }
      if (r < 0) {
        release();
        reject(connectError(path, errnoText(-r)));
        return;
      }
      let sock: net.Socket;
      try {
        sock = new net.Socket({ fd, readable: true, writable: true, allowHalfOpen: false });
      } catch (err) {
        release();
        reject(connectError(path, `Node could not adopt the socket: ${(err as Error).message}`, err));
        return;
      }
      owned = false;
      resolve(adopt(libc, fd, sock));
    };
    attempt();
    return release;
  });
}

/** The transport over a connected fd that `sock` now owns. */
function adopt(libc: Libc, fd: number, sock: net.Socket): WireTransport {
  const { closeCbs, close, isClosed } = closeOnce();
  const dataCbs: Array<(b: Buffer) => void> = [];
  const queue: PendingWrite[] = [];
  let retry: NodeJS.Timeout | undefined;
  let delay = 1;

  const drop = (err: Error) => {
    clearTimeout(retry);
    retry = undefined;
    for (const w of queue.splice(0)) {
      closeAll(libc, w.fds);
      w.reject(err);
    }
  };
  const end = (err?: Error) => {
    drop(err ?? new Error('socket closed'));
    if (!sock.destroyed) sock.destroy();
    close(err);
  };
  const flush = () => {
    retry = undefined;
    while (queue.length) {
      // destroyed is set before Node closes the fd, so a live socket's fd is still ours to write.
      if (sock.destroyed || isClosed()) return end();
      const w = queue[0]!;
      const n = libc.send(fd, w.data, w.fds);
      if (n >= 0) {
        closeAll(libc, w.fds); // the kernel holds its own references now
        delay = 1;
        w.data = w.data.subarray(n);
        if (w.data.length === 0) {
          queue.shift();
          w.resolve();
        }
        continue;
      }
      if (-n === EINTR) continue;
      if (-n === EAGAIN) {
        // The socket buffer is full (the compositor is not reading): try again shortly.
        retry = setTimeout(flush, delay);
        delay = Math.min(delay * 2, MAX_RETRY_MS);
        return;
      }
      return end(new Error(`sendmsg failed: ${errnoText(-n)}`));
    }
  };

  sock.on('error', (err) => end(err));
  sock.on('close', () => end());
  sock.on('end', () => end());
  sock.on('data', (chunk: Buffer) => {
    for (const cb of dataCbs) cb(chunk);
  });

  return {
    fdPassing: true,
    kind: 'sendmsg',
    write: (data, fds) =>
      new Promise<void>((res, rej) => {
        if (isClosed() || sock.destroyed) return rej(new Error('socket closed'));
        if (data.length === 0) return rej(new Error('nothing to write: fds travel with at least one byte'));
        const dups = duplicate(libc, fds ?? []);
        if (dups instanceof Error) return rej(dups);
        queue.push({ data, fds: dups, resolve: res, reject: rej });
        if (queue.length === 1 && !retry) flush();
      }),
    onData: (cb) => dataCbs.push(cb),
    onClose: (cb) => closeCbs.push(cb),
    destroy: () => end(),
  };
}

function connectNet(path: string, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<WireTransport> {
  return withTimeout<WireTransport>(path, opts, (resolve, reject) => {
    const sock = net.createConnection({ path });
    const { closeCbs, close, isClosed } = closeOnce();
    let connected = false;
    sock.on('error', (err) => {
      if (!connected) reject(connectError(path, err.message, err));
      close(err);
    });
    sock.on('close', () => close());
    sock.on('connect', () => {
      connected = true;
      resolve({
        fdPassing: false,
        kind: 'net',
        write: (data, fds) =>
          new Promise<void>((res, rej) => {
            if (fds && fds.length) return rej(new Error('this transport cannot pass file descriptors'));
            if (isClosed()) return rej(new Error('socket closed'));
            sock.write(data, (err) => (err ? rej(err) : res()));
          }),
        onData: (cb) => sock.on('data', cb),
        onClose: (cb) => closeCbs.push(cb),
        destroy: () => {
          sock.destroy();
          close();
        },
      });
    });
    return () => sock.destroy();
  });
}
