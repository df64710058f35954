import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { HypruseError, UsageError, pixelToGlobal } from '@hypruse/core';
import { JPEG_RUNGS, SharpImaging, ladderFor, sizeAt, startFraction } from '../src/capture/index.js';
import { coordFrame, noiseFrame } from './capture-fixtures/frames.js';

const imaging = new SharpImaging();
const G = { x: 0, y: 0, width: 640, height: 400 };

describe('fit ladder (pure)', () => {
  it('lowers JPEG quality before resolution', () => {
    expect(ladderFor({ format: 'jpeg' }).map((r) => [r.format, r.quality, r.factor])).toEqual([
      ['jpeg', 90, 1],
      ['jpeg', 75, 1],
      ['jpeg', 60, 1],
      ['jpeg', 45, 1],
      ['jpeg', 45, 0.75],
      ['jpeg', 40, 0.5],
    ]);
  });
  it('lossless tries PNG first, then the JPEG rungs', () => {
    expect(ladderFor({ format: 'png' })).toEqual([{ format: 'png', factor: 1 }, ...JPEG_RUNGS]);
  });
  it('an explicit quality replaces the first rung and keeps only lower ones', () => {
    expect(ladderFor({ format: 'jpeg', quality: 70 }).map((r) => r.quality)).toEqual([70, 60, 45, 45, 40]);
    expect(() => ladderFor({ format: 'jpeg', quality: 0 })).toThrow(UsageError);
  });
  it('start fraction: explicit fraction first, then the edge cap; 0 and 1 mean none', () => {
    expect(startFraction(2000, 1000, {})).toBe(1);
    expect(startFraction(2000, 1000, { fraction: 0 })).toBe(1);
    expect(startFraction(2000, 1000, { fraction: 0.5 })).toBe(0.5);
    expect(startFraction(2000, 1000, { maxEdge: 1500 })).toBe(0.75);
    expect(startFraction(2000, 1000, { fraction: 0.5, maxEdge: 1500 })).toBe(0.5);
    expect(startFraction(2000, 1000, { fraction: 0.9, maxEdge: 500 })).toBe(0.25);
    expect(startFraction(800, 600, { maxEdge: 1568 })).toBe(1);
    expect(() => startFraction(10, 10, { fraction: 1.5 })).toThrow(/out of range/);
    expect(() => startFraction(10, 10, { fraction: -0.2 })).toThrow(UsageError);
  });
  it('sizes never reach 0 and never exceed the edge cap', () => {
    expect(sizeAt(1920, 1080, 1568 / 1920, 1568)).toEqual({ width: 1568, height: 882 });
    expect(sizeAt(3, 1000, 0.001)).toEqual({ width: 1, height: 1 });
    expect(sizeAt(1280, 800, 1)).toEqual({ width: 1280, height: 800 });
  });
});

