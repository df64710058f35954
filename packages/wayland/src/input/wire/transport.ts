/**
 * Byte transport under the Wayland client: a Unix stream socket, through the
 * native `usocket` addon when it is available (it can pass file descriptors,
 * which the virtual keyboard's keymap needs) or Node's `net` otherwise.
 */
import { createRequire } from 'node:module';
import net from 'node:net';
import { HypruseError } from '@hypruse/core';

export interface WireTransport {
  /** True when file descriptors can be sent (usocket). */
  readonly fdPassing: boolean;
  readonly kind: 'usocket' | 'net';
  /** Queue bytes (and fds) in order; resolves once written to the socket, when the fds may be closed. */
  write(data: Buffer, fds?: number[]): Promise<void>;
  onData(cb: (chunk: Buffer) => void): void;
  onClose(cb: (err?: Error) => void): void;
  destroy(): void;
}

interface USocketLike {
  on(event: 'connected', cb: () => void): unknown;
  on(event: 'data', cb: (chunk: Buffer) => void): unknown;
  on(event: 'error', cb: (err: Error) => void): unknown;
  on(event: 'close', cb: (err?: Error) => void): unknown;
  on(event: 'end', cb: () => void): unknown;
  removeAllListeners(event?: string): unknown;
  write(chunk: { data?: Buffer; fds?: number[]; callback?: () => void }, cb?: (err?: Error | null) => void): boolean;
  connect(path: string): void;
  destroy(): void;
}

interface USocketModule {
  USocket: new () => USocketLike;
}

let usocketCache: { mod: USocketModule | null; error?: string } | undefined;

/** Load the optional native addon once; null (with the reason) when it is missing or unbuilt. */
export function loadUsocket(): { mod: USocketModule | null; error?: string } {
  if (usocketCache) return usocketCache;
  try {
    const mod = createRequire(import.meta.url)('usocket') as USocketModule;
    usocketCache = typeof mod?.USocket === 'function' ? { mod } : { mod: null, error: 'usocket has no USocket export' };
  } catch (err) {
    usocketCache = { mod: null, error: err instanceof Error ? err.message.split('\n')[0] : String(err) };
  }
  return usocketCache;
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
  const u = opts.wantFds ? loadUsocket().mod : null;
  return u ? connectUsocket(u, path, opts) : connectNet(path, opts);
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

function connectUsocket(mod: USocketModule, path: string, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<WireTransport> {
  return withTimeout<WireTransport>(path, opts, (resolve, reject) => {
    const sock = new mod.USocket();
    const dataCbs: Array<(b: Buffer) => void> = [];
    const { closeCbs, close, isClosed } = closeOnce();
    sock.on('error', (err) => {
      if (!connected) reject(connectError(path, err.message, err));
      close(err);
    });
    sock.on('close', (err) => close(err instanceof Error ? err : undefined));
    sock.on('end', () => close());
    let connected = false;
    sock.on('connected', () => {
      connected = true;
      // Only now: a 'data' listener switches the stream to flowing mode, which reads from the native handle.
      sock.on('data', (chunk) => { for (const cb of dataCbs) cb(chunk); });
      resolve({
        fdPassing: true,
        kind: 'usocket',
        write: (data, fds) =>
          new Promise<void>((res, rej) => {
            if (isClosed()) return rej(new Error('socket closed'));
            sock.write(fds && fds.length ? { data, fds, callback: () => res() } : { data, callback: () => res() }, (err) => {
              if (err) rej(err);
            });
          }),
        onData: (cb) => dataCbs.push(cb),
        onClose: (cb) => closeCbs.push(cb),
        destroy: () => {
          sock.destroy();
          close();
        },
      });
    });
    try {
      sock.connect(path);
    } catch (err) {
      reject(connectError(path, err instanceof Error ? err.message : String(err), err));
    }
    return () => sock.destroy();
  });
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
