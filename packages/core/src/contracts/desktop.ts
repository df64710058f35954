import type { Point, Rect } from './geometry.js';

/** A monitor (output). `geometry` is logical: physical mode divided by scale, axes swapped for odd transforms. */
export interface Monitor {
  name: string;
  geometry: Rect;
  scale: number;
  /** wl_output transform, 0..7. */
  transform: number;
  focused: boolean;
  /** id of the workspace shown on this monitor, if any. */
  activeWorkspace: string | null;
  /** physical pixel size of the current mode. */
  physical?: { width: number; height: number };
  description?: string;
}

export interface Workspace {
  /** Stable key used by windows' `workspace` field (Hyprland numeric id, sway name, niri id). */
  id: string;
  name: string;
  monitor: string | null;
  windows: number;
  visible: boolean;
  focused: boolean;
  special?: boolean;
  /** The workspace asks for attention (ext-workspace-v1's urgent state). */
  urgent?: boolean;
  /** The compositor asks clients not to show this workspace (ext-workspace-v1's hidden state). */
  hidden?: boolean;
  /** Set when the compositor does not say which windows are on it: why (`windows` is then 0 and means nothing). */
  windowsUnknown?: string;
  /** Its place in the compositor's grid of workspaces, when the compositor gives one (ext-workspace-v1). */
  coordinates?: number[];
}

export interface Window {
  /** Stable string handle: Hyprland `0x...`, sway con id, niri window id. */
  address: string;
  class: string;
  title: string;
  pid: number | null;
  /** Content geometry in global logical coordinates. */
  geometry: Rect;
  /** Workspace id (see Workspace.id), null when not on any workspace. */
  workspace: string | null;
  floating: boolean;
  fullscreen: boolean;
  /** Currently shown on some monitor. */
  visible: boolean;
  focused: boolean;
  hidden?: boolean;
  urgent?: boolean;
  /**
   * Set when the compositor reports no on-screen position for this window
   * (niri: every tiled window): why. `geometry` then carries the size only;
   * its x/y are not a position, and tools that need a point in the window refuse.
   */
  positionUnknown?: string;
  /** Set when the compositor reports no workspace for the window: why (`workspace` is then null). */
  workspaceUnknown?: string;
  /** Set when the compositor reports no process for the window: why (`pid` is then null). */
  pidUnknown?: string;
  /** Compositor-specific extras (tags, shell, ...). */
  extra?: Record<string, unknown>;
}

export type LayerKind = 'launcher' | 'lock' | 'osk' | 'notification' | 'bar' | 'background' | 'other';
export type LayerLevel = 'background' | 'bottom' | 'top' | 'overlay';

export interface LayerSurface {
  namespace: string;
  kind: LayerKind;
  level: LayerLevel;
  monitor: string | null;
  geometry: Rect;
  keyboardInteractive?: boolean;
  pid?: number | null;
}

export interface Cursor extends Point {
  /** `compositor`: read from the compositor; `hypruse`: where hypruse last put it (the compositor cannot report it). */
  source: 'compositor' | 'hypruse';
}

export interface Desktop {
  compositor: string;
  monitors: Monitor[];
  workspaces: Workspace[];
  windows: Window[];
  activeWindow: string | null;
  activeWorkspace: string | null;
  cursor: Cursor | null;
  /** null when the compositor cannot list layer surfaces. */
  layers: LayerSurface[] | null;
}

export type DesktopEvent =
  | { type: 'window_open'; address: string; class?: string; title?: string; workspace?: string; pid?: number | null }
  /** `class` and `title` are the ones the window had, when the consumer's model knows them (compositors send only the address). */
  | { type: 'window_close'; address: string; class?: string; title?: string }
  | { type: 'window_move'; address: string; workspace?: string }
  | { type: 'title_change'; address: string; title: string; class?: string }
  | { type: 'focus'; address: string | null }
  | { type: 'fullscreen'; address: string | null; fullscreen: boolean }
  | { type: 'floating'; address: string; floating: boolean }
  | { type: 'workspace'; name: string; id?: string; monitor?: string }
  | { type: 'layer_open'; namespace: string; kind: LayerKind }
  | { type: 'layer_close'; namespace: string; kind: LayerKind }
  | { type: 'urgent'; address: string }
  | { type: 'screencast'; active: boolean; owner?: string }
  | { type: 'binding'; command: string; combo?: string }
  | { type: 'monitor'; name: string; change: 'added' | 'removed' | 'changed' }
  | { type: 'shutdown' }
  /**
   * The event connection was re-established: events in the gap may be
   * missing. Whoever waits on a condition re-checks it against a fresh
   * snapshot. The one name for this in every compositor plugin.
   */
  | { type: 'resync'; reason: string }
  | { type: 'other'; name: string; data: unknown };

export type DesktopEventType = DesktopEvent['type'];
