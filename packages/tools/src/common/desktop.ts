import {
  HypruseError, NotFoundError, Tokens, UsageError, type Compositor, type Desktop, type ToolContext, type Window,
} from '@hypruse/core';

export function compositorOf(ctx: ToolContext): Compositor {
  return ctx.services.get(Tokens.Compositor);
}

/** A fresh snapshot; the geometry of every window is remembered for the stale-observation guard. */
export async function snapshot(ctx: ToolContext): Promise<Desktop> {
  const d = await compositorOf(ctx).snapshot(ctx.signal);
  return d;
}

/** Resolve "active"/"" or an address against the live desktop. */
export function findWindow(d: Desktop, window: string): Window {
  if (!window || window === 'active') {
    const w = d.windows.find((x) => x.address === d.activeWindow) ?? d.windows.find((x) => x.focused);
    if (!w) throw new NotFoundError('not_found.window', 'no window is focused', { hint: 'pass window= with an address from desktop' });
    return w;
  }
  const w = d.windows.find((x) => x.address === window || x.address.toLowerCase() === window.toLowerCase());
  if (!w) {
    throw new NotFoundError('not_found.window', `no window with address ${window}`, {
      hint: 'call desktop for current addresses (the window may have closed)',
    });
  }
  return w;
}

export async function resolveWindow(ctx: ToolContext, window: string): Promise<{ desktop: Desktop; window: Window }> {
  const desktop = await snapshot(ctx);
  return { desktop, window: findWindow(desktop, window) };
}

export function requireCapability(ctx: ToolContext, cap: Parameters<Compositor['capabilities']['has']>[0], what: string): void {
  const c = compositorOf(ctx);
  if (!c.capabilities.has(cap)) {
    throw new HypruseError('unsupported.capability', `not supported on ${c.displayName}: ${what} (${c.unsupportedReason(cap)})`, {
      data: { compositor: c.id, capability: cap },
    });
  }
}

export function assertAddress(window: string): void {
  if (window && window !== 'active' && !/^[A-Za-z0-9_:.-]+$/.test(window)) {
    throw new UsageError(`'${window}' is not a window address; use the \`address\` field from desktop`, { code: 'usage.address' });
  }
}

/**
 * A window whose on-screen position the compositor reports, for a tool that
 * needs a point inside it (capture, AT-SPI points, marks, zoom). Where the
 * compositor gives no position (niri: tiled windows) the tool refuses rather
 * than act at a guessed place.
 */
export function requirePosition(d: Desktop, w: Window, what: string): Window {
  if (w.positionUnknown === undefined) return w;
  throw new HypruseError('unsupported.capability', `not supported on ${d.compositor}: ${what} of window ${w.address} (${w.positionUnknown})`, {
    hint: w.floating
      ? 'call desktop again once the window has settled'
      : 'make the window floating (toggle_floating): a compositor that does not report where it tiles a window may report where a floating one is; or work from a screenshot of the output in screen coordinates',
    data: { compositor: d.compositor, capability: 'window.position', window: w.address },
  });
}
