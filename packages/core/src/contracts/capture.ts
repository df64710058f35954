import type { Rect } from './geometry.js';

export type CaptureTarget =
  | { kind: 'output'; name: string; geometry: Rect; scale: number }
  | { kind: 'region'; rect: Rect; scale: number }
  /**
   * `toplevelId`: the window's ext_foreign_toplevel_list_v1 identifier when the compositor names it, for `grim -T`;
   * `exportHandle`: its handle in a compositor's own toplevel-export protocol, when the compositor plugin gives one.
   */
  | { kind: 'window'; address: string; geometry: Rect; scale: number; toplevelId?: string; exportHandle?: number };

/** Raw pixels of a capture. `scale` = pixels per logical unit, so global = geometry.origin + pixel / scale. */
export interface Frame {
  /** Raw RGBA (channels 4) or RGB (channels 3) pixels, or an encoded PNG/PPM when `encoded` is set. */
  data: Buffer;
  encoded?: 'png' | 'ppm';
  width: number;
  height: number;
  channels: 3 | 4;
  geometry: Rect;
  scale: number;
  /** `window`: the toplevel's own pixels; `crop`: a crop of the screen (whatever is on top); `output`, `region`. */
  source: 'output' | 'region' | 'window' | 'crop';
  /** How it was captured, e.g. `grim` or `screencopy`. */
  via: string;
}

export interface Capture {
  describe(): Promise<string>;
  capture(target: CaptureTarget, signal?: AbortSignal): Promise<Frame>;
  /** Release connections kept between captures (in-process screencopy). */
  dispose?(): Promise<void>;
}

export interface EncodeOptions {
  format: 'jpeg' | 'png';
  quality?: number;
  /** 0..1 extra downscale requested by the caller (0 or 1 = none). */
  fraction?: number;
  maxEdge?: number;
  maxBytes?: number;
}

export interface EncodedImage {
  data: Buffer;
  mime: 'image/jpeg' | 'image/png';
  format: 'jpeg' | 'png';
  width: number;
  height: number;
  /** pixels per logical unit after any downscale */
  scale: number;
  quality?: number;
}

export interface MarkSpec {
  /** pixel position in the frame */
  x: number;
  y: number;
  label: string;
}

/** The image pipeline (sharp): encode, fit, crop, overlay. */
export interface Imaging {
  encode(frame: Frame, opts: EncodeOptions): Promise<EncodedImage>;
  /** Crop a frame to a logical rect inside it. */
  crop(frame: Frame, rect: Rect): Promise<Frame>;
  /** Draw numbered marks onto a frame. */
  drawMarks(frame: Frame, marks: MarkSpec[]): Promise<Frame>;
  /** Raw pixels (RGBA) of a frame, decoding if needed. */
  raw(frame: Frame): Promise<Frame>;
}
