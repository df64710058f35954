import type { DesktopEvent } from '../contracts/desktop.js';
import { HypruseError } from '../errors.js';
import { EventQueue } from '../events/event-queue.js';
import { scaledMs } from '../time.js';

/**
 * The one reconnect schedule of every compositor event stream (ms before each attempt); after the last,
 * subscribers fail. It adds up to under 2 s (scaled by the time policy), so a compositor that died is
 * reported within 3 s while one that drops its stream for a moment is reconnected.
 */
export const RECONNECT_DELAYS_MS: readonly number[] = [0, 50, 100, 250, 500, 1000];

/** A live event connection opened by a plugin. */
export interface StreamConnection {
  close(): void;
}

/** What a plugin gives the hub: how to open its event connection. */
export interface EventSource {
  /** As shown to the person: `Hyprland`, `sway`, `niri`. */
  peer: string;
  /**
   * Open the connection; resolves once the compositor confirmed the
   * subscription (and any initial state arrived). `emit` delivers normalized
   * events; `dropped` reports that the connection died.
   */
  open(emit: (events: readonly DesktopEvent[]) => void, dropped: (why: HypruseError) => void): Promise<StreamConnection>;
  /** Keep the connection with no subscriber (default: the last subscriber's close ends it). */
  keepAlive?: boolean;
  /** Called when the connection ends for good (nobody listens any more, or it could not be re-established): drop replicas. */
  reset?(): void;
  /** Bound on buffered events per subscription. */
  maxBuffered?: number;
}

/**
 * One shared event connection fanned out to subscriptions, with the one
 * reconnect policy: when the connection drops it is re-opened on the
 * RECONNECT_DELAYS_MS schedule and every subscription gets one typed
 * `resync` event before anything the new connection delivers; when every
 * attempt fails, the subscriptions fail with `error.events`.
 */
export class EventHub {
  private readonly queues = new Set<EventQueue>();
  private conn: StreamConnection | null = null;
  private opening: Promise<void> | null = null;
  private generation = 0;
  private disposed = false;
  /** Times the connection dropped and was re-established. */
  reconnects = 0;

  constructor(private readonly source: EventSource) {}

  get connected(): boolean {
    return this.conn !== null;
  }

  /** A new subscription; resolves once the connection is subscribed on the wire. */
  async subscribe(): Promise<EventQueue> {
    if (this.disposed) throw new HypruseError('error.events', `the ${this.source.peer} event stream was closed`);
    const queue: EventQueue = new EventQueue(() => this.release(queue), this.source.maxBuffered);
    this.queues.add(queue);
    try {
      await this.ensureOpen();
    } catch (e) {
      this.queues.delete(queue);
      throw e;
    }
    return queue;
  }

  /** Connect (once) without subscribing. */
  ensureOpen(): Promise<void> {
    if (this.disposed) return Promise.reject(new HypruseError('error.events', `the ${this.source.peer} event stream was closed`));
    if (this.conn) return Promise.resolve();
    this.opening ??= this.open(this.generation, false).finally(() => {
      this.opening = null;
    });
    return this.opening;
  }

  private async open(gen: number, resync: boolean): Promise<void> {
    // events arriving while a reconnect is being set up wait until the resync marker went out
    let held: DesktopEvent[] | null = resync ? [] : null;
    const emit = (evs: readonly DesktopEvent[]) => {
      if (gen !== this.generation) return;
      if (held) held.push(...evs);
      else for (const e of evs) for (const q of this.queues) q.push(e);
    };
    let conn: StreamConnection | null = null;
    let early: HypruseError | null = null;
    const dropped = (why: HypruseError) => {
      if (!conn) early ??= why;
      else if (gen === this.generation && this.conn === conn) this.onDropped(why);
    };
    try {
      conn = await this.source.open(emit, dropped);
    } catch (e) {
      throw e instanceof HypruseError ? e : new HypruseError('error.events', `the ${this.source.peer} event stream failed: ${String(e)}`);
    }
    if (gen !== this.generation || this.disposed) {
      conn.close();
      throw new HypruseError('error.events', `the ${this.source.peer} event stream was closed while connecting`);
    }
    this.conn = conn;
    if (resync) {
      this.reconnects++;
      const reason = `the ${this.source.peer} event connection dropped and was re-established; events in the gap may be missing: take a fresh snapshot`;
      for (const q of this.queues) q.push({ type: 'resync', reason });
    }
    const pending = held ?? [];
    held = null;
    emit(pending);
    if (early) this.onDropped(early);
  }

  private release(q: EventQueue): void {
    this.queues.delete(q);
    if (this.queues.size === 0 && !this.source.keepAlive) this.teardown();
  }

  private teardown(forGood = true): void {
    this.generation++;
    const c = this.conn;
    this.conn = null;
    this.opening = null;
    c?.close();
    if (forGood) this.source.reset?.();
  }

  private onDropped(why: HypruseError): void {
    const again = !this.disposed && (this.queues.size > 0 || this.source.keepAlive === true);
    this.teardown(!again);
    if (!again) return;
    const gen = this.generation;
    const p = this.reconnect(gen, why);
    this.opening = p.finally(() => {
      if (this.opening === p) this.opening = null;
    });
    this.opening.catch(() => undefined);
  }

  private async reconnect(gen: number, cause: HypruseError): Promise<void> {
    let last: unknown = cause;
    for (const delay of RECONNECT_DELAYS_MS) {
      if (delay > 0) await new Promise((r) => setTimeout(r, scaledMs(delay)));
      if (gen !== this.generation || this.disposed) return;
      try {
        await this.open(gen, true);
        return;
      } catch (e) {
        if (gen !== this.generation) return;
        last = e;
      }
    }
    const err = new HypruseError('error.events', `the ${this.source.peer} event connection dropped and could not be re-established: ${last instanceof Error ? last.message : String(last)}`, {
      hint: `${this.source.peer} may have exited; check that it is still running.`,
    });
    for (const q of [...this.queues]) q.fail(err);
    this.queues.clear();
    this.teardown();
    throw err;
  }

  /** Drop the connection as a compositor does to a slow client (tests and recovery). */
  dropForTest(): void {
    if (this.conn) this.onDropped(new HypruseError('error.events', 'dropped for a test'));
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const err = new HypruseError('error.events', `the ${this.source.peer} event stream was closed`);
    for (const q of [...this.queues]) q.fail(err);
    this.queues.clear();
    this.teardown();
  }
}
