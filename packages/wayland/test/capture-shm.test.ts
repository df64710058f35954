import { describe, expect, it } from 'vitest';
import { SHM_FORMAT, channelOffsets, shmToRgb } from '../src/capture/index.js';

/** A 3x2 buffer in XRGB8888 memory order (B,G,R,X), stride padded to 16 bytes, pixel (x,y) = R 10x+y, G 100+x, B 200+y. */
function bgrx(pad = 4, offset = 0): { buf: Buffer; stride: number } {
  const stride = 3 * 4 + pad;
  const buf = Buffer.alloc(offset + stride * 2, 0xee).subarray(offset);
  for (let y = 0; y < 2; y++) for (let x = 0; x < 3; x++) buf.set([200 + y, 100 + x, 10 * x + y, 0xff], y * stride + x * 4);
  return { buf, stride };
}
const expected = (yInvert: boolean) => {
  const out: number[] = [];
  for (let y = 0; y < 2; y++) for (let x = 0; x < 3; x++) { const sy = yInvert ? 1 - y : y; out.push(10 * x + sy, 100 + x, 200 + sy); }
  return out;
};

describe('shmToRgb', () => {
  it('converts XRGB8888/ARGB8888 (B,G,R,X in memory) to packed RGB, skipping stride padding', () => {
    const { buf, stride } = bgrx();
    expect([...shmToRgb(buf, 3, 2, stride, SHM_FORMAT.XRGB8888, false)]).toEqual(expected(false));
    expect([...shmToRgb(buf, 3, 2, stride, SHM_FORMAT.ARGB8888, false)]).toEqual(expected(false));
  });
  it('flips rows when the compositor says y_invert', () => {
    const { buf, stride } = bgrx();
    expect([...shmToRgb(buf, 3, 2, stride, SHM_FORMAT.XRGB8888, true)]).toEqual(expected(true));
  });
  it('gives the same result on unaligned buffers and odd strides (byte path)', () => {
    const { buf, stride } = bgrx(2, 1);
    expect([...shmToRgb(buf, 3, 2, stride, SHM_FORMAT.XRGB8888, true)]).toEqual(expected(true));
  });
  it('reads XBGR8888 (R,G,B,X in memory) without swapping', () => {
    const buf = Buffer.from([1, 2, 3, 0, 4, 5, 6, 0]);
    expect([...shmToRgb(buf, 2, 1, 8, SHM_FORMAT.XBGR8888, false)]).toEqual([1, 2, 3, 4, 5, 6]);
    expect(channelOffsets(SHM_FORMAT.ABGR8888)).toEqual([0, 1, 2]);
  });
  it('the four-pixels-at-a-time path (width a multiple of 4) gives what the byte path gives, both formats, both orientations', () => {
    const width = 8;
    const height = 3;
    const stride = width * 4 + 16;
    const buf = Buffer.alloc(stride * height);
    for (let i = 0; i < buf.length; i++) buf[i] = (i * 37 + 11) & 255;
    // the same bytes one byte further on are unaligned, which forces the byte path
    const shifted = Buffer.alloc(buf.length + 1).subarray(1);
    buf.copy(shifted);
    for (const format of [SHM_FORMAT.XRGB8888, SHM_FORMAT.XBGR8888]) {
      for (const yInvert of [false, true]) {
        const fast = shmToRgb(buf, width, height, stride, format, yInvert);
        expect([...fast]).toEqual([...shmToRgb(shifted, width, height, stride, format, yInvert)]);
        const [r, g, b] = channelOffsets(format)!;
        const sy = yInvert ? height - 1 : 0;
        expect([...fast.subarray(0, 3)]).toEqual([buf[sy * stride + r], buf[sy * stride + g], buf[sy * stride + b]]);
      }
    }
  });
  it('refuses formats it does not know', () => {
    expect(channelOffsets(0x30335241)).toBeNull(); // ARGB2101010
    expect(() => shmToRgb(Buffer.alloc(4), 1, 1, 4, 0x30335241, false)).toThrow(/unsupported wl_shm format/);
  });
});
