import { endianness } from 'node:os';

/** wl_shm formats screencopy may offer for a CPU buffer (fourcc, except the two legacy codes 0 and 1). */
export const SHM_FORMAT = {
  ARGB8888: 0,
  XRGB8888: 1,
  ABGR8888: 0x34324241,
  XBGR8888: 0x34324258,
} as const;

/** Byte offsets of R, G, B inside one little-endian 32-bit pixel of a supported format, or null. */
export function channelOffsets(format: number): [number, number, number] | null {
  switch (format) {
    case SHM_FORMAT.ARGB8888:
    case SHM_FORMAT.XRGB8888:
      return [2, 1, 0]; // memory order B G R A/X
    case SHM_FORMAT.ABGR8888:
    case SHM_FORMAT.XBGR8888:
      return [0, 1, 2]; // memory order R G B A/X
    default:
      return null;
  }
}

const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * Convert a 32-bit shm buffer (any stride, optionally upside down) to packed
 * RGB, the layout grim's PPM gives, so both capture paths yield the same frames.
 */
export function shmToRgb(src: Buffer, width: number, height: number, stride: number, format: number, yInvert: boolean): Buffer {
  const off = channelOffsets(format);
  if (!off) throw new RangeError(`unsupported wl_shm format 0x${format.toString(16)}`);
  const [r, g, b] = off;
  const out = Buffer.allocUnsafe(width * height * 3);
  if (LITTLE_ENDIAN && (src.byteOffset & 3) === 0 && (stride & 3) === 0) {
    // One 32-bit read per pixel (little-endian word: byte k sits at bits 8k..8k+7).
    const words = new Uint32Array(src.buffer, src.byteOffset, (stride >> 2) * height);
    const rs = r * 8;
    const gs = g * 8;
    const bs = b * 8;
    const wstride = stride >> 2;
    if ((width & 3) === 0 && (out.byteOffset & 3) === 0) {
      // Four pixels make three whole output words: 4 reads and 3 writes instead of 12 byte stores.
      const ow = new Uint32Array(out.buffer, out.byteOffset, (width * height * 3) >> 2);
      const rowWords = (width * 3) >> 2;
      for (let y = 0; y < height; y++) {
        let s = (yInvert ? height - 1 - y : y) * wstride;
        let d = y * rowWords;
        for (let x = 0; x < width; x += 4, s += 4, d += 3) {
          const p0 = words[s];
          const p1 = words[s + 1];
          const p2 = words[s + 2];
          const p3 = words[s + 3];
          ow[d] = ((p0 >>> rs) & 255) | (((p0 >>> gs) & 255) << 8) | (((p0 >>> bs) & 255) << 16) | (((p1 >>> rs) & 255) << 24);
          ow[d + 1] = ((p1 >>> gs) & 255) | (((p1 >>> bs) & 255) << 8) | (((p2 >>> rs) & 255) << 16) | (((p2 >>> gs) & 255) << 24);
          ow[d + 2] = ((p2 >>> bs) & 255) | (((p3 >>> rs) & 255) << 8) | (((p3 >>> gs) & 255) << 16) | (((p3 >>> bs) & 255) << 24);
        }
      }
      return out;
    }
    for (let y = 0; y < height; y++) {
      let s = (yInvert ? height - 1 - y : y) * wstride;
      let d = y * width * 3;
      for (let x = 0; x < width; x++, s++, d += 3) {
        const v = words[s];
        out[d] = (v >>> rs) & 255;
        out[d + 1] = (v >>> gs) & 255;
        out[d + 2] = (v >>> bs) & 255;
      }
    }
    return out;
  }
  for (let y = 0; y < height; y++) {
    let s = (yInvert ? height - 1 - y : y) * stride;
    let d = y * width * 3;
    for (let x = 0; x < width; x++, s += 4, d += 3) {
      out[d] = src[s + r];
      out[d + 1] = src[s + g];
      out[d + 2] = src[s + b];
    }
  }
  return out;
}
