import { HypruseError, UsageError, type EncodedImage, type EncodeOptions, type Frame, type Imaging, type MarkSpec, type Rect } from '@hypruse/core';
import type { Sharp, SharpOptions } from 'sharp';
import { ladderFor, sizeAt, startFraction } from './fit-ladder.js';
import { marksSvg } from './marks-svg.js';
import { parsePpm } from './ppm.js';

type SharpFactory = (input?: Buffer, options?: SharpOptions) => Sharp;

let sharpModule: Promise<SharpFactory> | undefined;

/** sharp is heavy (libvips): imported on first use only, so CLI start stays fast. */
export function loadSharp(): Promise<SharpFactory> {
  if (!sharpModule) {
    sharpModule = import('sharp').then(
      (m) => (m.default ?? m) as unknown as SharpFactory,
      (e: unknown) => {
        sharpModule = undefined;
        throw new HypruseError('error.image', `the image library sharp could not be loaded: ${e instanceof Error ? e.message : String(e)}`, {
          hint: 'Reinstall dependencies (`npm install`); sharp ships prebuilt libvips binaries for linux-x64 and linux-arm64.',
          cause: e,
        });
      },
    );
  }
  return sharpModule;
}

/** A frame's pixels as raw (undecoded PPM → RGB view, raw as is); PNG stays encoded for sharp to decode. */
function rawOrPng(frame: Frame): { data: Buffer; raw?: { width: number; height: number; channels: 3 | 4 } } {
  if (frame.encoded === 'png') return { data: frame.data };
  if (frame.encoded === 'ppm') {
    const p = parsePpm(frame.data);
    return { data: p.pixels, raw: { width: p.width, height: p.height, channels: 3 } };
  }
  const need = frame.width * frame.height * frame.channels;
  if (frame.data.length < need) {
    throw new HypruseError('error.image', `frame holds ${frame.data.length} bytes, ${frame.width}x${frame.height}x${frame.channels} needs ${need}`, {
      hint: 'This is a bug in the capture backend; capture again.',
    });
  }
  return { data: frame.data, raw: { width: frame.width, height: frame.height, channels: frame.channels } };
}

/** Expand RGB to RGBA (alpha 255). Faster in JS than a round trip through libvips for this one step. */
export function rgbToRgba(rgb: Buffer, pixels: number): Buffer {
  const out = Buffer.allocUnsafe(pixels * 4);
  for (let i = 0, j = 0; i < pixels; i++, j += 4) {
    const k = i * 3;
    out[j] = rgb[k];
    out[j + 1] = rgb[k + 1];
    out[j + 2] = rgb[k + 2];
    out[j + 3] = 255;
  }
  return out;
}

/**
 * The pixel box of a logical rect (global coordinates, the frame's own space)
 * inside a frame, clipped to it, and the exact logical geometry of that box,
 * so that `global = geometry.origin + pixel / scale` still holds.
 */
export function cropBox(frame: Pick<Frame, 'width' | 'height' | 'geometry' | 'scale'>, rect: Rect): { left: number; top: number; width: number; height: number; geometry: Rect } {
  const s = frame.scale;
  const eps = 1e-9;
  const left = Math.max(0, Math.floor((rect.x - frame.geometry.x) * s + eps));
  const top = Math.max(0, Math.floor((rect.y - frame.geometry.y) * s + eps));
  const right = Math.min(frame.width, Math.ceil((rect.x + rect.width - frame.geometry.x) * s - eps));
  const bottom = Math.min(frame.height, Math.ceil((rect.y + rect.height - frame.geometry.y) * s - eps));
  if (!(rect.width > 0 && rect.height > 0) || right <= left || bottom <= top) {
    const g = frame.geometry;
    throw new UsageError(`crop ${rect.width}x${rect.height} at ${rect.x},${rect.y} lies outside the captured area ${g.width}x${g.height} at ${g.x},${g.y}`, {
      code: 'usage.region',
      hint: 'Give a region (global logical pixels) that overlaps the captured monitor, window or region.',
    });
  }
  return {
    left,
    top,
    width: right - left,
    height: bottom - top,
    geometry: { x: frame.geometry.x + left / s, y: frame.geometry.y + top / s, width: (right - left) / s, height: (bottom - top) / s },
  };
}

/** Image pipeline on sharp/libvips: encode with the fit ladder, crop, draw marks, decode. */
export class SharpImaging implements Imaging {
  private async input(frame: Frame): Promise<Sharp> {
    const sharp = await loadSharp();
    const src = rawOrPng(frame);
    return src.raw ? sharp(src.data, { raw: src.raw }) : sharp(src.data);
  }

