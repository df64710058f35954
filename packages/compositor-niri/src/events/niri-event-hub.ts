import { HypruseError, scaledMs, type DesktopEvent, type Logger } from '@hypruse/core';
import type { NiriEventStream, NiriIpcClient } from '../ipc/niri-ipc-client.js';
import type { NiriEvent } from '../ipc/types.js';
import { EventQueue } from '@hypruse/core';
import { NiriReplica } from './niri-replica.js';

export interface NiriEventHubOptions {
  logger?: Logger;
  /** Delays between reconnect attempts after the stream drops; when exhausted, subscribers get `error.events`. */
  reconnectDelaysMs?: number[];
  /** Deadline for connecting and receiving the initial state burst. */
  syncTimeoutMs?: number;
}

/**
 * One shared niri event-stream connection, kept while anything subscribes:
 * feeds the replica, fans normalized events out to subscribers, and when the
 * stream drops (socket closed, unparsable line) reconnects and re-syncs from
 * the new initial burst without the subscribers noticing, except for the
 * events the re-sync diff produces.
 */
export class NiriEventHub {
  readonly replica = new NiriReplica();
  private readonly queues = new Set<EventQueue>();
  private stream: NiriEventStream | null = null;
  /** Settles when the current (re)connection has its initial burst. */
  private ready: Promise<void> | null = null;
  private syncWaiter: { resolve: () => void; reject: (e: HypruseError) => void } | null = null;
  private generation = 0;
  private disposed = false;
  private readonly delays: number[];
  private readonly syncTimeoutMs: number;

  constructor(
    private readonly ipc: NiriIpcClient,
    private readonly opts: NiriEventHubOptions = {},
  ) {
    this.delays = opts.reconnectDelaysMs ?? [0, 100, 250, 500, 1000, 2000];
    this.syncTimeoutMs = scaledMs(opts.syncTimeoutMs ?? 3000);
  }

  /** A new subscription; resolves once the stream is live and the replica is in sync. */
  async subscribe(): Promise<EventQueue> {
    if (this.disposed) throw new HypruseError('error.events', 'the niri compositor connection was disposed');
    const queue: EventQueue = new EventQueue(() => this.release(queue));
    this.queues.add(queue);
    try {
      if (!this.ready) this.ready = this.connect(this.generation);
      await this.ready;
    } catch (e) {
      this.queues.delete(queue);
      throw e;
    }
    return queue;
  }

  get live(): boolean {
    return this.stream !== null && this.replica.synced;
  }

  /** Close the connection for good; current subscribers get `error.events`. */
  dispose(): void {
    this.disposed = true;
    const err = new HypruseError('error.events', 'the niri compositor connection was disposed');
    for (const q of this.queues) q.fail(err);
    this.queues.clear();
    this.teardown();
  }

  private release(q: EventQueue): void {
    this.queues.delete(q);
    if (this.queues.size === 0) this.teardown();
  }

  private teardown(): void {
    this.generation++;
    this.replica.reset();
    const s = this.stream;
    this.stream = null;
    this.ready = null;
    this.syncWaiter?.reject(new HypruseError('error.events', 'the niri event stream was closed'));
    this.syncWaiter = null;
    s?.close();
  }

  /** Connect, fetch outputs, and wait for the burst. */
  private async connect(gen: number): Promise<void> {
    let waiter!: { resolve: () => void; reject: (e: HypruseError) => void };
    const synced = new Promise<void>((resolve, reject) => {
      waiter = { resolve, reject };
    });
    this.syncWaiter = waiter;
    synced.catch(() => undefined);
    this.replica.beginSync();
    const timer = setTimeout(
      () => waiter.reject(new HypruseError('error.events', `niri sent no initial state on its event stream within ${this.syncTimeoutMs} ms`)),
      this.syncTimeoutMs,
    );
    try {
      const [outputsR, streamR] = await Promise.allSettled([
        this.ipc.outputs({ timeoutMs: this.syncTimeoutMs }),
        this.ipc.openEventStream(
          {
            onEvent: (ev) => this.onEvent(gen, ev),
            onClose: (err) => this.onDrop(gen, err),
          },
          { timeoutMs: this.syncTimeoutMs },
        ),
      ]);
      if (outputsR.status === 'rejected' || streamR.status === 'rejected' || gen !== this.generation) {
        if (streamR.status === 'fulfilled') streamR.value.close();
        if (streamR.status === 'rejected') throw streamR.reason;
        if (outputsR.status === 'rejected') throw outputsR.reason;
        throw new HypruseError('error.events', 'the niri event stream was closed while connecting');
      }
      const outputs = outputsR.value;
      const stream = streamR.value;
      this.stream = stream;
      this.replica.setOutputs(outputs);
      await synced;
    } catch (e) {
      if (gen === this.generation) {
        const s = this.stream;
        this.stream = null;
        s?.close();
      }
      throw e instanceof HypruseError ? e : new HypruseError('error.events', String(e));
    } finally {
      clearTimeout(timer);
      if (this.syncWaiter === waiter) this.syncWaiter = null;
    }
  }

  private onEvent(gen: number, ev: NiriEvent): void {
    if (gen !== this.generation) return;
    let out: DesktopEvent[];
    try {
      out = this.replica.apply(ev);
    } catch (e) {
      this.opts.logger?.warn(`niri event ${Object.keys(ev)[0]} has an unexpected shape (${(e as Error).message}); re-syncing`);
      this.onDrop(gen, new HypruseError('error.events', `niri sent a malformed ${Object.keys(ev)[0]} event`));
      return;
    }
    if (this.replica.synced) this.syncWaiter?.resolve();
    for (const e of out) for (const q of this.queues) q.push(e);
  }

  /** The stream died under us: reconnect and re-sync, or fail the subscribers. */
  private onDrop(gen: number, err: HypruseError | null): void {
    // null: we closed it ourselves
    if (err === null || gen !== this.generation || this.disposed) return;
    const s = this.stream;
    this.stream = null;
    s?.close();
    this.syncWaiter?.reject(err);
    if (this.queues.size === 0) {
      this.teardown();
      return;
    }
    const next = ++this.generation;
    this.opts.logger?.info(`niri event stream dropped (${err.message}); reconnecting`);
    this.ready = this.reconnect(next, err);
    this.ready.catch(() => undefined);
  }

  private async reconnect(gen: number, cause: HypruseError | null): Promise<void> {
    let last: unknown = cause;
    for (const delay of this.delays) {
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      if (gen !== this.generation || this.disposed) return;
      try {
        await this.connect(gen);
        return;
      } catch (e) {
        if (gen !== this.generation) return;
        last = e;
      }
    }
    const error = new HypruseError(
      'error.events',
      `the niri event stream dropped and could not be re-established: ${last instanceof Error ? last.message : String(last)}`,
      { hint: 'niri may have exited; check that it is still running.' },
    );
    for (const q of this.queues) q.fail(error);
    this.queues.clear();
    this.teardown();
    throw error;
  }
}
