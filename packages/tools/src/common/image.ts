import {
  COORDS_HINT, HypruseError, Tokens, rectTuple, result, round6, runtimeDir, saveShot, stableCapture, withIndicatorHidden, type CaptureTarget, type Frame, type Window,
  type ImageMeta, type ToolContext, type ToolResult,
} from '@hypruse/core';

/**
 * A window capture on a compositor without toplevel capture is a screen crop:
 * refuse it for a hidden window. Called before capturing (from the declared
 * capability) and after (`frame`: the backend fell back to a crop anyway).
 */
export function assertCapturable(ctx: ToolContext, w: Window, frame?: Frame): void {
  const comp = ctx.services.get(Tokens.Compositor);
  if (w.visible) return;
  if (frame ? frame.source !== 'crop' : comp.capabilities.has('capture.toplevel')) return;
  throw new HypruseError('unsupported.capability', `window ${w.address} is not shown on any monitor, and ${comp.displayName} cannot capture a hidden window (${comp.unsupportedReason('capture.toplevel')})`, {
    hint: ctx.config.background
      ? 'in background mode nothing is brought into view for a capture: read it with ui or get_text, or ask the person to show it'
      : `show it first (focus_window ${w.address}), then capture it`,
    data: { compositor: comp.id, capability: 'capture.toplevel' },
  });
}

/** The window's ext-foreign-toplevel identifier (`extra.toplevelId`), when its compositor plugin reports one. */
export function toplevelIdOf(w: Window): { toplevelId?: string; exportHandle?: number } {
  const id = w.extra?.toplevelId;
  const handle = w.extra?.exportHandle;
  return { ...(typeof id === 'string' && id ? { toplevelId: id } : {}), ...(typeof handle === 'number' && Number.isInteger(handle) ? { exportHandle: handle } : {}) };
}

/** Capture; with `stable`, re-capture every 150 ms (≤2 s) until two frames are pixel-identical. */
export async function captureFrame(ctx: ToolContext, target: CaptureTarget, stable: boolean): Promise<{ frame: Frame; stable?: boolean }> {
  const capture = ctx.services.get(Tokens.Capture);
  // the on-screen indicator is unmapped (and the compositor confirmed it) before the first pixel is read
  return withIndicatorHidden(ctx.services, ctx.signal, async () => {
    if (!stable) return { frame: await capture.capture(target, ctx.signal) };
    return stableCapture(capture, ctx.services.get(Tokens.Imaging), target, { signal: ctx.signal });
  });
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
  rememberShot(ctx, meta);
  const r = result();
  if (imageMode) {
    r.image(img.data, img.mime);
    r.text(opts.headline ?? `${meta.target} ${img.width}x${img.height} ${img.format}`);
  } else {
    const dir = runtimeDir(ctx.env);
    if (!dir) throw new HypruseError('error.capture', 'XDG_RUNTIME_DIR is not set, so there is nowhere private to save screenshots', { hint: 'set XDG_RUNTIME_DIR, or HYPRUSE_SCREENSHOT_MODE=image' });
    const path = await saveShot(dir, img, shot.keep);
    meta.path = path;
    r.text(`${opts.headline ? `${opts.headline}; ` : ''}screenshot saved, read this file to view the screen: ${path}`);
  }
  r.text(JSON.stringify(meta));
  return r.data(meta as Record<string, unknown>).build();
}

/** The pixel-to-global transform of the last image hypruse delivered (screenshot, zoom, marks), per session. */
export interface ShotTransform {
  /** Global logical rect the image shows. */
  geometry: [number, number, number, number];
  /** Image pixels per logical pixel. */
  scale: number;
  image: [number, number];
  target: ImageMeta['target'];
  window?: string;
}

export const SHOT_KEY = 'shot';

function rememberShot(ctx: ToolContext, meta: ImageMeta): void {
  const t: ShotTransform = { geometry: [...meta.geometry] as ShotTransform['geometry'], scale: meta.scale, image: [...meta.image] as [number, number], target: meta.target, ...(typeof meta.window === 'string' && meta.window ? { window: meta.window } : {}) };
  ctx.session.bag.set(SHOT_KEY, t);
}

export function lastShot(ctx: ToolContext): ShotTransform | null {
  return (ctx.session.bag.get(SHOT_KEY) as ShotTransform | undefined) ?? null;
}

/** A pixel of the last image to global logical coordinates: global = geometry[:2] + pixel / scale. */
export function shotToGlobal(t: ShotTransform, px: { x: number; y: number }): { x: number; y: number } {
  return { x: t.geometry[0] + px.x / t.scale, y: t.geometry[1] + px.y / t.scale };
}