  async encode(frame: Frame, opts: EncodeOptions): Promise<EncodedImage> {
    const rungs = ladderFor(opts);
    if (opts.maxBytes !== undefined && !(opts.maxBytes > 0)) {
      throw new UsageError(`maxBytes ${opts.maxBytes} is out of range`, { hint: 'maxBytes is a positive byte count.' });
    }
    const f0 = startFraction(frame.width, frame.height, opts);
    let last: { bytes: number; width: number; height: number; format: string } | undefined;
    for (const rung of rungs) {
      const size = sizeAt(frame.width, frame.height, f0 * rung.factor, opts.maxEdge);
      let img = await this.input(frame);
      if (size.width !== frame.width || size.height !== frame.height) img = img.resize(size.width, size.height, { fit: 'fill' });
      img = rung.format === 'png' ? img.png({ palette: false, compressionLevel: 6, adaptiveFiltering: false }) : img.jpeg({ quality: rung.quality });
      let data: Buffer;
      try {
        data = await img.toBuffer();
      } catch (e) {
        throw new HypruseError('error.image', `encoding a ${size.width}x${size.height} ${rung.format} failed: ${e instanceof Error ? e.message : String(e)}`, {
          hint: 'Capture again; if it persists, report the frame size and format.',
          cause: e,
        });
      }
      if (opts.maxBytes === undefined || data.length <= opts.maxBytes) {
        return {
          data,
          mime: rung.format === 'png' ? 'image/png' : 'image/jpeg',
          format: rung.format,
          width: size.width,
          height: size.height,
          scale: (frame.scale * size.width) / frame.width,
          ...(rung.quality !== undefined ? { quality: rung.quality } : {}),
        };
      }
      last = { bytes: data.length, width: size.width, height: size.height, format: rung.quality !== undefined ? `${rung.format} q${rung.quality}` : rung.format };
    }
    throw new HypruseError(
      'error.image',
      `even a downscaled image does not fit the ${opts.maxBytes}-byte budget (smallest try: ${last?.width}x${last?.height} ${last?.format}, ${last?.bytes} bytes)`,
      { hint: 'Capture a window or a region (or zoom on a point) instead of the whole monitor.', data: { maxBytes: opts.maxBytes, bytes: last?.bytes } },
    );
  }

  async crop(frame: Frame, rect: Rect): Promise<Frame> {
    const base = frame.encoded ? await this.raw(frame) : frame;
    const box = cropBox(base, rect);
    const ch = base.channels;
    const rowBytes = box.width * ch;
    const out = Buffer.allocUnsafe(rowBytes * box.height);
    for (let row = 0; row < box.height; row++) {
      const from = ((box.top + row) * base.width + box.left) * ch;
      base.data.copy(out, row * rowBytes, from, from + rowBytes);
    }
    return { ...base, data: out, encoded: undefined, width: box.width, height: box.height, geometry: box.geometry };
  }

  async drawMarks(frame: Frame, marks: MarkSpec[]): Promise<Frame> {
    const img = await this.input(frame);
    const meta = frame.encoded ? await img.metadata() : { width: frame.width, height: frame.height };
    const width = meta.width ?? frame.width;
    const height = meta.height ?? frame.height;
    const svg = Buffer.from(marksSvg(width, height, marks));
    try {
      const { data, info } = await img.composite([{ input: svg, left: 0, top: 0 }]).raw().toBuffer({ resolveWithObject: true });
      return { ...frame, data, encoded: undefined, width: info.width, height: info.height, channels: info.channels === 4 ? 4 : 3 };
    } catch (e) {
      throw new HypruseError('error.image', `drawing ${marks.length} marks failed: ${e instanceof Error ? e.message : String(e)}`, {
        hint: 'Use the marks legend (positions in text) instead of the overlay.',
        cause: e,
      });
    }
  }

  async raw(frame: Frame): Promise<Frame> {
    if (!frame.encoded) {
      if (frame.channels === 4) return frame;
      return { ...frame, data: rgbToRgba(frame.data, frame.width * frame.height), channels: 4 };
    }
    if (frame.encoded === 'ppm') {
      const p = parsePpm(frame.data);
      return { ...frame, encoded: undefined, data: rgbToRgba(p.pixels, p.width * p.height), width: p.width, height: p.height, channels: 4 };
    }
    const img = await this.input(frame);
    const { data, info } = await img.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    return { ...frame, encoded: undefined, data, width: info.width, height: info.height, channels: 4 };
  }
}
