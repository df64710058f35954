import { UsageError, type EncodeOptions } from '@hypruse/core';

/** One attempt of the fit ladder: a format, a quality and a size factor relative to the start size. */
export interface Rung {
  format: 'jpeg' | 'png';
  quality?: number;
  /** Extra downscale relative to the start fraction (1 = none). */
  factor: number;
}

/** JPEG rungs of the fit ladder: quality falls before resolution (HYPRUSE-BEHAVIOR §6). */
export const JPEG_RUNGS: readonly Rung[] = [
  { format: 'jpeg', quality: 90, factor: 1 },
  { format: 'jpeg', quality: 75, factor: 1 },
  { format: 'jpeg', quality: 60, factor: 1 },
  { format: 'jpeg', quality: 45, factor: 1 },
  { format: 'jpeg', quality: 45, factor: 0.75 },
  { format: 'jpeg', quality: 40, factor: 0.5 },
];

/**
 * The ordered attempts for an encode. Lossless starts with PNG, then the JPEG
 * rungs. An explicit JPEG quality replaces the first rung and drops the
 * rungs that would not lower it.
 */
export function ladderFor(opts: EncodeOptions): Rung[] {
  if (opts.quality !== undefined && !(Number.isInteger(opts.quality) && opts.quality >= 1 && opts.quality <= 100)) {
    throw new UsageError(`image quality ${opts.quality} is out of range`, { hint: 'quality is an integer from 1 to 100 (JPEG).' });
  }
  if (opts.format === 'png') return [{ format: 'png', factor: 1 }, ...JPEG_RUNGS];
  const q = opts.quality ?? 90;
  return [{ format: 'jpeg', quality: q, factor: 1 }, ...JPEG_RUNGS.filter((r) => r.factor < 1 || (r.quality ?? 0) < q)];
}

/**
 * The start fraction: an explicit `fraction` (0 or 1 = none, else 0<f≤1) applied
 * first, then capped so the long edge fits `maxEdge` when one is given.
 */
export function startFraction(width: number, height: number, opts: Pick<EncodeOptions, 'fraction' | 'maxEdge'>): number {
  let f = 1;
  if (opts.fraction !== undefined && opts.fraction !== 0) {
    if (!(opts.fraction > 0 && opts.fraction <= 1)) {
      throw new UsageError(`scale ${opts.fraction} is out of range`, { hint: 'scale is a downscale fraction: 0 (auto) or a number in (0, 1].' });
    }
    f = opts.fraction;
  }
  if (opts.maxEdge !== undefined) {
    if (!(opts.maxEdge >= 1)) throw new UsageError(`maxEdge ${opts.maxEdge} is out of range`, { hint: 'maxEdge is a pixel length of at least 1.' });
    f = Math.min(f, opts.maxEdge / Math.max(width, height));
  }
  return f;
}

/** Pixel size of the image at fraction f, never 0, the long edge never above maxEdge. */
export function sizeAt(width: number, height: number, f: number, maxEdge?: number): { width: number; height: number } {
  if (f >= 1) return { width, height };
  let w = Math.max(1, Math.round(width * f));
  let h = Math.max(1, Math.round(height * f));
  if (maxEdge !== undefined) {
    w = Math.min(w, Math.max(1, Math.floor(maxEdge)));
    h = Math.min(h, Math.max(1, Math.floor(maxEdge)));
  }
  return { width: w, height: h };
}
