import { HypruseError } from '@hypruse/core';

export interface PpmImage {
  width: number;
  height: number;
  /** Raw RGB pixels (3 channels, 8 bit), a view into the input buffer (no copy). */
  pixels: Buffer;
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0b || c === 0x0c;

/**
 * Parse a binary PPM (P6, maxval ≤ 255), as written by `grim -t ppm`.
 * Header: "P6" whitespace width whitespace height whitespace maxval, one
 * whitespace byte, then width*height*3 bytes. `#` comments are allowed in the header.
 */
export function parsePpm(buf: Buffer): PpmImage {
  const bad = (why: string): HypruseError =>
    new HypruseError('error.capture', `grim returned an unreadable PPM image: ${why}`, {
      hint: 'Check that grim works on this session (`grim -t ppm - | head -c 20`).',
    });
  if (buf.length < 2 || buf[0] !== 0x50 || buf[1] !== 0x36) throw bad(buf.length === 0 ? 'empty output' : 'missing the P6 magic');
  let pos = 2;
  const fields: number[] = [];
  while (fields.length < 3) {
    // skip whitespace and comments
    while (pos < buf.length) {
      const c = buf[pos];
      if (isSpace(c)) pos++;
      else if (c === 0x23) {
        while (pos < buf.length && buf[pos] !== 0x0a) pos++;
      } else break;
    }
    const start = pos;
    while (pos < buf.length && buf[pos] >= 0x30 && buf[pos] <= 0x39) pos++;
    if (pos === start) throw bad('truncated or malformed header');
    fields.push(Number(buf.toString('latin1', start, pos)));
  }
  if (pos >= buf.length || !isSpace(buf[pos])) throw bad('header not terminated');
  pos++;
  const [width, height, maxval] = fields;
  if (width <= 0 || height <= 0) throw bad(`size ${width}x${height}`);
  if (maxval < 1 || maxval > 255) throw bad(`maxval ${maxval} (only 8-bit images are supported)`);
  const need = width * height * 3;
  if (buf.length - pos < need) throw bad(`expected ${need} pixel bytes, got ${buf.length - pos}`);
  return { width, height, pixels: buf.subarray(pos, pos + need) };
}
