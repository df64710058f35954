import type { DesktopEvent } from '../contracts/desktop.js';
import type { EventSubscription } from '../contracts/compositor.js';
import type { HypruseError } from '../errors.js';

/** Default bound on buffered events per subscription; the oldest are dropped beyond it. */
export const MAX_BUFFERED_EVENTS = 4096;

/**
 * The consumer side of an event subscription, shared by every compositor
 * plugin: a bounded FIFO with waiters. The plugin pushes normalized events
 * (and `fail`s it when its stream is gone for good); `next()` returns null on
 * timeout, abort or close, and throws once the stream died.
 */
export class EventQueue implements EventSubscription {
  private buffer: DesktopEvent[] = [];
  private waiters: Array<(ev: DesktopEvent | null | Error) => void> = [];
  private failure: HypruseError | null = null;
  private closed = false;
  /** Events dropped because the consumer fell more than `max` behind. */
  dropped = 0;

  constructor(
    private readonly onClose: () => void,
    private readonly max = MAX_BUFFERED_EVENTS,
  ) {}

  push(ev: DesktopEvent): void {
    if (this.closed || this.failure) return;
    const waiter = this.waiters.shift();
    if (waiter) {
      waiter(ev);
      return;
    }
    this.buffer.push(ev);
    if (this.buffer.length > this.max) {
      this.buffer.shift();
      this.dropped++;
    }
  }

  /** The stream died for good: pending and later `next` calls throw this (after the buffered events). */
  fail(err: HypruseError): void {
    if (this.closed || this.failure) return;
    this.failure = err;
    for (const w of this.waiters.splice(0)) w(err);
  }

  get failed(): HypruseError | null {
    return this.failure;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  next(timeoutMs: number, signal?: AbortSignal): Promise<DesktopEvent | null> {
    const buffered = this.buffer.shift();
    if (buffered) return Promise.resolve(buffered);
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed || signal?.aborted || timeoutMs <= 0) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      const done = (v: DesktopEvent | null | Error) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const i = this.waiters.indexOf(done);
        if (i >= 0) this.waiters.splice(i, 1);
        if (v instanceof Error) reject(v);
        else resolve(v);
      };
      const onAbort = () => done(null);
      const timer = setTimeout(() => done(null), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(done);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer = [];
    for (const w of this.waiters.splice(0)) w(null);
    this.onClose();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<DesktopEvent> {
    try {
      while (!this.closed) {
        const ev = await this.next(60_000);
        if (ev) yield ev;
      }
    } finally {
      this.close();
    }
  }
}
