/**
 * niri IPC shapes (niri-ipc crate, serde JSON). Only the fields hypruse reads
 * are typed; niri adds fields in any release, so unknown fields are ignored
 * and optional ones may be missing on older versions.
 */

/** `Transform` as serialised: `Normal`, `90`, `180`, `270`, `Flipped`, `Flipped90`, `Flipped180`, `Flipped270`. */
export type NiriTransform = string;

export interface NiriLogicalOutput {
  x: number;
  y: number;
  width: number;
  height: number;
  scale: number;
  transform: NiriTransform;
}

export interface NiriMode {
  width: number;
  height: number;
  refresh_rate: number;
  is_preferred?: boolean;
}

export interface NiriOutput {
  name: string;
  make?: string;
  model?: string;
  serial?: string | null;
  modes?: NiriMode[];
  current_mode?: number | null;
  logical?: NiriLogicalOutput | null;
}

export interface NiriWorkspace {
  id: number;
  idx: number;
  name?: string | null;
  output?: string | null;
  is_urgent?: boolean;
  is_active: boolean;
  is_focused: boolean;
  active_window_id?: number | null;
}

/** Window layout (niri ≥ 25.08): logical px, possibly fractional. `tile_pos_in_workspace_view` is set for floating windows only. */
export interface NiriWindowLayout {
  pos_in_scrolling_layout?: [number, number] | null;
  tile_size?: [number, number];
  window_size?: [number, number];
  tile_pos_in_workspace_view?: [number, number] | null;
  window_offset_in_tile?: [number, number];
}

export interface NiriWindow {
  id: number;
  title?: string | null;
  app_id?: string | null;
  pid?: number | null;
  workspace_id?: number | null;
  is_focused: boolean;
  is_floating?: boolean;
  is_urgent?: boolean;
  /** Absent before niri 25.08. */
  layout?: NiriWindowLayout | null;
}

export interface NiriLayerSurface {
  namespace: string;
  output: string;
  /** `Background` | `Bottom` | `Top` | `Overlay` */
  layer: string;
  /** `None` | `Exclusive` | `OnDemand` */
  keyboard_interactivity?: string;
}

export type WorkspaceReference = { Id: number } | { Index: number } | { Name: string };

/** A request: unit variants are bare strings, the others externally tagged objects. */
export type NiriRequest =
  | 'Version'
  | 'Outputs'
  | 'Workspaces'
  | 'Windows'
  | 'Layers'
  | 'KeyboardLayouts'
  | 'FocusedOutput'
  | 'FocusedWindow'
  | 'EventStream'
  | 'ReturnError'
  | { Action: Record<string, unknown> };

/** A raw event line: `{"VariantName": {...fields}}`. */
export type NiriEvent = Record<string, unknown>;

/** Name of a request for messages: `Windows`, `Action FocusWindow`. */
export function requestName(req: NiriRequest): string {
  if (typeof req === 'string') return req;
  const action = Object.keys(req.Action)[0] ?? '?';
  return `Action ${action}`;
}
