import type { Frame, Rect } from '@hypruse/core';

/** Deterministic RGB noise (an LCG), the worst case for encoders. */
export function noiseFrame(width: number, height: number, geometry: Rect, scale: number, seed = 1): Frame {
  const data = Buffer.allocUnsafe(width * height * 3);
  let s = seed >>> 0;
  for (let i = 0; i < data.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    data[i] = s >>> 24;
  }
  return { data, width, height, channels: 3, geometry, scale, source: 'output', via: 'test' };
}

/** Pixels that encode their own position: R = x & 255, G = y & 255, B = (x >> 8) | ((y >> 8) << 4). */
export function coordFrame(width: number, height: number, geometry: Rect, scale: number): Frame {
  const data = Buffer.allocUnsafe(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      data[i] = x & 255;
      data[i + 1] = y & 255;
      data[i + 2] = (x >> 8) | ((y >> 8) << 4);
    }
  }
  return { data, width, height, channels: 3, geometry, scale, source: 'output', via: 'test' };
}

export function solidFrame(width: number, height: number, rgb: [number, number, number]): Frame {
  const data = Buffer.allocUnsafe(width * height * 3);
  for (let i = 0; i < width * height; i++) data.set(rgb, i * 3);
  return { data, width, height, channels: 3, geometry: { x: 0, y: 0, width, height }, scale: 1, source: 'output', via: 'test' };
}

export function pixelAt(frame: Frame, x: number, y: number): number[] {
  const i = (y * frame.width + x) * frame.channels;
  return [...frame.data.subarray(i, i + frame.channels)];
}
