import type { DesktopEvent, EventSubscription } from '@hypruse/core';
import { HypruseError } from '@hypruse/core';

type Waiter = (r: { event: DesktopEvent } | { error: HypruseError } | null) => void;

/** One subscriber's buffered view of the normalized event stream. */
export class EventQueue implements EventSubscription {
  private readonly buffer: DesktopEvent[] = [];
  private readonly waiters = new Set<Waiter>();
  private error: HypruseError | null = null;
  private closed = false;

  constructor(private readonly onClose: (q: EventQueue) => void) {}

  push(event: DesktopEvent): void {
    if (this.closed || this.error) return;
    const [waiter] = this.waiters;
    if (waiter) {
      this.waiters.delete(waiter);
      waiter({ event });
    } else this.buffer.push(event);
  }

  /** The stream died for good: pending and later `next` calls throw this. */
  fail(error: HypruseError): void {
    if (this.closed || this.error) return;
    this.error = error;
    for (const w of this.waiters) w({ error });
    this.waiters.clear();
  }

  get failed(): HypruseError | null {
    return this.error;
  }

  next(timeoutMs: number, signal?: AbortSignal): Promise<DesktopEvent | null> {
    if (this.buffer.length) return Promise.resolve(this.buffer.shift()!);
    if (this.error) return Promise.reject(this.error);
    if (this.closed || signal?.aborted || timeoutMs <= 0) return Promise.resolve(null);
    return new Promise<DesktopEvent | null>((resolve, reject) => {
      const done: Waiter = (r) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiters.delete(done);
        if (r === null) resolve(null);
        else if ('error' in r) reject(r.error);
        else resolve(r.event);
      };
      const onAbort = () => done(null);
      const timer = setTimeout(() => done(null), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(done);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const w of this.waiters) w(null);
    this.waiters.clear();
    this.buffer.length = 0;
    this.onClose(this);
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
