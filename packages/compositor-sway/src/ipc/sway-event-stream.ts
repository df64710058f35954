import type net from 'node:net';
import { HypruseError, scaledMs } from '@hypruse/core';
import { encodeFrame, FrameDecoder } from './codec.js';
import { eventName, isEvent, SwayMessage, type SwayEventName } from './message-types.js';
import { connectSocket, SOCKET_HINT } from './sway-ipc-client.js';

export interface SwayEventStreamOptions {
  socketPath: string;
  events: readonly SwayEventName[];
  /** Subscribed one by one after `events`; a sway that does not know one (sway 1.7 has no `output` event) refuses only that one. */
  optionalEvents?: readonly SwayEventName[];
  onEvent(name: SwayEventName, payload: unknown): void;
  /** Called after the connection died and was re-established (events in the gap may be lost). */
  onReconnect?(): void;
  /** Called once when the stream cannot be re-established. */
  onDead(err: HypruseError): void;
  connectTimeoutMs?: number;
  subscribeTimeoutMs?: number;
  /** Delays between reconnection attempts; the stream is dead after the last one fails. */
  reconnectDelaysMs?: readonly number[];
}

const DEFAULT_DELAYS = [20, 50, 100, 200, 400, 800, 1600];

/**
 * A dedicated i3-ipc connection carrying SUBSCRIBE events (subscriptions are
 * per connection in sway). If the connection dies it is re-established with
 * the same subscription; only when every retry fails is the stream dead.
 */
export class SwayEventStream {
  private socket: net.Socket | null = null;
  private closed = false;
  private dead = false;
  private readonly opts: SwayEventStreamOptions;
  /** Optional events sway accepted on the current connection. */
  readonly optionalAccepted = new Set<SwayEventName>();

  constructor(opts: SwayEventStreamOptions) {
    this.opts = opts;
  }

  /** Connect and subscribe; resolves once sway confirmed the subscription. */
  async start(signal?: AbortSignal): Promise<void> {
    this.socket = await this.open(signal);
  }

  get alive(): boolean {
    return !this.closed && !this.dead;
  }

  close(): void {
    this.closed = true;
    this.socket?.destroy();
    this.socket = null;
  }

  private async open(signal?: AbortSignal): Promise<net.Socket> {
    const sock = await connectSocket(this.opts.socketPath, scaledMs(this.opts.connectTimeoutMs ?? 1000), signal);
    const decoder = new FrameDecoder();
    const optionalQueue = [...(this.opts.optionalEvents ?? [])];
    this.optionalAccepted.clear();
    const subscribed = new Promise<void>((resolve, reject) => {
      let confirmed = false;
      const subscribeMs = scaledMs(this.opts.subscribeTimeoutMs ?? 2000);
      const timer = setTimeout(() => {
        sock.destroy();
        reject(new HypruseError('error.events', `sway did not confirm the event subscription within ${subscribeMs} ms`, { hint: SOCKET_HINT }));
      }, subscribeMs);
      sock.on('data', (chunk: Buffer) => {
        let frames;
        try {
          frames = decoder.push(chunk);
        } catch (err) {
          sock.destroy(err as Error);
          return;
        }
        for (const frame of frames) {
          if (frame.type === SwayMessage.SUBSCRIBE && confirmed) {
            // reply to an optional subscription: remember which ones sway accepted
            const name = optionalQueue.shift();
            if (name && /"success"\s*:\s*true/.test(frame.payload.toString('utf8'))) this.optionalAccepted.add(name);
            continue;
          }
          if (!confirmed) {
            if (frame.type !== SwayMessage.SUBSCRIBE) continue;
            confirmed = true;
            clearTimeout(timer);
            let ok = false;
            try {
              ok = (JSON.parse(frame.payload.toString('utf8')) as { success?: boolean }).success === true;
            } catch {
              ok = false;
            }
            if (!ok) {
              sock.destroy();
              reject(new HypruseError('error.events', `sway refused the event subscription ${JSON.stringify(this.opts.events)}`));
              return;
            }
            resolve();
            continue;
          }
          if (!isEvent(frame.type)) continue;
          const name = eventName(frame.type);
          if (!name) continue;
          let payload: unknown;
          try {
            payload = JSON.parse(frame.payload.toString('utf8'));
          } catch {
            continue;
          }
          if (!this.closed) this.opts.onEvent(name, payload);
        }
      });
      sock.on('error', () => {
        /* handled by 'close' */
      });
      sock.on('close', () => {
        clearTimeout(timer);
        if (!confirmed) {
          reject(new HypruseError('error.events', 'the sway IPC socket closed before the event subscription was confirmed', { hint: SOCKET_HINT }));
          return;
        }
        if (this.socket === sock && !this.closed) {
          this.socket = null;
          void this.reconnect();
        }
      });
    });
    sock.write(encodeFrame(SwayMessage.SUBSCRIBE, JSON.stringify(this.opts.events)));
    for (const name of optionalQueue) sock.write(encodeFrame(SwayMessage.SUBSCRIBE, JSON.stringify([name])));
    await subscribed;
    return sock;
  }

  private async reconnect(): Promise<void> {
    let last: unknown = null;
    for (const delay of this.opts.reconnectDelaysMs ?? DEFAULT_DELAYS) {
      await new Promise((r) => setTimeout(r, delay));
      if (this.closed) return;
      try {
        const sock = await this.open();
        if (this.closed) {
          sock.destroy();
          return;
        }
        this.socket = sock;
        this.opts.onReconnect?.();
        return;
      } catch (err) {
        last = err;
      }
    }
    this.dead = true;
    const reason = last instanceof Error ? last.message : 'unknown reason';
    this.opts.onDead(new HypruseError('error.events', `the sway event connection died and could not be re-established: ${reason}`, { hint: SOCKET_HINT, cause: last }));
  }
}
