/** A FIFO async mutex; input-delivering tools hold it so keystrokes never interleave. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();

  async lock(signal?: AbortSignal): Promise<() => void> {
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const prev = this.tail;
    this.tail = prev.then(() => mine);
    if (signal) {
      await Promise.race([
        prev,
        new Promise<never>((_, reject) => {
          if (signal.aborted) reject(signal.reason);
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        }),
      ]).catch((err) => {
        // we give up our turn but must not block the queue
        prev.then(() => release());
        throw err;
      });
    } else {
      await prev;
    }
    return release;
  }
}
