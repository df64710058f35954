/** Timing helpers of the benchmark suite: warm-up, then n timed runs; median, min, max. */

export interface Stats {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function stats(xs: number[]): Stats {
  if (!xs.length) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, n: 0 };
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { median: mid, min: s[0], max: s[s.length - 1], n: s.length };
}

/**
 * Runs `fn` `warmup` times untimed, then `runs` times timed (wall clock,
 * performance.now). `between` runs untimed after each timed run (resetting
 * state, letting the desktop settle).
 */
export async function measure(
  fn: (i: number) => Promise<unknown>,
  opts: { runs: number; warmup?: number; between?: (i: number) => Promise<unknown> },
): Promise<Stats> {
  const warm = opts.warmup ?? 2;
  for (let i = 0; i < warm; i++) {
    await fn(-1 - i);
    await opts.between?.(-1 - i);
  }
  const out: number[] = [];
  for (let i = 0; i < opts.runs; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
    await opts.between?.(i);
  }
  return stats(out);
}

/** What a sample returns when it timed only part of its work itself (spawn to reply, not the exit after it). */
export class Elapsed {
  constructor(readonly ms: number) {}
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `ours` and `base` measured interleaved (ours, base, ours, base, ...), not back to back, so load
 * that drifts during the run lands on both alike: `warmup` untimed rounds of each, then `runs`
 * timed runs of ours and `baseRuns` of base. The order alternates every round.
 */
export async function measurePair(
  ours: (i: number) => Promise<unknown>,
  base: ((i: number) => Promise<unknown>) | null,
  opts: { runs: number; baseRuns?: number; warmup?: number },
): Promise<{ ours: Stats; base: Stats | null; baseError?: Error }> {
  const warm = opts.warmup ?? 2;
  const baseRuns = base ? (opts.baseRuns ?? opts.runs) : 0;
  let baseError: Error | undefined;
  const timed = async (fn: (i: number) => Promise<unknown>, i: number, out: number[]) => {
    const t0 = performance.now();
    const r = await fn(i);
    out.push(r instanceof Elapsed ? r.ms : performance.now() - t0);
  };
  const a: number[] = [];
  const b: number[] = [];
  const runBase = async (i: number, out: number[] | null) => {
    if (!base || baseError) return;
    try {
      if (out) await timed(base, i, out);
      else await base(i);
    } catch (e) {
      baseError = e as Error;
    }
  };
  for (let i = 0; i < warm; i++) {
    await ours(-1 - i);
    await runBase(-1 - i, null);
  }
  for (let i = 0; i < Math.max(opts.runs, baseRuns); i++) {
    const first = i % 2 === 0;
    if (!first && i < baseRuns) await runBase(i, b);
    if (i < opts.runs) await timed(ours, i, a);
    if (first && i < baseRuns) await runBase(i, b);
  }
  return { ours: stats(a), base: base && !baseError ? stats(b) : null, baseError };
}
