import type { EventSubscription } from '../contracts/compositor.js';
import type { DesktopEvent } from '../contracts/desktop.js';

/**
 * The shared half of a compositor's stop-chord registration, once the chord is
 * bound: hear its presses on `sub`, and give back one removal that closes the
 * subscription and unbinds, however many ways out ask for it (each caller
 * waits for the same unbind). `pending` holds the removals still to run, so a
 * plugin's dispose can run them all.
 */
export function listenForChord(
  sub: EventSubscription,
  isPress: (e: DesktopEvent) => boolean,
  onPress: () => void,
  unbind: () => Promise<unknown>,
  pending: Set<() => Promise<void>>,
): () => Promise<void> {
  void (async () => {
    try {
      for await (const e of sub) if (isPress(e)) onPress();
    } catch {
      /* the stream died: the chord is gone with the compositor */
    }
  })();
  let removal: Promise<void> | null = null;
  const remove = (): Promise<void> =>
    (removal ??= (async () => {
      sub.close();
      pending.delete(remove);
      await unbind().catch(() => undefined);
    })());
  pending.add(remove);
  return remove;
}