describe('SharpImaging.encode', () => {
  it('defaults to JPEG q90 at full resolution when no budget is given', async () => {
    const f = noiseFrame(640, 400, G, 1);
    const e = await imaging.encode(f, { format: 'jpeg' });
    expect(e).toMatchObject({ format: 'jpeg', mime: 'image/jpeg', width: 640, height: 400, scale: 1, quality: 90 });
    const meta = await sharp(e.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 640, 400]);
  });

  it('lossless is a true-colour PNG (never palette) with identical pixels', async () => {
    const f = noiseFrame(64, 40, { x: 0, y: 0, width: 64, height: 40 }, 1, 7);
    const e = await imaging.encode(f, { format: 'png' });
    expect(e.mime).toBe('image/png');
    expect(e.data.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect([2, 6]).toContain(e.data[25]); // IHDR colour type: RGB or RGBA, not 3 (palette)
    const back = await sharp(e.data).removeAlpha().raw().toBuffer();
    expect(back.equals(f.data)).toBe(true);
  });

  it('with a byte budget, quality drops first (q75 at full size)', async () => {
    const f = noiseFrame(640, 400, G, 1);
    const q90 = await imaging.encode(f, { format: 'jpeg' });
    const q75 = await imaging.encode(f, { format: 'jpeg', quality: 75 });
    expect(q75.data.length).toBeLessThan(q90.data.length - 1);
    const e = await imaging.encode(f, { format: 'jpeg', maxBytes: q90.data.length - 1 });
    expect(e).toMatchObject({ quality: 75, width: 640, height: 400, scale: 1 });
    expect(e.data.length).toBeLessThanOrEqual(q90.data.length - 1);
  });

  it('resolution drops only on the last rungs, and the downscale is folded into scale', async () => {
    const f = noiseFrame(640, 400, { x: 100, y: 50, width: 426.666667, height: 266.666667 }, 1.5);
    const half40 = await imaging.encode(f, { format: 'jpeg', quality: 40, fraction: 0.5 });
    expect([half40.width, half40.height]).toEqual([320, 200]);
    const e = await imaging.encode(f, { format: 'jpeg', maxBytes: half40.data.length });
    expect(e).toMatchObject({ quality: 40, width: 320, height: 200 });
    expect(e.scale).toBeCloseTo(0.75, 9);
    const meta = await sharp(e.data).metadata();
    expect([meta.width, meta.height]).toEqual([320, 200]);
  });

  it('lossless falls back to JPEG when the PNG does not fit', async () => {
    const f = noiseFrame(200, 100, { x: 0, y: 0, width: 200, height: 100 }, 1);
    const png = await imaging.encode(f, { format: 'png' });
    const e = await imaging.encode(f, { format: 'png', maxBytes: png.data.length - 1 });
    expect(e.format).toBe('jpeg');
    expect(e.quality).toBe(90);
  });

  it('nothing fits: typed error.image advising a window or region', async () => {
    const f = noiseFrame(640, 400, G, 1);
    const err = await imaging.encode(f, { format: 'jpeg', maxBytes: 500 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HypruseError);
    expect((err as HypruseError).code).toBe('error.image');
    expect((err as HypruseError).message).toMatch(/500-byte budget/);
    expect((err as HypruseError).hint).toMatch(/window or a region/);
  });

  it('maxEdge caps the long edge and keeps the coordinate contract exact', async () => {
    // A 1920x1080 monitor at scale 1.5 placed at x=1280 (logical 1280x720).
    const geometry = { x: 1280, y: 0, width: 1280, height: 720 };
    const f = coordFrame(1920, 1080, geometry, 1.5);
    const e = await imaging.encode(f, { format: 'jpeg', maxEdge: 1568 });
    expect([e.width, e.height]).toEqual([1568, 882]);
    expect(e.scale).toBeCloseTo((1.5 * 1568) / 1920, 12);
    // The right edge of the image maps to the right edge of the monitor, the centre to the centre.
    expect(pixelToGlobal(geometry, e.scale, e.width, 0).x).toBeCloseTo(2560, 9);
    expect(pixelToGlobal(geometry, e.scale, e.width / 2, 0).x).toBeCloseTo(1920, 9);
  });

  it('an explicit fraction is applied before the ladder', async () => {
    const f = noiseFrame(640, 400, G, 2);
    const e = await imaging.encode(f, { format: 'jpeg', fraction: 0.25 });
    expect([e.width, e.height, e.scale]).toEqual([160, 100, 0.5]);
  });

  it('reads PPM-encoded and PNG-encoded frames too', async () => {
    const f = coordFrame(40, 20, { x: 0, y: 0, width: 40, height: 20 }, 1);
    const ppm = { ...f, encoded: 'ppm' as const, data: Buffer.concat([Buffer.from('P6\n40 20\n255\n'), f.data]) };
    const fromPpm = await imaging.encode(ppm, { format: 'png' });
    expect((await sharp(fromPpm.data).removeAlpha().raw().toBuffer()).equals(f.data)).toBe(true);
    const png = { ...f, encoded: 'png' as const, data: fromPpm.data };
    const fromPng = await imaging.encode(png, { format: 'jpeg', fraction: 0.5 });
    expect([fromPng.width, fromPng.height]).toEqual([20, 10]);
  });
});
