import type { CloseOutcome, EventSubscription } from '../contracts/compositor.js';

export interface CloseSteps {
  /** Subscribe to the compositor's events (before anything is sent); null when the stream is unavailable. */
  subscribe(): Promise<EventSubscription | null>;
  /** Ask the window to close. */
  send(): Promise<void>;
  /** Whether the window is still listed. */
  isOpen(): Promise<boolean>;
  /** Without an event stream: poll `isOpen` until the deadline (true), or answer `unconfirmed` at once (false). */
  pollWithoutEvents?: boolean;
}

/**
 * Close a window and wait for its close event, shared by the compositor
 * plugins: subscribe first, send, wait up to `timeoutMs` for `window_close` of
 * that address (on a `resync` the window list is checked instead), then look
 * once more. `still_open` means the app is likely
 * prompting (unsaved changes); `unconfirmed` means no event stream to confirm.
 */
export async function closeAndConfirm(address: string, timeoutMs: number, steps: CloseSteps): Promise<CloseOutcome> {
  const deadline = Date.now() + Math.max(0, timeoutMs);
  let sub: EventSubscription | null = null;
  try {
    sub = await steps.subscribe();
  } catch {
    sub = null;
  }
  try {
    await steps.send();
    if (!sub) {
      if (!steps.pollWithoutEvents) return { status: 'unconfirmed' };
      while (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        if (!(await steps.isOpen())) return { status: 'closed' };
      }
    } else {
      for (;;) {
        const left = deadline - Date.now();
        if (left <= 0) break;
        let ev;
        try {
          ev = await sub.next(left);
        } catch {
          // the stream died mid-wait: the window list still tells whether it is gone
          return { status: (await steps.isOpen()) ? 'unconfirmed' : 'closed' };
        }
        if (!ev) break;
        if (ev.type === 'window_close' && ev.address === address) return { status: 'closed' };
        // events in a reconnect gap may be lost: the window list tells whether it went meanwhile
        if (ev.type === 'resync' && !(await steps.isOpen())) return { status: 'closed' };
      }
    }
    return { status: (await steps.isOpen()) ? 'still_open' : 'closed' };
  } finally {
    sub?.close();
  }
}
