import { UsageError, intersection, layoutBounds, monitorAt, type Monitor, type Point, type Rect } from '@hypruse/core';

/** A plain decimal, as models and people write coordinates: no hex (`0x10`), exponents, `Infinity` or padding tricks. */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;
const HINT = 'coordinates are global logical pixels: global = geometry[:2] + image_pixel / scale';

/** One coordinate given as a number or a decimal string: finite, decimal only (every tool reads them alike). */
export function coordNumber(name: string, v: string | number): number {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new UsageError(`${name}=${String(v)} is not a finite number`, { hint: HINT });
    return v;
  }
  const s = v.trim();
  if (s === '') throw new UsageError(`${name} is empty; pass a number`);
  if (!DECIMAL.test(s)) throw new UsageError(`${name}=${JSON.stringify(v)} is not a decimal number (write it like 812 or 812.5)`, { hint: HINT });
  const n = Number(s);
  if (!Number.isFinite(n)) throw new UsageError(`${name}=${JSON.stringify(v)} is not a finite number`, { hint: HINT });
  return n;
}

/** A point must lie on a monitor: far-off values are refused, never clamped to an edge. */
export function assertInLayout(name: string, p: Point, monitors: Monitor[]): void {
  if (monitorAt(monitors, p)) return;
  const b: Rect = layoutBounds(monitors);
  throw new UsageError(`${name} (${p.x}, ${p.y}) is outside every monitor (the layout spans ${b.x},${b.y} to ${b.x + b.width},${b.y + b.height})`, { hint: HINT });
}

/** A region must be finite and overlap a monitor. */
export function assertRegionInLayout(name: string, r: Rect, monitors: Monitor[]): void {
  if (![r.x, r.y, r.width, r.height].every(Number.isFinite)) throw new UsageError(`${name} holds a number too large to be a coordinate`, { code: 'usage.region', hint: HINT });
  if (monitors.some((m) => intersection(m.geometry, r))) return;
  const b: Rect = layoutBounds(monitors);
  throw new UsageError(`${name} ${r.x},${r.y},${r.width}x${r.height} lies outside every monitor (the layout spans ${b.x},${b.y} to ${b.x + b.width},${b.y + b.height})`, { code: 'usage.region', hint: HINT });
}
