/**
 * What the on-screen indicator draws on one monitor, as small surfaces in
 * the monitor's logical units (each rendered from SVG at the buffer scale):
 * a thin glow along every edge, the label in an opaque pill at the top
 * centre, and a ring at each pointer target. Small surfaces keep each redraw
 * cheap (a full-monitor buffer costs hundreds of ms under load). Pure, so
 * placement is tested without a compositor.
 */
import { escapeControlChars, type Point, type Rect } from '@hypruse/core';

/** Accent of the glow, the rings and the pill's border (a violet that few applications use). */
export const INDICATOR_ACCENT = '#b640ff';
/** The label pill's fill: opaque, so the label reads the same over any content. */
export const LABEL_FILL = '#1c1030';
export const LABEL_TEXT = '#ffffff';
/** Depth of the edge glow, logical px. */
export const GLOW_DEPTH = 6;
/** Ring radius (to the middle of its stroke) and stroke width, logical px. */
export const RING_RADIUS = 18;
export const RING_STROKE = 3;
/** The label: monospace, so its box follows from its length alone. */
export const LABEL_FONT_SIZE = 14;
const CHAR_ADVANCE = 0.6021 * LABEL_FONT_SIZE; // DejaVu Sans Mono advance, 1233/2048 em
const LABEL_PAD_X = 12;
export const LABEL_HEIGHT = 28;
export const LABEL_TOP = 16;

/** XML text of a label: control characters (not allowed in XML, even as references) shown as escapes. */
function escapeXml(s: string): string {
  return escapeControlChars(s).replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string);
}

/** The label pill's box on a monitor `width` logical px wide (output-local, whole px). */
export function labelBox(width: number, label: string): Rect {
  const w = Math.min(width - 2 * GLOW_DEPTH, Math.ceil([...escapeControlChars(label)].length * CHAR_ADVANCE) + 2 * LABEL_PAD_X);
  return { x: Math.round((width - w) / 2), y: LABEL_TOP, width: w, height: LABEL_HEIGHT };
}

/** The pill alone, drawn at `box`'s position inside an SVG of the given size (the test renders it on its own to compare with the screen). */
export function labelParts(box: Rect, label: string): string[] {
  const r = box.height / 2;
  return [
    `<rect x="${box.x}" y="${box.y}" width="${box.width}" height="${box.height}" rx="${r}" fill="${LABEL_FILL}" stroke="${INDICATOR_ACCENT}" stroke-width="1.5"/>`,
    `<text x="${box.x + LABEL_PAD_X}" y="${box.y + 19}" font-family="DejaVu Sans Mono, monospace" font-size="${LABEL_FONT_SIZE}" fill="${LABEL_TEXT}">${escapeXml(label)}</text>`,
  ];
}

/** One click-through surface of the indicator: a box in monitor-local logical px and what it shows. */
export interface IndicatorElement {
  /** Stable per role: `glow-top`, `label`, `ring-0`, ... */
  key: string;
  /** Monitor-local logical box (whole px): the surface sits at (x, y), anchored to the top-left corner. */
  box: Rect;
  /** The picture at `scale` buffer pixels per logical px. */
  svg(scale: number): string;
}

function svgOf(box: Rect, scale: number, parts: string[]): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${box.width * scale}" height="${box.height * scale}" viewBox="0 0 ${box.width} ${box.height}">${parts.join('')}</svg>`;
}

/** The glow along one edge: the accent fading inwards. */
function glow(key: 'top' | 'bottom' | 'left' | 'right', box: Rect): IndicatorElement {
  const dir = { top: 'x1="0" y1="0" x2="0" y2="1"', bottom: 'x1="0" y1="1" x2="0" y2="0"', left: 'x1="0" y1="0" x2="1" y2="0"', right: 'x1="1" y1="0" x2="0" y2="0"' }[key];
  return {
    key: `glow-${key}`,
    box,
    svg: (scale) =>
      svgOf(box, scale, [
        `<defs><linearGradient id="g" ${dir}><stop offset="0" stop-color="${INDICATOR_ACCENT}" stop-opacity="0.9"/><stop offset="1" stop-color="${INDICATOR_ACCENT}" stop-opacity="0"/></linearGradient></defs>`,
        `<rect x="0" y="0" width="${box.width}" height="${box.height}" fill="url(#g)"/>`,
      ]),
  };
}

