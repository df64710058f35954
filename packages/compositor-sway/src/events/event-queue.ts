import type { DesktopEvent, EventSubscription } from '@hypruse/core';
import { HypruseError } from '@hypruse/core';

/** Bound on buffered events per subscription; the oldest are dropped beyond it. */
export const MAX_BUFFERED_EVENTS = 4096;

/**
 * The consumer side of an event subscription: a bounded FIFO with waiters.
 * `next()` returns null on timeout or abort and throws once the stream died.
 */
export class EventQueue implements EventSubscription {
  private buffer: DesktopEvent[] = [];
  private waiters: Array<(ev: DesktopEvent | null | Error) => void> = [];
  private failure: HypruseError | null = null;
  private closed = false;
  private readonly onClose: () => void;
  dropped = 0;

  constructor(onClose: () => void) {
    this.onClose = onClose;
  }

  push(ev: DesktopEvent): void {
    if (this.closed) return;
    const waiter = this.waiters.shift();
    if (waiter) {
      waiter(ev);
      return;
    }
    this.buffer.push(ev);
    if (this.buffer.length > MAX_BUFFERED_EVENTS) {
      this.buffer.shift();
      this.dropped++;
    }
  }

  fail(err: HypruseError): void {
    if (this.closed || this.failure) return;
    this.failure = err;
    for (const w of this.waiters.splice(0)) w(err);
  }

  next(timeoutMs: number, signal?: AbortSignal): Promise<DesktopEvent | null> {
    const buffered = this.buffer.shift();
    if (buffered) return Promise.resolve(buffered);
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed || signal?.aborted) return Promise.resolve(null);
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
      const timer = setTimeout(() => done(null), Math.max(0, timeoutMs));
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
    while (!this.closed) {
      const ev = await this.next(60_000);
      if (ev) yield ev;
    }
  }
}
