import { mkdir, readdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  COORDS_HINT, HypruseError, Tokens, rectTuple, result, round6, runtimeDir, type CaptureTarget, type EncodedImage, type Frame,
  type ImageMeta, type ToolContext, type ToolResult,
} from '@hypruse/core';
import { sleep } from './pointer.js';

let seq = 0;

/** Capture; with `stable`, re-capture every 150 ms (≤2 s) until two frames are pixel-identical. */
export async function captureFrame(ctx: ToolContext, target: CaptureTarget, stable: boolean): Promise<{ frame: Frame; stable?: boolean }> {
  const capture = ctx.services.get(Tokens.Capture);
  const imaging = ctx.services.get(Tokens.Imaging);
  let frame = await capture.capture(target, ctx.signal);
  if (!stable) return { frame };
  let prev = await imaging.raw(frame);
  const deadline = Date.now() + 2000;
  while (Date.now() < deadline) {
    await sleep(150, ctx.signal);
    frame = await capture.capture(target, ctx.signal);
    const cur = await imaging.raw(frame);
    if (cur.data.equals(prev.data)) return { frame: cur, stable: true };
    prev = cur;
  }
  return { frame: prev, stable: false };
}

/** Write a screenshot file under $XDG_RUNTIME_DIR/hypruse, keeping the newest `keep` (by time, not by name). */
export async function saveShot(img: EncodedImage, keep: number): Promise<string> {
  const base = runtimeDir();
  if (!base) throw new HypruseError('error.capture', 'XDG_RUNTIME_DIR is not set, so there is nowhere private to save screenshots', { hint: 'set XDG_RUNTIME_DIR or HYPRUSE_SCREENSHOT_MODE=image' });
  const dir = join(base, 'hypruse');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const name = `shot-${Date.now()}-${String(seq++ % 1000).padStart(3, '0')}.${img.format === 'png' ? 'png' : 'jpg'}`;
  const path = join(dir, name);
  await writeFile(path, img.data, { mode: 0o600 });
  const shots = (await readdir(dir)).filter((f) => /^shot-\d+-\d+\.(jpg|png)$/.test(f));
  const byAge = shots
    .map((f) => { const m = /^shot-(\d+)-(\d+)/.exec(f)!; return { f, t: Number(m[1]) * 1000 + Number(m[2]) }; })
    .sort((a, b) => b.t - a.t);
  await Promise.all(byAge.slice(keep).map(({ f }) => unlink(join(dir, f)).catch(() => undefined)));
  return path;
}

export interface DeliverOptions {
  lossless: boolean;
  /** explicit 0<f≤1 downscale, or 0 for auto */
  scale: number;
  meta: Omit<ImageMeta, 'geometry' | 'image' | 'format' | 'scale' | 'coords' | 'source'> & Partial<ImageMeta>;
  stable?: boolean;
  headline?: string;
}

/** Encode a frame and deliver it as a file (default) or an inline image, with the coordinate-contract metadata. */
export async function deliverFrame(ctx: ToolContext, frame: Frame, opts: DeliverOptions): Promise<ToolResult> {
  const imaging = ctx.services.get(Tokens.Imaging);
  const shot = ctx.config.screenshot;
  const imageMode = shot.mode === 'image';
  let fraction = opts.scale > 0 ? opts.scale : 1;
  if (imageMode && !(opts.scale > 0)) fraction = Math.min(1, shot.maxImageEdge / Math.max(frame.width, frame.height));
  const img = await imaging.encode(frame, {
    format: opts.lossless ? 'png' : 'jpeg',
    quality: shot.quality,
    fraction,
    maxEdge: imageMode ? shot.maxImageEdge : undefined,
    maxBytes: imageMode ? shot.maxImageBytes : undefined,
  });
  const meta: ImageMeta = {
    ...opts.meta,
    target: opts.meta.target ?? 'monitor',
    geometry: rectTuple(frame.geometry),
    image: [img.width, img.height],
    format: img.format,
    scale: round6(img.scale),
    coords: COORDS_HINT,
    source: frame.source,
    ...(opts.stable !== undefined ? { stable: opts.stable } : {}),
  };
  const r = result();
  if (imageMode) {
    r.image(img.data, img.mime);
    r.text(opts.headline ?? `${meta.target} ${img.width}x${img.height} ${img.format}`);
  } else {
    const path = await saveShot(img, shot.keep);
    meta.path = path;
    r.text(`${opts.headline ? `${opts.headline}; ` : ''}screenshot saved, read this file to view the screen: ${path}`);
  }
  r.text(JSON.stringify(meta));
  return r.data(meta as Record<string, unknown>).build();
}
