/**
 * The fields hypruse reads from Hyprland's JSON replies (C.1.3). Every field is
 * optional: versions add and remove fields, unknown fields are ignored.
 */
export interface RawWorkspaceRef {
  id?: number;
  name?: string;
  /** 0.57+: the workspace's key ("1", or "special:NAME"); a special workspace has no `id` there */
  address?: string;
  type?: string;
}

export interface RawMonitor {
  id?: number;
  name?: string;
  description?: string;
  width?: number;
  height?: number;
  x?: number;
  y?: number;
  scale?: number;
  transform?: number;
  focused?: boolean;
  activeWorkspace?: RawWorkspaceRef;
  specialWorkspace?: RawWorkspaceRef;
  disabled?: boolean;
}

export interface RawWorkspace {
  id?: number;
  name?: string;
  address?: string;
  type?: string;
  monitor?: string;
  monitorID?: number | null;
  windows?: number;
  hasfullscreen?: boolean;
}

export interface RawClient {
  address?: string;
  mapped?: boolean;
  hidden?: boolean;
  visible?: boolean;
  at?: [number, number];
  size?: [number, number];
  workspace?: RawWorkspaceRef;
  floating?: boolean;
  monitor?: number;
  class?: string;
  title?: string;
  initialClass?: string;
  initialTitle?: string;
  pid?: number;
  xwayland?: boolean;
  pinned?: boolean;
  fullscreen?: number | boolean;
  fullscreenClient?: number;
  tags?: string[];
  stableId?: string;
  focusHistoryID?: number;
}

export interface RawLayerEntry {
  address?: string;
  x?: number;
  y?: number;
  w?: number;
  h?: number;
  namespace?: string;
  pid?: number;
}

export type RawLayers = Record<string, { levels?: Record<string, RawLayerEntry[]> }>;

export interface RawCursor {
  x?: number;
  y?: number;
}

export interface RawBind {
  locked?: boolean;
  mouse?: boolean;
  release?: boolean;
  repeat?: boolean;
  modmask?: number;
  submap?: string;
  key?: string;
  keycode?: number;
  catch_all?: boolean;
  description?: string;
  has_description?: boolean;
  dispatcher?: string;
  arg?: string;
}
