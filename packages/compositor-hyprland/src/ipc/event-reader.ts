import { createConnection, type Socket } from 'node:net';
import { EventQueue, HypruseError, scaledMs, slowMachineHint, type DesktopEvent, type EventSubscription } from '@hypruse/core';
import { parseEventLine, toDesktopEvent, type RawHyprlandEvent } from '../events/parse-event.js';

export interface EventReaderOptions {
  /** Wait for a (re)connection at most this long. */
  connectTimeoutMs?: number;
  /** Give up reconnecting after this many consecutive failures. */
  maxReconnectAttempts?: number;
  /**
   * `fullscreen>>0|1` names no window, and Hyprland sends `fullscreen>>1` for a
   * maximize too: this reads the state and returns what really changed (the
   * events that replace the raw one). Events after it wait, so the order holds.
   */
  resolveFullscreen?: (raw: RawHyprlandEvent) => Promise<DesktopEvent[]>;
}

type Listener = {
  onEvent(raw: RawHyprlandEvent, evs: DesktopEvent[]): void;
  onResync(reason: string): void;
  onFail(err: HypruseError): void;
};

/** A line longer than this is not Hyprland (DATA is truncated to 1024 chars). */
const MAX_LINE = 64 * 1024;

/**
 * One persistent reader of `.socket2.sock`, drained continuously (Hyprland
 * disconnects a client that falls 64 events behind). Fans events out to
 * subscriptions; when the socket drops it reconnects and tells every
 * subscription to re-snapshot (the typed `resync` event).
 */
export class HyprlandEventReader {
  private sock: Socket | null = null;
  private buffer = '';
  private readonly listeners = new Set<Listener>();
  private connecting: Promise<void> | null = null;
  private disposed = false;
  private failures = 0;
  /** Events wait behind a `fullscreen` event while its state is read. */
  private pending: Promise<void> | null = null;
  /** Number of times the connection dropped and was re-established. */
  reconnects = 0;

  constructor(
    readonly socketPath: string,
    private readonly opts: EventReaderOptions = {},
  ) {}

  get connected(): boolean {
    return this.sock !== null;
  }

  /** Connect (once); resolves when the socket is connected. */
  ensureConnected(): Promise<void> {
    if (this.disposed) return Promise.reject(new HypruseError('error.events', 'the Hyprland event reader was disposed'));
    if (this.sock) return Promise.resolve();
    if (!this.connecting) {
      this.connecting = this.connect().finally(() => {
        this.connecting = null;
      });
    }
    return this.connecting;
  }

  private connect(): Promise<void> {
    const timeoutMs = scaledMs(this.opts.connectTimeoutMs ?? 2000);
    return new Promise<void>((resolve, reject) => {
      const sock = createConnection({ path: this.socketPath });
      let settled = false;
      const timer = setTimeout(() => {
        if (settled) return;
        settled = true;
        sock.destroy();
        reject(new HypruseError('error.events', `Hyprland's event socket ${this.socketPath} did not accept a connection within ${timeoutMs} ms`, { hint: slowMachineHint(), data: { timeoutMs } }));
      }, timeoutMs);
      sock.once('connect', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.sock = sock;
        this.buffer = '';
        this.failures = 0;
        sock.setEncoding('utf8');
        sock.unref();
        sock.on('data', (chunk: string) => this.onData(chunk));
        sock.on('close', () => this.onDropped(sock));
        sock.on('error', () => {
          /* 'close' follows */
        });
        resolve();
      });
      sock.once('error', (err: NodeJS.ErrnoException) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(
          new HypruseError('error.events', `cannot connect to Hyprland's event socket ${this.socketPath} (${err.code ?? err.message})`, {
            hint: 'Is Hyprland running? Without the event stream, close/launch cannot be confirmed.',
            cause: err,
          }),
        );
      });
    });
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      const raw = parseEventLine(line);
      if (!raw) continue;
      const resolve = raw.name === 'fullscreen' ? this.opts.resolveFullscreen : undefined;
      if (!resolve && !this.pending) {
        this.fanOut(raw, [toDesktopEvent(raw)]);
        continue;
      }
      const prior = this.pending ?? Promise.resolve();
      const p: Promise<void> = prior
        .then(async () => {
          // an unreadable state gives the raw event as `other`: it is not claimed to be fullscreen
          const evs = resolve ? await resolve(raw).catch((): DesktopEvent[] => [{ type: 'other', name: raw.name, data: raw.data }]) : [toDesktopEvent(raw)];
          this.fanOut(raw, evs);
        })
        .finally(() => {
          if (this.pending === p) this.pending = null;
        });
      this.pending = p;
    }
    if (this.buffer.length > MAX_LINE) this.buffer = '';
  }

  private fanOut(raw: RawHyprlandEvent, evs: DesktopEvent[]): void {
    for (const l of this.listeners) l.onEvent(raw, evs);
  }

  private onDropped(sock: Socket): void {
    if (this.sock !== sock) return;
    this.sock = null;
    if (this.disposed) return;
    void this.reconnect();
  }

  private async reconnect(): Promise<void> {
    const max = this.opts.maxReconnectAttempts ?? 5;
    let lastErr: HypruseError | null = null;
    for (let attempt = 0; attempt < max && !this.disposed; attempt++) {
      try {
        await this.ensureConnected();
        this.reconnects++;
        for (const l of this.listeners) l.onResync('the event socket dropped and was reconnected; events may have been missed, take a fresh snapshot');
        return;
      } catch (err) {
        lastErr = err instanceof HypruseError ? err : new HypruseError('error.events', String(err));
        this.failures++;
        await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 1000)));
      }
    }
    if (this.disposed) return;
    const err = new HypruseError('error.events', `Hyprland's event socket dropped and could not be reconnected: ${lastErr?.message ?? 'unknown'}`, {
      hint: 'The compositor may have exited.',
    });
    for (const l of this.listeners) l.onFail(err);
  }

  /** A subscription; the wire is subscribed when the promise resolves. */
  async subscribe(): Promise<EventSubscription & { readonly raw: RawHyprlandEvent[] }> {
    await this.ensureConnected();
    return new ReaderSubscription(this.listeners);
  }

  /** Close the socket, as Hyprland does to a slow client (tests and recovery). */
  dropForTest(): void {
    this.sock?.destroy();
  }

  dispose(): void {
    this.disposed = true;
    const s = this.sock;
    this.sock = null;
    s?.destroy();
    const err = new HypruseError('error.events', 'the Hyprland event reader was closed');
    for (const l of [...this.listeners]) l.onFail(err);
    this.listeners.clear();
  }
}

/** One subscriber: the shared queue, fed by the reader, plus the raw socket2 lines for diagnostics. */
class ReaderSubscription extends EventQueue {
  /** Raw socket2 events in arrival order (for diagnostics and tests); bounded. */
  readonly raw: RawHyprlandEvent[] = [];
  private readonly listener: Listener;

  constructor(private readonly listeners: Set<Listener>) {
    super(() => listeners.delete(this.listener), 10000);
    this.listener = {
      onEvent: (raw, evs) => {
        this.raw.push(raw);
        if (this.raw.length > 1024) this.raw.shift();
        for (const ev of evs) this.push(ev);
      },
      onResync: (reason) => this.push({ type: 'resync', reason }),
      onFail: (err) => {
        this.listeners.delete(this.listener);
        this.fail(err);
      },
    };
    listeners.add(this.listener);
  }
}
