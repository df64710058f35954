import { createConnection, type Socket } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { CancelledError, HypruseError } from '../errors.js';
import { scaledMs, slowMachineHint } from '../time.js';

/**
 * The one timeout and size policy of compositor sockets: every request waits
 * at most REQUEST_TIMEOUT_MS (scaled by the time policy), a connection at most
 * CONNECT_TIMEOUT_MS, and no reply may exceed MAX_REPLY_BYTES.
 */
export const REQUEST_TIMEOUT_MS = 5000;
export const CONNECT_TIMEOUT_MS = 2000;
export const MAX_REPLY_BYTES = 64 * 1024 * 1024;

/** Who is at the other end of a socket, for error messages. */
export interface Peer {
  /** As shown to the person: `Hyprland`, `sway`, `niri`. */
  name: string;
  /** How to find it when the socket is missing. */
  hint: string;
}

export interface UnixRequestOptions {
  /** Label of the request in error messages. */
  what: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Length of the whole reply once `buf` holds it, else -1; default: the reply ends when the server closes. */
  complete?: (buf: Buffer) => number;
  /** Reply size cap (default MAX_REPLY_BYTES). */
  maxBytes?: number;
}

function short(s: string): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > 160 ? `${one.slice(0, 157)}...` : one;
}

/**
 * One request on its own connection: connect, write, read the reply (to the
 * end of the stream or until `complete` says it is whole), close. Never hangs.
 * A connection that ends before any byte of reply is `error.ipc_closed` with
 * `data.replied: false` and `data.unread: true` when the kernel says our bytes
 * were never read (ECONNRESET, EPIPE): the caller may then resend safely.
 */
export function unixRequest(path: string, payload: string | Buffer, peer: Peer, opts: UnixRequestOptions): Promise<Buffer> {
  const timeoutMs = opts.timeoutMs ?? scaledMs(REQUEST_TIMEOUT_MS);
  const { signal } = opts;
  const what = short(opts.what);
  const maxBytes = opts.maxBytes ?? MAX_REPLY_BYTES;
  if (signal?.aborted) return Promise.reject(new CancelledError(`${peer.name} ${what} cancelled`));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const sock = createConnection({ path, allowHalfOpen: true });
    const finish = (err: Error | null, value?: Buffer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      sock.destroy();
      if (err) reject(err);
      else resolve(value ?? Buffer.alloc(0));
    };
    const onAbort = () => finish(new CancelledError(`${peer.name} ${what} cancelled`));
    const timer = setTimeout(
      () =>
        finish(
          new HypruseError('error.compositor', `${peer.name} did not answer "${what}" within ${timeoutMs} ms`, {
            hint: `The compositor may be busy or hung (${slowMachineHint()}); try again, or check that it is responsive.`,
            data: { timeoutMs, request: what },
          }),
        ),
      timeoutMs,
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    sock.on('connect', () => sock.write(payload));
    sock.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        finish(new HypruseError('error.compositor', `${peer.name}'s reply to "${what}" exceeded ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
      if (opts.complete) {
        const all = Buffer.concat(chunks);
        const n = opts.complete(all);
        if (n >= 0) finish(null, all.subarray(0, n));
      }
    });
    const onEnd = () => {
      if (size === 0 || opts.complete) {
        finish(
          new HypruseError('error.ipc_closed', `${peer.name} closed the connection without answering "${what}"`, {
            hint: 'The compositor dropped the connection; retry, and check that it is not restarting.',
            data: { replied: size > 0, unread: false, request: what },
          }),
        );
      } else finish(null, Buffer.concat(chunks));
    };
    sock.on('end', onEnd);
    sock.on('close', onEnd);
    sock.on('error', (err: NodeJS.ErrnoException) => {
      const code = err.code ?? err.message;
      if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED' || err.code === 'ENOTSOCK') {
        finish(new HypruseError('error.compositor', `cannot connect to ${peer.name} at ${path} (${code}) for "${what}"`, { hint: peer.hint, cause: err }));
      } else if (size > 0 || err.code === 'ECONNRESET' || err.code === 'EPIPE') {
        const unread = size === 0 && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
        finish(new HypruseError('error.ipc_closed', `${peer.name} closed the connection during "${what}" (${code})`, { hint: peer.hint, cause: err, data: { replied: size > 0, unread, request: what } }));
      } else {
        finish(new HypruseError('error.compositor', `${peer.name} request "${what}" failed: ${err.message}`, { hint: peer.hint, cause: err }));
      }
    });
  });
}

/** Open a Unix socket with a deadline (CONNECT_TIMEOUT_MS scaled); failures are `code` (default `error.compositor`). */
export function connectUnix(path: string, peer: Peer, opts: { timeoutMs?: number; signal?: AbortSignal; code?: 'error.compositor' | 'error.events' } = {}): Promise<Socket> {
  const timeoutMs = opts.timeoutMs ?? scaledMs(CONNECT_TIMEOUT_MS);
  const code = opts.code ?? 'error.compositor';
  const { signal } = opts;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new CancelledError());
    const sock = createConnection({ path });
    const cleanup = () => {
      clearTimeout(timer);
      sock.off('connect', onConnect);
      sock.off('error', onError);
      signal?.removeEventListener('abort', onAbort);
    };
    const fail = (err: Error) => {
      cleanup();
      sock.destroy();
      reject(err);
    };
    const onConnect = () => {
      cleanup();
      resolve(sock);
    };
    const onError = (err: NodeJS.ErrnoException) => fail(new HypruseError(code, `cannot connect to ${peer.name} at ${path} (${err.code ?? err.message})`, { hint: peer.hint, cause: err }));
    const onAbort = () => fail(new CancelledError());
    const timer = setTimeout(
      () => fail(new HypruseError(code, `connecting to ${peer.name} at ${path} took longer than ${timeoutMs} ms`, { hint: `${peer.hint} (${slowMachineHint()})`, data: { timeoutMs } })),
      timeoutMs,
    );
    sock.once('connect', onConnect);
    sock.once('error', onError);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Splits a byte stream into `\n`-terminated lines (UTF-8 safe across chunks); a line longer than `maxLine` is dropped. */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';

  constructor(private readonly maxLine = MAX_REPLY_BYTES) {}

  /** Feed a chunk; returns the complete lines it finished (without the newline). */
  push(chunk: Buffer | string): string[] {
    this.pending += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const lines = this.pending.split('\n');
    this.pending = lines.pop() ?? '';
    if (this.pending.length > this.maxLine) this.pending = '';
    return lines;
  }

  /** Text received after the last newline. */
  get rest(): string {
    return this.pending;
  }
}
