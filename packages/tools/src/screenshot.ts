import { z } from 'zod';
import {
  HypruseError, NotFoundError, UsageError, defineTool, fact, intersection, monitorAt, regionScale, type Rect, type Window,
} from '@hypruse/core';
import { findWindow, requirePosition, snapshot } from './common/desktop.js';
import { assertCapturable, captureFrame, deliverFrame, toplevelIdOf } from './common/image.js';
import { windowField } from './common/fields.js';
import { imageMeta } from './common/output.js';
import { assertInLayout, assertRegionInLayout } from './common/coords.js';

/** "x,y,WxH" or grim's "x,y WxH"; negative origins allowed; sizes must be > 0. */
export function parseRegion(s: string): Rect {
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*[, ]\s*(\d+(?:\.\d+)?)\s*x\s*(\d+(?:\.\d+)?)\s*$/i.exec(s);
  if (!m) throw new UsageError(`region "${s}" is not "x,y,WxH" (e.g. "100,200,640x480")`, { code: 'usage.region' });
  const [x, y, w, h] = m.slice(1).map(Number);
  if (!(w > 0 && h > 0)) throw new UsageError(`region "${s}" has a zero size; width and height must be > 0`, { code: 'usage.region' });
  return { x: Math.round(x), y: Math.round(y), width: Math.round(w), height: Math.round(h) };
}

export function parseSize(s: string): { width: number; height: number } {
  const m = /^\s*(\d+)\s*x\s*(\d+)\s*$/i.exec(s);
  if (!m || Number(m[1]) <= 0 || Number(m[2]) <= 0) throw new UsageError(`size "${s}" is not "WxH" with W,H > 0 (e.g. "480x360")`, { code: 'usage.region' });
  return { width: Number(m[1]), height: Number(m[2]) };
}

const scaleField = z
  .number()
  .refine((v) => v === 0 || (v >= 0.1 && v <= 1), 'scale is out of range: 0 (auto) or 0.1..1')
  .default(0)
  .describe('Extra downscale 0.1..1, or 0 for automatic (image mode fits the host limits).');

export const screenshotTool = defineTool({
  name: 'screenshot',
  title: 'Screenshot',
  effect: 'observe',
  description:
    'Capture the focused monitor, a window (address or "active") or a region "x,y,WxH" at native resolution. Returns the image (or a file path) with metadata: global = geometry[:2] + image_pixel / scale. Prefer ui/click_ui when the app exposes controls; use this for apps without an accessibility tree.',
  readonlyDescription:
    'Capture the focused monitor, a window (address or "active") or a region "x,y,WxH" at native resolution. Returns the image (or a file path) with metadata: global = geometry[:2] + image_pixel / scale. Prefer ui when the app exposes its controls.',
  input: z
    .object({
      window: windowField,
      region: fact(z.string().max(64)).default('').describe('Region "x,y,WxH" in global logical coordinates.'),
      monitor: fact(z.string().max(64)).default('').describe('Monitor name (default: the focused monitor).'),
      scale: scaleField,
      stable: z.boolean().default(false).describe('Re-capture until two frames match (up to 2 s), for animations.'),
      lossless: z.boolean().default(false).describe('PNG instead of JPEG.'),
    })
    .strict(),
  output: imageMeta,
  cli: { positional: [] },
  async handle(args, ctx) {
    const targets = [args.window, args.region, args.monitor].filter(Boolean).length;
    if (targets > 1) throw new UsageError('pass one of window, region or monitor, not several');
    const region = args.region ? parseRegion(args.region) : null;
    const d = await snapshot(ctx);
    if (region) {
      assertRegionInLayout('region', region, d.monitors);
      const scale = regionScale(d.monitors, region);
      const { frame, stable } = await captureFrame(ctx, { kind: 'region', rect: region, scale }, args.stable);
      return deliverFrame(ctx, frame, { lossless: args.lossless, scale: args.scale, stable, meta: { target: 'region' } });
    }
    if (args.window) {
      const w: Window = requirePosition(d, findWindow(d, args.window), 'a screenshot');
      assertCapturable(ctx, w);
      const scale = regionScale(d.monitors, w.geometry);
      const { frame, stable } = await captureFrame(ctx, { kind: 'window', address: w.address, geometry: w.geometry, scale, ...toplevelIdOf(w) }, args.stable);
      assertCapturable(ctx, w, frame);
      const visible = w.visible && d.monitors.some((m) => intersection(m.geometry, w.geometry));
      ctx.session.observed.set(w.address, { ...w.geometry });
      return deliverFrame(ctx, frame, {
        lossless: args.lossless,
        scale: args.scale,
        stable,
        meta: { target: 'window', window: w.address, class: w.class, visible },
      });
    }
    const mon = args.monitor
      ? d.monitors.find((m) => m.name === args.monitor)
      : (d.monitors.find((m) => m.focused) ?? d.monitors[0]);
    if (!mon) {
      if (args.monitor) throw new NotFoundError('not_found.monitor', `no monitor named ${args.monitor}; monitors: ${d.monitors.map((m) => m.name).join(', ')}`);
      throw new HypruseError('error.capture', 'the compositor reports no monitors');
    }
    const { frame, stable } = await captureFrame(ctx, { kind: 'output', name: mon.name, geometry: mon.geometry, scale: mon.scale }, args.stable);
    return deliverFrame(ctx, frame, { lossless: args.lossless, scale: args.scale, stable, meta: { target: 'monitor', monitor: mon.name } });
  },
});

