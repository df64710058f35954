import type { Monitor } from './contracts/desktop.js';
import type { Point, Rect } from './contracts/geometry.js';

/**
 * The exact scale behind a printed one. Compositors keep only scales of the
 * form k/120 (the wp_fractional_scale step) that divide the mode into whole
 * logical pixels, and some print them with two decimals: 4/3 reads `1.33`,
 * and 2560/1.33 would give 1925 instead of 1920. So take the k/120 within
 * the print's rounding that gives whole logical sizes on both axes; an exact
 * print passes through unchanged.
 */
export function exactScale(printed: number, width: number, height: number): number {
  if (!(printed > 0) || !(width > 0) || !(height > 0)) return printed > 0 ? printed : 1;
  const whole = (s: number) => Math.abs(width / s - Math.round(width / s)) < 1e-6 && Math.abs(height / s - Math.round(height / s)) < 1e-6;
  if (whole(printed)) return printed;
  let best: number | null = null;
  for (let k = Math.ceil((printed - 0.005) * 120 - 1e-9); k <= Math.floor((printed + 0.005) * 120 + 1e-9); k++) {
    const s = k / 120;
    if (k > 0 && whole(s) && (best === null || Math.abs(s - printed) < Math.abs(best - printed))) best = s;
  }
  return best ?? printed;
}

/** Logical size of a monitor from its physical mode, (printed) scale and transform (odd transforms swap axes); `scale` is the exact one. */
export function logicalSize(physW: number, physH: number, printedScale: number, transform = 0): { width: number; height: number; scale: number } {
  const scale = exactScale(printedScale > 0 ? printedScale : 1, physW, physH);
  let w = Math.round(physW / scale);
  let h = Math.round(physH / scale);
  if (transform % 2 === 1) [w, h] = [h, w];
  return { width: w, height: h, scale };
}

export function contains(r: Rect, p: Point): boolean {
  return p.x >= r.x && p.y >= r.y && p.x < r.x + r.width && p.y < r.y + r.height;
}

export function intersects(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

export function intersection(a: Rect, b: Rect): Rect | null {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const x2 = Math.min(a.x + a.width, b.x + b.width);
  const y2 = Math.min(a.y + a.height, b.y + b.height);
  if (x2 <= x || y2 <= y) return null;
  return { x, y, width: x2 - x, height: y2 - y };
}

export function center(r: Rect): Point {
  return { x: r.x + Math.floor(r.width / 2), y: r.y + Math.floor(r.height / 2) };
}

/** The union box of all monitors (the layout). */
export function layoutBounds(monitors: Monitor[]): Rect {
  if (monitors.length === 0) return { x: 0, y: 0, width: 0, height: 0 };
  const x = Math.min(...monitors.map((m) => m.geometry.x));
  const y = Math.min(...monitors.map((m) => m.geometry.y));
  const x2 = Math.max(...monitors.map((m) => m.geometry.x + m.geometry.width));
  const y2 = Math.max(...monitors.map((m) => m.geometry.y + m.geometry.height));
  return { x, y, width: x2 - x, height: y2 - y };
}

export function monitorAt(monitors: Monitor[], p: Point): Monitor | undefined {
  return monitors.find((m) => contains(m.geometry, p));
}

/** Capture scale for a region: the greatest scale among monitors it touches (what grim renders), else 1. */
export function regionScale(monitors: Monitor[], r: Rect): number {
  const touched = monitors.filter((m) => intersects(m.geometry, r));
  return touched.length ? Math.max(...touched.map((m) => m.scale)) : 1;
}

/** The coordinate contract: global = origin + pixel / scale. */
export function pixelToGlobal(geometry: Rect, scale: number, px: number, py: number): Point {
  return { x: geometry.x + px / scale, y: geometry.y + py / scale };
}

export function globalToPixel(geometry: Rect, scale: number, p: Point): Point {
  return { x: Math.round((p.x - geometry.x) * scale), y: Math.round((p.y - geometry.y) * scale) };
}

/** Round to 6 decimals (reported scales). */
export function round6(v: number): number {
  return Math.round(v * 1e6) / 1e6;
}
