import type { Cursor, Desktop, Monitor, Window, Workspace } from '@hypruse/core';
import type { SwayNode, SwayRect } from './raw-types.js';

/** The name sway gives the hidden workspace holding scratchpad windows. */
export const SCRATCH_WORKSPACE = '__i3_scratch';
/** The id of the pseudo output (`__i3`) that holds the scratchpad. */
const SCRATCH_OUTPUT = '__i3';

const TRANSFORMS: Record<string, number> = {
  normal: 0,
  '90': 1,
  '180': 2,
  '270': 3,
  flipped: 4,
  'flipped-90': 5,
  'flipped-180': 6,
  'flipped-270': 7,
};

/** sway's transform string -> wl_output transform 0..7 (unknown strings map to 0). */
export function transformNumber(t: string | undefined): number {
  return t ? (TRANSFORMS[t] ?? 0) : 0;
}

function rect(r: SwayRect): { x: number; y: number; width: number; height: number } {
  return { x: r.x, y: r.y, width: r.width, height: r.height };
}

/** A leaf container that holds a client (xdg_shell or xwayland). */
export function isWindowNode(n: SwayNode): boolean {
  return (n.type === 'con' || n.type === 'floating_con') && (n.pid !== undefined || n.app_id !== undefined || n.shell !== undefined);
}

/** Content geometry: the node rect plus the content offset `window_rect` (sway-ipc(7)). */
export function contentGeometry(n: SwayNode): { x: number; y: number; width: number; height: number } {
  const wr = n.window_rect;
  if (!wr || wr.width === 0 || wr.height === 0) return rect(n.rect);
  return { x: n.rect.x + wr.x, y: n.rect.y + wr.y, width: wr.width, height: wr.height };
}

/** app_id for Wayland clients, WM_CLASS class for XWayland ones. */
export function windowClass(n: SwayNode): string {
  return n.app_id ?? n.window_properties?.class ?? n.window_properties?.instance ?? '';
}

export function windowFromNode(n: SwayNode, workspace: string | null, floating: boolean, focusedId: number | null): Window {
  const hidden = workspace === SCRATCH_WORKSPACE;
  const extra: Record<string, unknown> = { shell: n.shell ?? null };
  if (n.marks && n.marks.length > 0) extra.marks = [...n.marks];
  if (n.foreign_toplevel_identifier) extra.toplevelId = n.foreign_toplevel_identifier;
  if (n.sticky) extra.sticky = true;
  if (n.window != null) extra.x11Window = n.window;
  return {
    address: String(n.id),
    class: windowClass(n),
    title: n.name ?? n.window_properties?.title ?? '',
    pid: typeof n.pid === 'number' && n.pid > 0 ? n.pid : null,
    geometry: contentGeometry(n),
    workspace,
    floating,
    fullscreen: (n.fullscreen_mode ?? 0) !== 0,
    visible: !hidden && n.visible === true,
    focused: focusedId !== null ? n.id === focusedId : n.focused === true,
    ...(hidden ? { hidden: true } : {}),
    ...(n.urgent ? { urgent: true } : {}),
    extra,
  };
}

/** Every window under `node`, tiled first then floating, depth first in tree order. */
export function collectWindows(node: SwayNode, workspace: string | null, floating: boolean, focusedId: number | null, out: Window[]): void {
  if (isWindowNode(node)) out.push(windowFromNode(node, workspace, floating, focusedId));
  for (const c of node.nodes ?? []) collectWindows(c, workspace, floating, focusedId, out);
  for (const c of node.floating_nodes ?? []) collectWindows(c, workspace, true, focusedId, out);
}

/** The node with `focused: true` (seat0), if any. */
export function findFocused(node: SwayNode): SwayNode | null {
  if (node.focused) return node;
  for (const c of [...(node.nodes ?? []), ...(node.floating_nodes ?? [])]) {
    const f = findFocused(c);
    if (f) return f;
  }
  return null;
}

/** Find a node by con id anywhere in the tree. */
export function findNode(node: SwayNode, id: number): SwayNode | null {
  if (node.id === id) return node;
  for (const c of [...(node.nodes ?? []), ...(node.floating_nodes ?? [])]) {
    const f = findNode(c, id);
    if (f) return f;
  }
  return null;
}

function containsId(node: SwayNode, id: number): boolean {
  return findNode(node, id) !== null;
}

/**
 * GET_TREE -> normalized Desktop. One request gives an atomic view: output
 * nodes carry scale, transform, mode and current workspace; the root's focus
 * list orders outputs by seat0 focus. sway `rect`s are already logical.
 */
export function desktopFromTree(tree: SwayNode, cursor: Cursor | null): Desktop {
  const outputs = (tree.nodes ?? []).filter((o) => o.type === 'output' && o.name !== SCRATCH_OUTPUT);
  const scratchOutput = (tree.nodes ?? []).find((o) => o.name === SCRATCH_OUTPUT);
  const focusedNode = findFocused(tree);
  const focusedWindow = focusedNode && isWindowNode(focusedNode) ? focusedNode : null;

  // Focused output: the one holding the focused node, else the first in root focus order.
  let focusedOutput: SwayNode | null = focusedNode ? (outputs.find((o) => containsId(o, focusedNode.id)) ?? null) : null;
  if (!focusedOutput) {
    const firstId = (tree.focus ?? []).find((id) => outputs.some((o) => o.id === id));
    focusedOutput = outputs.find((o) => o.id === firstId) ?? outputs[0] ?? null;
  }

  const monitors: Monitor[] = [];
  const workspaces: Workspace[] = [];
  const windows: Window[] = [];
  let activeWorkspace: string | null = null;

  for (const out of outputs) {
    const current = out.current_workspace ?? null;
    const focused = out === focusedOutput;
    const description = [out.make, out.model, out.serial].filter((s) => s && s.length > 0).join(' ');
    monitors.push({
      name: out.name ?? '',
      geometry: rect(out.rect),
      scale: out.scale && out.scale > 0 ? out.scale : 1,
      transform: transformNumber(out.transform),
      focused,
      activeWorkspace: current,
      ...(out.current_mode ? { physical: { width: out.current_mode.width, height: out.current_mode.height } } : {}),
      ...(description ? { description } : {}),
    });
    for (const ws of out.nodes ?? []) {
      if (ws.type !== 'workspace') continue;
      const name = ws.name ?? '';
      const before = windows.length;
      collectWindows(ws, name, false, focusedWindow?.id ?? null, windows);
      const visible = name === current;
      const wsFocused = focused && visible;
      if (wsFocused) activeWorkspace = name;
      workspaces.push({
        id: name,
        name,
        monitor: out.name ?? null,
        windows: windows.length - before,
        visible,
        focused: wsFocused,
      });
    }
  }

  const scratch = scratchOutput?.nodes?.find((n) => n.name === SCRATCH_WORKSPACE);
  if (scratch) {
    const before = windows.length;
    collectWindows(scratch, SCRATCH_WORKSPACE, false, focusedWindow?.id ?? null, windows);
    workspaces.push({
      id: SCRATCH_WORKSPACE,
      name: SCRATCH_WORKSPACE,
      monitor: null,
      windows: windows.length - before,
      visible: false,
      focused: false,
      special: true,
    });
  }

  return {
    compositor: 'sway',
    monitors,
    workspaces,
    windows,
    activeWindow: focusedWindow ? String(focusedWindow.id) : null,
    activeWorkspace,
    cursor,
    layers: null,
  };
}