export const zoomTool = defineTool({
  name: 'zoom',
  title: 'Zoom',
  effect: 'observe',
  description:
    'Native-resolution close-up around a global point (x, y), default 480x360 logical, kept inside the monitor (or the given window). Use it to refine a click estimate from a screenshot.',
  readonlyDescription: 'Native-resolution close-up around a global point (x, y), default 480x360 logical, kept inside the monitor (or the given window). Use it to read small details.',
  input: z
    .object({
      x: z.number().finite().describe('Global logical x of the point of interest.'),
      y: z.number().finite().describe('Global logical y of the point of interest.'),
      size: fact(z.string().max(16)).default('480x360').describe('Box size "WxH" in logical pixels.'),
      window: windowField,
      stable: z.boolean().default(false).describe('Re-capture until two frames match.'),
      lossless: z.boolean().default(false).describe('PNG instead of JPEG.'),
    })
    .strict(),
  output: imageMeta,
  cli: { positional: ['x', 'y'] },
  async handle(args, ctx) {
    const size = parseSize(args.size);
    const d = await snapshot(ctx);
    const point = { x: args.x, y: args.y };
    // a point off every monitor is refused, not slid to the nearest edge
    assertInLayout('x,y', point, d.monitors);
    let bounds: Rect;
    if (args.window) bounds = requirePosition(d, findWindow(d, args.window), 'zooming into').geometry;
    else {
      const m = monitorAt(d.monitors, point) ?? d.monitors.find((x) => x.focused) ?? d.monitors[0];
      if (!m) throw new HypruseError('error.capture', 'the compositor reports no monitors');
      bounds = m.geometry;
    }
    const box = zoomBox(point, size, bounds);
    const scale = regionScale(d.monitors, box);
    const { frame, stable } = await captureFrame(ctx, { kind: 'region', rect: box, scale }, args.stable);
    return deliverFrame(ctx, frame, { lossless: args.lossless, scale: 0, stable, meta: { target: 'zoom', point: [args.x, args.y] } });
  },
});

/** A box of `size` centred on `p`, slid inside `bounds`, shrunk only if larger than them. */
export function zoomBox(p: { x: number; y: number }, size: { width: number; height: number }, bounds: Rect): Rect {
  const width = Math.min(size.width, bounds.width);
  const height = Math.min(size.height, bounds.height);
  let x = Math.round(p.x - width / 2);
  let y = Math.round(p.y - height / 2);
  x = Math.max(bounds.x, Math.min(x, bounds.x + bounds.width - width));
  y = Math.max(bounds.y, Math.min(y, bounds.y + bounds.height - height));
  return { x, y, width, height };
}
