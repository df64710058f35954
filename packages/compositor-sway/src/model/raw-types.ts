/** The parts of sway's IPC JSON that hypruse reads (sway-ipc(7)); unknown fields are ignored. */
export interface SwayRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface SwayNode {
  id: number;
  type: 'root' | 'output' | 'workspace' | 'con' | 'floating_con' | string;
  name: string | null;
  rect: SwayRect;
  window_rect?: SwayRect;
  deco_rect?: SwayRect;
  focused: boolean;
  focus?: number[];
  urgent?: boolean;
  marks?: string[];
  nodes: SwayNode[];
  floating_nodes: SwayNode[];
  fullscreen_mode?: number;
  sticky?: boolean;
  /** windows */
  pid?: number;
  app_id?: string | null;
  visible?: boolean;
  shell?: string;
  window?: number | null;
  window_properties?: { class?: string; instance?: string; title?: string; window_role?: string; window_type?: string };
  foreign_toplevel_identifier?: string;
  /** workspaces */
  num?: number;
  output?: string;
  /** outputs (also present on output nodes of the tree) */
  scale?: number;
  transform?: string;
  current_workspace?: string | null;
  current_mode?: { width: number; height: number; refresh?: number };
  make?: string;
  model?: string;
  serial?: string;
  active?: boolean;
}

export interface SwayOutput {
  name: string;
  active: boolean;
  focused?: boolean;
  scale: number;
  transform: string;
  rect: SwayRect;
  current_workspace: string | null;
  current_mode?: { width: number; height: number; refresh?: number };
  make?: string;
  model?: string;
  serial?: string;
}

export interface SwayWorkspace {
  num: number;
  name: string;
  visible: boolean;
  focused: boolean;
  urgent: boolean;
  rect: SwayRect;
  output: string;
}

export interface SwayCommandResult {
  success: boolean;
  error?: string;
  parse_error?: boolean;
}

export interface SwayVersion {
  major: number;
  minor: number;
  patch: number;
  human_readable: string;
  loaded_config_file_name?: string;
}
