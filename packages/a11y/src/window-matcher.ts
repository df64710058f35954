import type { A11yWindowQuery } from '@hypruse/core';
import { normalizeName } from './match.js';
import type { RawNode } from './tree-reader.js';

/** How far a frame's size may be from the compositor window's and still count as "that size" (CSD shadows, borders). */
export const SIZE_TOLERANCE = 80;

/**
 * Pick the top-level accessible window of an app that is the compositor
 * window: by exact title, then normalized title, then by the closest size,
 * then the only one, then the active one. Null when nothing fits.
 */
export function pickWindow(candidates: readonly RawNode[], query: Pick<A11yWindowQuery, 'title' | 'width' | 'height'>): RawNode | null {
  if (candidates.length === 0) return null;
  const bySize = (list: readonly RawNode[]): RawNode | null => {
    let best: RawNode | null = null;
    let bestDiff = Infinity;
    for (const c of list) {
      if (!c.extents || query.width <= 0 || query.height <= 0) continue;
      const dw = Math.abs(c.extents.width - query.width);
      const dh = Math.abs(c.extents.height - query.height);
      if (dw > SIZE_TOLERANCE || dh > SIZE_TOLERANCE) continue;
      if (dw + dh < bestDiff) {
        best = c;
        bestDiff = dw + dh;
      }
    }
    return best;
  };
  const exact = candidates.filter((c) => c.name === query.title);
  if (exact.length === 1) return exact[0];
  if (exact.length > 1) return bySize(exact) ?? exact.find(isActive) ?? exact[0];
  const q = normalizeName(query.title);
  if (q !== '') {
    const norm = candidates.filter((c) => normalizeName(c.name) === q);
    if (norm.length === 1) return norm[0];
    if (norm.length > 1) return bySize(norm) ?? norm.find(isActive) ?? norm[0];
  }
  const sized = bySize(candidates);
  if (sized) return sized;
  if (candidates.length === 1) return candidates[0];
  return candidates.find(isActive) ?? null;
}

function isActive(n: RawNode): boolean {
  return n.states.includes('active');
}

/** True when one of an app's top-level windows carries this title (the multi-process fallback). */
export function hasWindowTitled(windows: readonly RawNode[], title: string): boolean {
  const q = normalizeName(title);
  return q !== '' && windows.some((w) => w.name === title || normalizeName(w.name) === q);
}
