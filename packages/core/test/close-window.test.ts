import { describe, expect, it } from 'vitest';
import { closeAndConfirm } from '../src/events/close-window.js';
import { EventQueue } from '../src/events/event-queue.js';

describe('closeAndConfirm', () => {
  it('confirms on the close event of that address', async () => {
    const q = new EventQueue(() => {});
    const out = await closeAndConfirm('5', 3000, {
      subscribe: async () => q,
      send: async () => void setTimeout(() => q.push({ type: 'window_close', address: '5' }), 20),
      isOpen: async () => true,
    });
    expect(out).toEqual({ status: 'closed' });
  });

  it('on a resync (the close event may be lost in the gap) looks at the window list at once', async () => {
    const q = new EventQueue(() => {});
    let open = true;
    let looks = 0;
    const t0 = Date.now();
    const out = await closeAndConfirm('5', 5000, {
      subscribe: async () => q,
      send: async () =>
        void setTimeout(() => {
          open = false;
          q.push({ type: 'resync', reason: 'reconnected' });
        }, 20),
      isOpen: async () => (looks++, open),
    });
    expect(out).toEqual({ status: 'closed' });
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(looks).toBe(1);
  });

  it('a resync while the window is still there keeps waiting, then answers still_open', async () => {
    const q = new EventQueue(() => {});
    const out = await closeAndConfirm('5', 300, {
      subscribe: async () => q,
      send: async () => void setTimeout(() => q.push({ type: 'resync', reason: 'reconnected' }), 20),
      isOpen: async () => true,
    });
    expect(out).toEqual({ status: 'still_open' });
  });
});
