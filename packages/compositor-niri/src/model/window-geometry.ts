import { round6, type Rect } from '@hypruse/core';
import type { NiriLogicalOutput, NiriWindow } from '../ipc/types.js';

/**
 * Why a tiled niri window has no position: niri's IPC (25.08, 25.11 and its
 * main branch of early 2026) fills `tile_pos_in_workspace_view` only for floating windows
 * (`FloatingSpace::tiles_with_ipc_layouts`); a tiled tile reports only its
 * column and tile index, and the view's scroll offset is not exposed.
 */
export const TILED_POSITION_REASON =
  "niri reports no on-screen position for tiled windows: its IPC gives a tiled window only its column and tile index (tile_pos_in_workspace_view is set for floating windows only, and the view's scroll offset is not exposed)";

export const NO_LAYOUT_REASON = 'niri before 25.08 reports no window layout (no size, no position)';

export interface WindowPlacement {
  /**
   * Global logical geometry of the window's content. Exact when `source` is
   * `layout`; otherwise `positionUnknown` says why not and only the size (for
   * `size-only`) is niri's: x/y are then the output origin, not a position.
   */
  geometry: Rect;
  /**
   * `layout`: exact, from niri's window layout (output origin + tile position in
   * the workspace view + window offset in the tile); niri gives it to floating windows.
   * `size-only`: niri reports the size but no position (every tiled window).
   * `unknown`: niri sent no layout (before 25.08) or the window has no output;
   * the rect is the output's logical box (or 0,0,0,0 without an output).
   */
  source: 'layout' | 'size-only' | 'unknown';
  /** Set when niri gives no position: why. */
  positionUnknown?: string;
  /** niri gives no fullscreen flag: true when a tiled window's tile is exactly the output's logical size (how niri lays out a fullscreen window). */
  fullscreen: boolean;
}

const EPS = 0.5;

/** Global logical geometry of a window's content, per COMPOSITOR-IPC C.3.3 / C.5. */
export function windowPlacement(win: NiriWindow, output: NiriLogicalOutput | null): WindowPlacement {
  const layout = win.layout ?? null;
  const ox = output?.x ?? 0;
  const oy = output?.y ?? 0;
  if (!layout || !layout.window_size) {
    const geometry = output ? { x: ox, y: oy, width: output.width, height: output.height } : { x: 0, y: 0, width: 0, height: 0 };
    return { geometry, source: 'unknown', positionUnknown: output ? NO_LAYOUT_REASON : 'the window is on no output', fullscreen: false };
  }
  const [w, h] = layout.window_size;
  const tile = layout.tile_size ?? [w, h];
  // A fullscreen tile is exactly the output's logical size (whatever the view scroll); a maximized
  // column still has gaps, a floating window is never fullscreen in niri's tiling sense.
  const fullscreen = output !== null && win.is_floating !== true && Math.abs(tile[0] - output.width) < EPS && Math.abs(tile[1] - output.height) < EPS;
  const tilePos = layout.tile_pos_in_workspace_view ?? null;
  if (!tilePos || !output) {
    return {
      geometry: { x: ox, y: oy, width: w, height: h },
      source: 'size-only',
      positionUnknown: output ? TILED_POSITION_REASON : 'the window is on no output',
      fullscreen,
    };
  }
  const [offX, offY] = layout.window_offset_in_tile ?? [0, 0];
  const geometry = { x: round6(ox + tilePos[0] + offX), y: round6(oy + tilePos[1] + offY), width: w, height: h };
  return { geometry, source: 'layout', fullscreen };
}
