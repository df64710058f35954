import { Tokens, layoutBounds, type Point, type Rect, type ToolContext } from '@hypruse/core';
import { compositorOf, snapshot } from './desktop.js';

/** Where hypruse last put the cursor, per session (sway and niri cannot report it). */
export function lastCursor(ctx: ToolContext): Point | null {
  return (ctx.session.bag.get('cursor') as Point | undefined) ?? null;
}

/**
 * Put the pointer at a global logical point through the compositor
 * (movecursor / seat cursor set); on compositors without cursor IPC (niri),
 * through the virtual pointer's absolute motion over the output layout.
 */
export async function positionPointer(ctx: ToolContext, p: Point): Promise<void> {
  const comp = compositorOf(ctx);
  const point = { x: Math.round(p.x), y: Math.round(p.y) };
  if (comp.capabilities.has('cursor.set')) {
    await comp.moveCursor(point);
  } else {
    const d = await snapshot(ctx);
    await ctx.services.get(Tokens.Input).moveAbsolute(point, layoutBounds(d.monitors));
  }
  ctx.session.bag.set('cursor', point);
}

/**
 * Move the pointer while a button is held (the moves of a drag) with the
 * virtual pointer's absolute motion over the output layout. A compositor
 * warp is not enough here: sway's `seat cursor set` moves the cursor but
 * sends no motion to the surface holding the implicit grab, so a slider or
 * a selection never follows. Motion from the device goes through the seat
 * like a real mouse on every compositor.
 */
export async function moveHeldPointer(ctx: ToolContext, p: Point, layout: Rect): Promise<void> {
  const point = { x: Math.round(p.x), y: Math.round(p.y) };
  await ctx.services.get(Tokens.Input).moveAbsolute(point, layout);
  ctx.session.bag.set('cursor', point);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => { clearTimeout(t); reject(signal!.reason); };
    const t = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
