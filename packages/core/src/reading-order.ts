import type { Rect } from './contracts/geometry.js';

/**
 * Reading order: top to bottom in rows, left to right within a row. Elements are taken by their top
 * edge (a tall list starts where its top is, not at its middle); one joins a row when its vertical
 * centre lies within the height of the row's first element and that element's centre within its
 * own height (so a list clipped by its viewport, reporting its whole height, does not pull the
 * buttons below it into its row). Elements without a box follow, in the order given. Pure.
 */
export function readingOrder<T>(items: readonly T[], box: (item: T) => Rect | null | undefined): T[][] {
  const placed: Array<{ it: T; e: Rect }> = [];
  const unplaced: T[] = [];
  for (const it of items) {
    const e = box(it);
    if (e) placed.push({ it, e });
    else unplaced.push(it);
  }
  placed.sort((a, b) => a.e.y - b.e.y || a.e.x - b.e.x);
  const rows: Array<Array<{ it: T; e: Rect }>> = [];
  let row: Array<{ it: T; e: Rect }> = [];
  let band = { top: 0, bottom: -1, cy: 0 };
  for (const p of placed) {
    const { e } = p;
    const cy = e.y + e.height / 2;
    if (row.length && cy >= band.top && cy <= band.bottom && band.cy >= e.y && band.cy <= e.y + e.height) row.push(p);
    else {
      if (row.length) rows.push(row);
      row = [p];
      band = { top: e.y, bottom: e.y + e.height, cy };
    }
  }
  if (row.length) rows.push(row);
  const out = rows.map((r) => r.sort((a, b) => a.e.x - b.e.x || a.e.y - b.e.y).map((p) => p.it));
  if (unplaced.length) out.push(unplaced);
  return out;
}

/** How far apart (px) left edges may be for two elements to count as one column. */
const COLUMN_SLACK = 8;

/**
 * A container's children in the order a person reads them. A container laid out in columns (its
 * neighbours in the given order share a column, left edges aligned, more than twice as often as a
 * row: a grid of check boxes filled column by column)
 * reads column by column, left to right, each top to bottom; anything else reads row by row
 * (readingOrder). The given order only decides rows or columns, so a toolkit listing its children
 * backwards (GTK 3's grid: the last row first) still reads top to bottom.
 */
export function readingSequence<T>(items: readonly T[], box: (item: T) => Rect | null | undefined): T[] {
  if (items.length < 2) return [...items];
  let sameRow = 0;
  let sameColumn = 0;
  for (let i = 1; i < items.length; i++) {
    const a = box(items[i - 1]);
    const b = box(items[i]);
    if (!a || !b) continue;
    const acy = a.y + a.height / 2;
    const bcy = b.y + b.height / 2;
    const acx = a.x + a.width / 2;
    const bcx = b.x + b.width / 2;
    if (acy >= b.y && acy <= b.y + b.height && bcy >= a.y && bcy <= a.y + a.height) sameRow++;
    // a column: left edges aligned, one above the other
    else if (Math.abs(a.x - b.x) <= COLUMN_SLACK && acx >= b.x && acx <= b.x + b.width && bcx >= a.x && bcx <= a.x + a.width) sameColumn++;
  }
  if (sameColumn > 2 * sameRow) {
    const t = (item: T) => {
      const e = box(item);
      return e ? { x: e.y, y: e.x, width: e.height, height: e.width } : e;
    };
    return readingOrder(items, t).flat();
  }
  return readingOrder(items, box).flat();
}
