import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { UsageError, pixelToGlobal } from '@hypruse/core';
import { MARK_FILL, SharpImaging, cropBox, marksSvg } from '../src/capture/index.js';
import { coordFrame, pixelAt, solidFrame } from './capture-fixtures/frames.js';

const imaging = new SharpImaging();
// HEADLESS-2 of the test desktop: 1920x1080 px at scale 1.5, logical 1280x720 at x=1280.
const G2 = { x: 1280, y: 0, width: 1280, height: 720 };

describe('crop', () => {
  it('maps a logical rect to pixels through the scale and keeps the contract exact', async () => {
    const f = coordFrame(1920, 1080, G2, 1.5);
    const c = await imaging.crop(f, { x: 1300, y: 10, width: 100, height: 50 });
    expect([c.width, c.height, c.scale]).toEqual([150, 75, 1.5]);
    expect(c.geometry).toEqual({ x: 1300, y: 10, width: 100, height: 50 });
    // pixel (0,0) of the crop is source pixel (30,15)
    expect(pixelAt(c, 0, 0)).toEqual([30, 15, 0]);
    expect(pixelAt(c, 149, 74)).toEqual([179, 89, 0]);
    // The same global point reads the same source pixel through either frame.
    const p = pixelToGlobal(c.geometry, c.scale, 60, 30);
    const srcPx = Math.round((p.x - f.geometry.x) * f.scale);
    const srcPy = Math.round((p.y - f.geometry.y) * f.scale);
    expect(pixelAt(f, srcPx, srcPy)).toEqual(pixelAt(c, 60, 30));
  });

  it('widens a fractional rect to whole pixels and reports the exact origin', () => {
    const box = cropBox({ width: 1920, height: 1080, geometry: G2, scale: 1.5 }, { x: 1300.5, y: 0.4, width: 10, height: 10 });
    expect([box.left, box.top]).toEqual([30, 0]);
    expect(box.geometry.x).toBe(1300);
    expect(box.geometry.y).toBe(0);
    expect(box.left + box.width).toBe(Math.ceil((1310.5 - 1280) * 1.5));
    expect(pixelToGlobal(box.geometry, 1.5, 1, 0).x).toBeCloseTo(1300 + 1 / 1.5, 12);
  });

  it('clips a rect that spills over the frame edge', async () => {
    const f = coordFrame(1920, 1080, G2, 1.5);
    const c = await imaging.crop(f, { x: 1200, y: 700, width: 200, height: 100 });
    expect(c.geometry).toEqual({ x: 1280, y: 700, width: 120, height: 20 });
    expect([c.width, c.height]).toEqual([180, 30]);
    expect(pixelAt(c, 0, 0)).toEqual([0, 1050 & 255, (1050 >> 8) << 4]);
  });

  it('a rect outside the frame is a usage.region error', async () => {
    const f = coordFrame(100, 100, { x: 0, y: 0, width: 100, height: 100 }, 1);
    const err = await imaging.crop(f, { x: 200, y: 0, width: 10, height: 10 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).code).toBe('usage.region');
  });
});

describe('drawMarks', () => {
  const red = (px: number[]): boolean => px[0] > 180 && px[1] < 90 && px[2] < 90;

  it('draws a red badge with a white number at each mark and leaves the rest alone', async () => {
    const f = solidFrame(200, 100, [128, 128, 128]);
    const out = await imaging.drawMarks(f, [
      { x: 50, y: 50, label: '7' },
      { x: 140, y: 50, label: '123' },
    ]);
    expect([out.width, out.height]).toEqual([200, 100]);
    const px = (x: number, y: number) => pixelAt(out, x, y);
    expect(red(px(50 - 7, 50))).toBe(true); // inside the circle, left of the digit
    expect(red(px(50, 50 + 8))).toBe(true); // below the digit
    expect(red(px(140 - 14, 50))).toBe(true); // inside the pill of a long label
    // the digit itself is white somewhere near the centre
    let white = 0;
    for (let y = 44; y <= 56; y++) for (let x = 46; x <= 54; x++) if (px(x, y).slice(0, 3).every((v) => v > 200)) white++;
    expect(white).toBeGreaterThan(3);
    // dark outer outline just outside the white ring
    expect([37, 38, 39].some((x) => px(x, 50).slice(0, 3).every((v) => v < 90))).toBe(true);
    // untouched background
    expect(px(5, 5).slice(0, 3)).toEqual([128, 128, 128]);
    expect(px(95, 50).slice(0, 3)).toEqual([128, 128, 128]);
  });

  it('escapes labels so they cannot break the SVG', () => {
    const svg = marksSvg(10, 10, [{ x: 1, y: 1, label: '<&">' }]);
    expect(svg).toContain('&lt;&amp;&quot;&gt;');
    expect(svg).toContain(MARK_FILL);
  });

  it('a mark on the frame edge is clipped, not an error', async () => {
    const out = await imaging.drawMarks(solidFrame(40, 30, [0, 0, 255]), [{ x: 0, y: 0, label: '1' }]);
    expect([out.width, out.height]).toEqual([40, 30]);
    expect(red(pixelAt(out, 5, 5))).toBe(true);
    expect(pixelAt(out, 20, 20).slice(0, 3)).toEqual([0, 0, 255]);
  });
});

describe('raw', () => {
  it('expands RGB to RGBA with opaque alpha', async () => {
    const f = coordFrame(3, 2, { x: 0, y: 0, width: 3, height: 2 }, 1);
    const r = await imaging.raw(f);
    expect(r.channels).toBe(4);
    expect(pixelAt(r, 2, 1)).toEqual([2, 1, 0, 255]);
  });
  it('decodes a PNG-encoded frame', async () => {
    const f = coordFrame(30, 20, { x: 0, y: 0, width: 30, height: 20 }, 1);
    const png = await sharp(f.data, { raw: { width: 30, height: 20, channels: 3 } }).png().toBuffer();
    const r = await imaging.raw({ ...f, data: png, encoded: 'png' });
    expect([r.width, r.height, r.channels, r.encoded]).toEqual([30, 20, 4, undefined]);
    expect(pixelAt(r, 29, 19)).toEqual([29, 19, 0, 255]);
  });
});
