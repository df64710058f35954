import type { Desktop, LayerSurface, Monitor, Window, Workspace } from '@hypruse/core';
import type { NiriLayerSurface, NiriLogicalOutput, NiriOutput, NiriWindow, NiriWorkspace } from '../ipc/types.js';
import { layerKind, layerLevel } from './layer-kind.js';
import { transformNumber } from './transform.js';
import { windowPlacement } from './window-geometry.js';

export interface NiriState {
  outputs: Record<string, NiriOutput>;
  workspaces: NiriWorkspace[];
  windows: NiriWindow[];
  /** null when the layer list was not read. */
  layers: NiriLayerSurface[] | null;
}

/** Workspace display name: its configured name, else its index on its monitor (what bars show). */
export function workspaceName(ws: NiriWorkspace): string {
  return ws.name ?? String(ws.idx);
}

export function toMonitors(outputs: Record<string, NiriOutput>, workspaces: NiriWorkspace[]): Monitor[] {
  const focusedOutput = workspaces.find((w) => w.is_focused)?.output ?? null;
  const monitors: Monitor[] = [];
  for (const o of Object.values(outputs)) {
    const l = o.logical;
    if (!l) continue; // disabled / unmapped output: not part of the layout
    const mode = o.current_mode !== undefined && o.current_mode !== null ? o.modes?.[o.current_mode] : undefined;
    const active = workspaces.find((w) => w.output === o.name && w.is_active);
    const description = [o.make, o.model].filter((s) => s && s !== 'Unknown').join(' ');
    monitors.push({
      name: o.name,
      geometry: { x: l.x, y: l.y, width: l.width, height: l.height },
      scale: l.scale,
      transform: transformNumber(l.transform),
      focused: o.name === focusedOutput,
      activeWorkspace: active ? String(active.id) : null,
      ...(mode ? { physical: { width: mode.width, height: mode.height } } : {}),
      ...(description ? { description } : {}),
    });
  }
  return monitors.sort((a, b) => a.geometry.x - b.geometry.x || a.geometry.y - b.geometry.y);
}

export function toWorkspaces(workspaces: NiriWorkspace[], windows: NiriWindow[]): Workspace[] {
  return [...workspaces]
    .sort((a, b) => (a.output ?? '').localeCompare(b.output ?? '') || a.idx - b.idx)
    .map((ws) => ({
      id: String(ws.id),
      name: workspaceName(ws),
      monitor: ws.output ?? null,
      windows: windows.filter((w) => w.workspace_id === ws.id).length,
      visible: ws.is_active,
      focused: ws.is_focused,
    }));
}

export function toWindow(win: NiriWindow, outputs: Record<string, NiriOutput>, workspaces: NiriWorkspace[]): Window {
  const ws = win.workspace_id !== undefined && win.workspace_id !== null ? workspaces.find((w) => w.id === win.workspace_id) : undefined;
  const output: NiriLogicalOutput | null = (ws?.output && outputs[ws.output]?.logical) || null;
  const placement = windowPlacement(win, output);
  return {
    address: String(win.id),
    class: win.app_id ?? '',
    title: win.title ?? '',
    pid: typeof win.pid === 'number' ? win.pid : null,
    geometry: placement.geometry,
    workspace: ws ? String(ws.id) : win.workspace_id != null ? String(win.workspace_id) : null,
    floating: win.is_floating === true,
    fullscreen: placement.fullscreen,
    // on a shown workspace; a tiled window may still be scrolled out of the view, which niri does not report
    visible: Boolean(ws?.is_active),
    focused: win.is_focused,
    ...(placement.positionUnknown ? { positionUnknown: placement.positionUnknown } : {}),
    ...(win.is_urgent ? { urgent: true } : {}),
    extra: {
      geometrySource: placement.source,
      ...(ws?.output ? { monitor: ws.output } : {}),
      ...(win.layout?.pos_in_scrolling_layout ? { column: win.layout.pos_in_scrolling_layout[0], tile: win.layout.pos_in_scrolling_layout[1] } : {}),
      ...(win.layout?.tile_size ? { tileSize: win.layout.tile_size } : {}),
    },
  };
}

/**
 * niri reports no layer geometry: each surface is given its output's logical
 * box, an upper bound that is right for the full-screen kinds the guards care
 * about (launchers, lock screens, keyboards) and generous for bars.
 */
export function toLayers(layers: NiriLayerSurface[], outputs: Record<string, NiriOutput>): LayerSurface[] {
  return layers.map((l) => {
    const level = layerLevel(l.layer);
    const logical = outputs[l.output]?.logical;
    return {
      namespace: l.namespace,
      kind: layerKind(l.namespace, level),
      level,
      monitor: l.output || null,
      geometry: logical ? { x: logical.x, y: logical.y, width: logical.width, height: logical.height } : { x: 0, y: 0, width: 0, height: 0 },
      keyboardInteractive: l.keyboard_interactivity !== undefined && l.keyboard_interactivity !== 'None',
    };
  });
}

/** The normalized desktop from niri's Outputs, Workspaces, Windows and Layers replies. */
export function toDesktop(state: NiriState): Desktop {
  const windows = state.windows.map((w) => toWindow(w, state.outputs, state.workspaces));
  const focusedWs = state.workspaces.find((w) => w.is_focused);
  return {
    compositor: 'niri',
    monitors: toMonitors(state.outputs, state.workspaces),
    workspaces: toWorkspaces(state.workspaces, state.windows),
    windows,
    activeWindow: windows.find((w) => w.focused)?.address ?? null,
    activeWorkspace: focusedWs ? String(focusedWs.id) : null,
    cursor: null,
    layers: state.layers ? toLayers(state.layers, state.outputs) : null,
  };
}
