import type net from 'node:net';
import { CancelledError, HypruseError, REQUEST_TIMEOUT_MS, connectUnix, scaledMs } from '@hypruse/core';
import { encodeFrame, FrameDecoder, FrameError } from './codec.js';
import { isEvent, SwayMessage } from './message-types.js';

export interface SwayIpcClientOptions {
  socketPath: string;
  /** Default per-request timeout. */
  timeoutMs?: number;
  connectTimeoutMs?: number;
}

export interface RequestOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface Pending {
  type: number;
  resolve: (payload: Buffer) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout | null;
  /** The caller gave up (abort); the reply is still consumed to keep the order. */
  abandoned: boolean;
}

const TYPE_NAMES = new Map<number, string>(Object.entries(SwayMessage).map(([k, v]) => [v, k]));

export function messageName(type: number): string {
  return TYPE_NAMES.get(type) ?? `type ${type}`;
}

export const SOCKET_HINT = 'Is sway running? SWAYSOCK must name its socket ($XDG_RUNTIME_DIR/sway-ipc.<uid>.<pid>.sock).';

/**
 * Request/reply client over one persistent i3-ipc connection. Requests are
 * written in call order and replies matched first-in first-out (sway answers
 * one connection's messages in order). A dropped socket fails the calls in
 * flight with `error.ipc_closed`; the next call reconnects.
 */
export class SwayIpcClient {
  readonly socketPath: string;
  private readonly timeoutMs: number;
  private readonly connectTimeoutMs: number | undefined;
  private socket: net.Socket | null = null;
  private connecting: Promise<net.Socket> | null = null;
  private decoder = new FrameDecoder();
  private pending: Pending[] = [];
  private closed = false;

  constructor(opts: SwayIpcClientOptions) {
    this.socketPath = opts.socketPath;
    this.timeoutMs = opts.timeoutMs ?? REQUEST_TIMEOUT_MS;
    this.connectTimeoutMs = opts.connectTimeoutMs;
  }

  /** Send one message and resolve with the raw reply payload. */
  async request(type: number, payload: string = '', opts: RequestOptions = {}): Promise<Buffer> {
    if (this.closed) throw new HypruseError('error.ipc_closed', 'the sway IPC client was disposed', { hint: 'Create a new compositor session.' });
    if (opts.signal?.aborted) throw new CancelledError();
    const sock = await this.ensureConnected(opts.signal);
    const timeoutMs = opts.timeoutMs ?? scaledMs(this.timeoutMs);
    return new Promise<Buffer>((resolve, reject) => {
      const entry: Pending = { type, resolve, reject, timer: null, abandoned: false };
      const onAbort = () => {
        if (entry.abandoned) return;
        entry.abandoned = true;
        if (entry.timer) clearTimeout(entry.timer);
        reject(new CancelledError());
      };
      entry.resolve = (buf) => {
        opts.signal?.removeEventListener('abort', onAbort);
        resolve(buf);
      };
      entry.reject = (err) => {
        opts.signal?.removeEventListener('abort', onAbort);
        reject(err);
      };
      entry.timer = setTimeout(() => {
        entry.timer = null;
        // The reply order is no longer trustworthy once a reply is overdue: drop the connection.
        this.teardown(sock, new HypruseError('error.compositor', `sway did not answer ${messageName(type)} within ${timeoutMs} ms`, {
          hint: 'sway may be hung or overloaded; the connection was reset and the next call reconnects.',
        }), entry);
      }, timeoutMs);
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.push(entry);
      sock.write(encodeFrame(type, payload));
    });
  }

  /** Send one message and parse the reply as JSON. */
  async requestJson<T>(type: number, payload: string = '', opts: RequestOptions = {}): Promise<T> {
    const buf = await this.request(type, payload, opts);
    try {
      return JSON.parse(buf.toString('utf8')) as T;
    } catch (err) {
      throw new HypruseError('error.compositor', `sway sent invalid JSON for ${messageName(type)}`, { cause: err });
    }
  }

  /** Whether a connection is currently open (for diagnostics and tests). */
  get connected(): boolean {
    return this.socket !== null;
  }

  close(): void {
    this.closed = true;
    if (this.socket) this.teardown(this.socket, new HypruseError('error.ipc_closed', 'the sway IPC client was disposed'));
  }

  private ensureConnected(signal?: AbortSignal): Promise<net.Socket> {
    if (this.socket) return Promise.resolve(this.socket);
    if (!this.connecting) {
      this.connecting = connectUnix(this.socketPath, { name: 'sway', hint: SOCKET_HINT }, { timeoutMs: this.connectTimeoutMs && scaledMs(this.connectTimeoutMs) }).then(
        (sock) => {
          this.connecting = null;
          if (this.closed) {
            sock.destroy();
            throw new HypruseError('error.ipc_closed', 'the sway IPC client was disposed');
          }
          this.attach(sock);
          return sock;
        },
        (err) => {
          this.connecting = null;
          throw err;
        },
      );
    }
    if (!signal) return this.connecting;
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(new CancelledError());
      signal.addEventListener('abort', onAbort, { once: true });
      this.connecting!.then(
        (s) => {
          signal.removeEventListener('abort', onAbort);
          resolve(s);
        },
        (e) => {
          signal.removeEventListener('abort', onAbort);
          reject(e);
        },
      );
    });
  }

  private attach(sock: net.Socket): void {
    this.socket = sock;
    this.decoder = new FrameDecoder();
    sock.on('data', (chunk: Buffer) => {
      if (this.socket !== sock) return;
      let frames;
      try {
        frames = this.decoder.push(chunk);
      } catch (err) {
        this.teardown(sock, new HypruseError('error.compositor', `corrupt reply from sway: ${(err as FrameError).message}`, { cause: err }));
        return;
      }
      for (const frame of frames) {
        if (isEvent(frame.type)) continue; // not subscribed on this connection; ignore defensively
        const entry = this.pending.shift();
        if (!entry) {
          this.teardown(sock, new HypruseError('error.compositor', `sway sent an unrequested ${messageName(frame.type)} reply`));
          return;
        }
        if (entry.timer) clearTimeout(entry.timer);
        if (frame.type !== entry.type) {
          const err = new HypruseError('error.compositor', `sway answered ${messageName(entry.type)} with a ${messageName(frame.type)} reply`);
          if (!entry.abandoned) entry.reject(err);
          this.teardown(sock, err);
          return;
        }
        if (!entry.abandoned) entry.resolve(frame.payload);
      }
    });
    sock.on('error', () => {
      /* 'close' follows and fails the pending calls */
    });
    sock.on('close', () => {
      if (this.socket !== sock) return;
      const waiting = this.pending.find((p) => !p.abandoned);
      this.teardown(sock, new HypruseError('error.ipc_closed', `the sway IPC socket closed${waiting ? ` while waiting for ${messageName(waiting.type)}` : ''}`, {
        hint: 'sway exited or dropped the connection; the next call reconnects.',
      }));
    });
  }

  /** Drop the connection and fail everything still waiting on it (except `already`, rejected by the caller). */
  private teardown(sock: net.Socket, err: HypruseError, already?: Pending): void {
    if (this.socket === sock) this.socket = null;
    const failed = this.pending;
    this.pending = [];
    sock.destroy();
    for (const entry of failed) {
      if (entry.timer) clearTimeout(entry.timer);
      if (!entry.abandoned) entry.reject(err);
    }
    if (already && !failed.includes(already) && !already.abandoned) already.reject(err);
  }
}
