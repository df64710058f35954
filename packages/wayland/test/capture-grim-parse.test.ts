import { describe, expect, it } from 'vitest';
import { HypruseError, UsageError } from '@hypruse/core';
import { grimAbilitiesFromHelp, grimGeometry, parsePpm } from '../src/capture/index.js';

function ppm(header: string, pixels: number[]): Buffer {
  return Buffer.concat([Buffer.from(header, 'latin1'), Buffer.from(pixels)]);
}

describe('parsePpm', () => {
  it('reads a P6 header and returns the pixel bytes as a view', () => {
    const buf = ppm('P6\n2 1\n255\n', [1, 2, 3, 4, 5, 6]);
    const img = parsePpm(buf);
    expect(img).toMatchObject({ width: 2, height: 1 });
    expect([...img.pixels]).toEqual([1, 2, 3, 4, 5, 6]);
    expect(img.pixels.buffer).toBe(buf.buffer); // no copy
  });

  it('accepts comments and any whitespace between header fields', () => {
    const img = parsePpm(ppm('P6 # made by grim\n1\t1 # size\n255\r', [9, 8, 7]));
    expect([img.width, img.height, [...img.pixels]]).toEqual([1, 1, [9, 8, 7]]);
  });

  it('ignores trailing bytes after the pixels', () => {
    expect(parsePpm(ppm('P6\n1 1\n255\n', [1, 2, 3, 99])).pixels.length).toBe(3);
  });

  it.each([
    ['empty output', Buffer.alloc(0), /empty output/],
    ['PNG bytes', Buffer.from([0x89, 0x50, 0x4e, 0x47]), /P6 magic/],
    ['truncated header', Buffer.from('P6\n10 ', 'latin1'), /header/],
    ['16-bit', ppm('P6\n1 1\n65535\n', [0, 0, 0, 0, 0, 0]), /maxval 65535/],
    ['short pixel data', ppm('P6\n2 2\n255\n', [1, 2, 3]), /expected 12 pixel bytes, got 3/],
  ])('rejects %s with a typed error.capture', (_n, buf, re) => {
    try {
      parsePpm(buf);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(HypruseError);
      expect((e as HypruseError).code).toBe('error.capture');
      expect((e as HypruseError).message).toMatch(re);
      expect((e as HypruseError).hint).toBeTruthy();
    }
  });
});

const GRIM_14_HELP = `Usage: grim [options...] [output-file]

  -h              Show help message and quit.
  -s <factor>     Set the output image scale factor. Defaults to the
                  greatest output scale factor.
  -g <geometry>   Set the region to capture.
  -t png|ppm|jpeg Set the output filetype. Defaults to png.
  -q <quality>    Set the JPEG filetype quality 0-100. Defaults to 80.
  -l <level>      Set the PNG filetype compression level 0-9. Defaults to 6.
  -o <output>     Set the output name to capture.
  -c              Include cursors in the screenshot.
`;

describe('grimAbilitiesFromHelp', () => {
  it('grim 1.4 (Debian 12) has no toplevel capture', () => {
    expect(grimAbilitiesFromHelp(GRIM_14_HELP)).toEqual({ toplevel: false, version: '1.4' });
  });
  it('grim 1.5 lists -T', () => {
    const help = GRIM_14_HELP.replace('  -c ', '  -T <identifier> Set the identifier of a foreign toplevel handle to capture.\n  -c ');
    expect(grimAbilitiesFromHelp(help)).toEqual({ toplevel: true, version: '≥1.5' });
  });
  it('does not mistake "-T" inside prose for the option', () => {
    expect(grimAbilitiesFromHelp(`${GRIM_14_HELP}\nNote: no -T here.`).toplevel).toBe(false);
  });
});

describe('grimGeometry', () => {
  it('formats integer rects as grim expects', () => {
    expect(grimGeometry({ x: -10, y: 20, width: 300, height: 400 })).toEqual({
      arg: '-10,20 300x400',
      rect: { x: -10, y: 20, width: 300, height: 400 },
    });
  });
  it('widens fractional rects to whole units that cover them', () => {
    expect(grimGeometry({ x: 10.5, y: 0.25, width: 100, height: 50.5 }).rect).toEqual({ x: 10, y: 0, width: 101, height: 51 });
  });
  it.each([
    [{ x: 0, y: 0, width: 0, height: 10 }],
    [{ x: 0, y: 0, width: 10, height: -1 }],
    [{ x: Number.NaN, y: 0, width: 10, height: 10 }],
  ])('rejects empty or non-finite %o as usage.region', (r) => {
    expect(() => grimGeometry(r)).toThrow(UsageError);
    try {
      grimGeometry(r);
    } catch (e) {
      expect((e as UsageError).code).toBe('usage.region');
    }
  });
});
