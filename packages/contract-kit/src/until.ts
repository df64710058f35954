/**
 * Poll `fn` until it gives a truthy value, and resolve with it; throw once `timeoutMs` passed,
 * naming `what` and the last error `fn` threw. The one wait loop of the contract suite, and of the
 * tests that use the kit.
 */
export async function until<T>(what: string, fn: () => T | Promise<T | null | undefined | false>, timeoutMs: number, intervalMs = 40): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = null;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
      last = null;
    } catch (e) {
      last = e;
    }
    if (Date.now() >= deadline) throw new Error(`timed out after ${Math.round(timeoutMs)} ms waiting for ${what}${last instanceof Error ? ` (last error: ${last.message})` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
