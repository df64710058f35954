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

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