/** Half the side of a ring's box: the ring, its halo and a pixel of room. */
export const RING_HALF = RING_RADIUS + RING_STROKE + 2;

function ring(i: number, cx: number, cy: number): IndicatorElement {
  const box = { x: cx - RING_HALF, y: cy - RING_HALF, width: 2 * RING_HALF, height: 2 * RING_HALF };
  return {
    key: `ring-${i}`,
    box,
    svg: (scale) =>
      svgOf(box, scale, [
        // a dark halo under the ring keeps it visible on light and violet content
        `<circle cx="${RING_HALF}" cy="${RING_HALF}" r="${RING_RADIUS}" fill="none" stroke="#000000" stroke-opacity="0.55" stroke-width="${RING_STROKE + 2}"/>`,
        `<circle cx="${RING_HALF}" cy="${RING_HALF}" r="${RING_RADIUS}" fill="none" stroke="${INDICATOR_ACCENT}" stroke-width="${RING_STROKE}"/>`,
      ]),
  };
}

/** The label pill as a picture of its own box (what the label surface shows; tests render it to compare with the screen). */
export function labelSvg(label: string, width: number, scale = 1): string {
  const box = labelBox(width, label);
  return svgOf({ x: 0, y: 0, width: box.width, height: box.height }, scale, labelParts({ x: 0, y: 0, width: box.width, height: box.height }, label));
}

export interface IndicatorScene {
  label: string;
  /** Global logical points. */
  points: Point[];
}

/**
 * The surfaces for one monitor whose logical geometry is `output` (global
 * coordinates): four edge glows, the label, and a ring centred on each target
 * that lies on this monitor (a ring near an edge is kept whole inside it).
 */
export function indicatorElements(output: Rect, scene: IndicatorScene): IndicatorElement[] {
  const { width, height } = output;
  const d = Math.min(GLOW_DEPTH, Math.floor(width / 2), Math.floor(height / 2));
  const out: IndicatorElement[] = [
    glow('top', { x: 0, y: 0, width, height: d }),
    glow('bottom', { x: 0, y: height - d, width, height: d }),
    glow('left', { x: 0, y: d, width: d, height: height - 2 * d }),
    glow('right', { x: width - d, y: d, width: d, height: height - 2 * d }),
  ];
  scene.points.forEach((p, i) => {
    const lx = Math.round(p.x - output.x);
    const ly = Math.round(p.y - output.y);
    if (lx < 0 || ly < 0 || lx >= width || ly >= height) return;
    const clamp = (v: number, max: number) => Math.max(RING_HALF, Math.min(max - RING_HALF, v));
    out.push(ring(i, clamp(lx, width), clamp(ly, height)));
  });
  if (scene.label) {
    const box = labelBox(width, scene.label);
    out.push({ key: 'label', box, svg: (scale) => labelSvg(scene.label, width, scale) });
  }
  return out;
}

/** Straight RGBA (sharp's raw output) to premultiplied little-endian ARGB8888 (wl_shm format 0: bytes B, G, R, A), times `alpha`. */
export function rgbaToShmArgb(rgba: Uint8Array, alpha = 1, out: Buffer = Buffer.allocUnsafe(rgba.length)): Buffer {
  const f = Math.max(0, Math.min(1, alpha));
  for (let i = 0; i < rgba.length; i += 4) {
    const a = rgba[i + 3]! * f;
    const m = a / 255;
    out[i] = Math.round(rgba[i + 2]! * m);
    out[i + 1] = Math.round(rgba[i + 1]! * m);
    out[i + 2] = Math.round(rgba[i]! * m);
    out[i + 3] = Math.round(a);
  }
  return out;
}
