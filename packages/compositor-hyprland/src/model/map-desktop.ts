import { logicalSize, type Cursor, type Desktop, type DesktopEvent, type Monitor, type Window, type Workspace } from '@hypruse/core';
import { mapLayers } from './layers.js';
import type { RawClient, RawCursor, RawLayers, RawMonitor, RawWorkspace } from './raw-types.js';

/** The JSON queries of one snapshot, in batch order. */
export const SNAPSHOT_QUERIES = ['monitors', 'workspaces', 'clients', 'activewindow', 'cursorpos', 'layers'] as const;

export interface RawSnapshot {
  monitors: RawMonitor[];
  workspaces: RawWorkspace[];
  clients: RawClient[];
  activewindow: RawClient | Record<string, never>;
  cursorpos: RawCursor | null;
  layers: RawLayers | null;
}

/** Logical monitor rect: physical mode / exact scale, axes swapped for odd transforms. */
export function mapMonitor(m: RawMonitor): Monitor {
  const transform = typeof m.transform === 'number' ? m.transform : 0;
  const pw = m.width ?? 0;
  const ph = m.height ?? 0;
  const { width: w, height: h, scale } = logicalSize(pw, ph, typeof m.scale === 'number' ? m.scale : 1, transform);
  const ws = m.activeWorkspace?.id;
  return {
    name: m.name ?? '',
    geometry: { x: m.x ?? 0, y: m.y ?? 0, width: w, height: h },
    scale,
    transform,
    focused: m.focused === true,
    activeWorkspace: typeof ws === 'number' && ws !== -1 && ws !== 0 ? String(ws) : null,
    physical: { width: pw, height: ph },
    ...(m.description ? { description: m.description } : {}),
  };
}

function asArray<T>(v: unknown): T[] {
  return Array.isArray(v) ? (v as T[]) : [];
}

/** `fullscreen` is a bool before 0.42 and an enum after (0 none, 1 maximized, 2 fullscreen, 3 both). */
export function fullscreenMode(v: unknown): 'none' | 'maximized' | 'fullscreen' {
  if (v === true) return 'fullscreen';
  if (typeof v === 'number') {
    if (v >= 2) return 'fullscreen';
    if (v === 1) return 'maximized';
  }
  return 'none';
}

export type FullscreenMode = ReturnType<typeof fullscreenMode>;

/** Each mapped client's fullscreen mode, by normalized address. */
export function fullscreenModes(clients: RawClient[]): Map<string, FullscreenMode> {
  const m = new Map<string, FullscreenMode>();
  for (const c of clients) if (c.mapped !== false && typeof c.address === 'string') m.set(normalizeAddress(c.address), fullscreenMode(c.fullscreen));
  return m;
}

/**
 * What a `fullscreen>>0|1` event was, from the modes before and after it: a
 * typed `fullscreen` event (with the window) where a window entered or left
 * fullscreen, and `other` `maximize` (`ADDR,0|1`) where it was a maximize,
 * which Hyprland also announces as `fullscreen>>1`. A window that closed
 * meanwhile has no change; nothing found gives the raw event as `other`.
 */
export function fullscreenChanges(before: Map<string, FullscreenMode>, after: Map<string, FullscreenMode>, data: string): DesktopEvent[] {
  const out: DesktopEvent[] = [];
  for (const [address, a] of after) {
    const b = before.get(address) ?? 'none';
    if ((b === 'fullscreen') !== (a === 'fullscreen')) out.push({ type: 'fullscreen', address, fullscreen: a === 'fullscreen' });
    if ((b === 'maximized') !== (a === 'maximized')) out.push({ type: 'other', name: 'maximize', data: `${address.slice(2)},${a === 'maximized' ? 1 : 0}` });
  }
  return out.length ? out : [{ type: 'other', name: 'fullscreen', data }];
}

export function normalizeAddress(a: string): string {
  const s = a.trim().toLowerCase();
  return s.startsWith('0x') ? s : `0x${s}`;
}

/** Pure mapping of one batched snapshot to the normalized Desktop. */
export function mapDesktop(raw: RawSnapshot): Desktop {
  const monitors = asArray<RawMonitor>(raw.monitors).filter((m) => m.disabled !== true).map(mapMonitor);
  const rawMonitors = asArray<RawMonitor>(raw.monitors);
  const shown = new Set<number>();
  for (const m of rawMonitors) {
    if (typeof m.activeWorkspace?.id === 'number') shown.add(m.activeWorkspace.id);
    if (typeof m.specialWorkspace?.id === 'number' && m.specialWorkspace.id !== 0) shown.add(m.specialWorkspace.id);
  }
  const focusedMon = rawMonitors.find((m) => m.focused === true) ?? rawMonitors[0];
  const activeWsId = focusedMon?.activeWorkspace?.id;
  const activeWorkspace = typeof activeWsId === 'number' && activeWsId !== -1 && activeWsId !== 0 ? String(activeWsId) : null;

  const workspaces: Workspace[] = asArray<RawWorkspace>(raw.workspaces)
    .filter((w) => typeof w.id === 'number')
    .map((w) => {
      const id = w.id as number;
      const name = w.name ?? String(id);
      const special = id < 0 || name.startsWith('special');
      return {
        id: String(id),
        name,
        monitor: !w.monitor || w.monitor === '?' ? null : w.monitor,
        windows: w.windows ?? 0,
        visible: shown.has(id),
        focused: String(id) === activeWorkspace,
        ...(special ? { special: true } : {}),
      };
    })
    .sort((a, b) => Number(a.id) - Number(b.id));

  const active = raw.activewindow && typeof (raw.activewindow as RawClient).address === 'string' ? normalizeAddress((raw.activewindow as RawClient).address as string) : null;

  const windows: Window[] = [];
  for (const c of asArray<RawClient>(raw.clients)) {
    if (c.mapped === false || typeof c.address !== 'string') continue;
    const address = normalizeAddress(c.address);
    // a window reported with no workspace id (-1) but a workspace name (seen for a window on a named
    // special workspace) is placed by that name, when a listed workspace carries it
    const named = c.workspace?.name ? workspaces.find((w) => w.name === c.workspace!.name) : undefined;
    const wsId = typeof c.workspace?.id === 'number' && c.workspace.id !== -1 ? c.workspace.id : named ? Number(named.id) : undefined;
    const onWs = typeof wsId === 'number' && wsId !== -1;
    const hidden = c.hidden === true;
    // `visible` (0.55+) is "mapped and not fully transparent", not "on a shown workspace": it only narrows
    const visible = onWs && shown.has(wsId as number) && !hidden && c.visible !== false;
    const mode = fullscreenMode(c.fullscreen);
    const extra: Record<string, unknown> = {};
    if (Array.isArray(c.tags) && c.tags.length) extra.tags = c.tags;
    if (typeof c.stableId === 'string') {
      extra.stableId = c.stableId;
      // the ext-foreign-toplevel identifier (grim -T), under the name every plugin uses
      extra.toplevelId = c.stableId;
    }
    // the window's handle in hyprland_toplevel_export_manager_v1: the low 32 bits of its address, as the protocol's int
    if (typeof c.address === 'string' && /^0x[0-9a-fA-F]{1,16}$/.test(c.address)) extra.exportHandle = Number(BigInt(c.address) & 0xffffffffn) | 0;
    if (c.xwayland === true) extra.xwayland = true;
    if (c.pinned === true) extra.pinned = true;
    if (mode === 'maximized') extra.maximized = true;
    if (c.initialClass && c.initialClass !== c.class) extra.initialClass = c.initialClass;
    if (c.workspace?.name && c.workspace.name !== String(wsId)) extra.workspaceName = c.workspace.name;
    windows.push({
      address,
      class: c.class ?? '',
      title: c.title ?? '',
      pid: typeof c.pid === 'number' && c.pid > 0 ? c.pid : null,
      geometry: { x: c.at?.[0] ?? 0, y: c.at?.[1] ?? 0, width: c.size?.[0] ?? 0, height: c.size?.[1] ?? 0 },
      workspace: onWs ? String(wsId) : null,
      floating: c.floating === true,
      fullscreen: mode === 'fullscreen',
      visible,
      focused: address === active,
      ...(hidden ? { hidden: true } : {}),
      ...(Object.keys(extra).length ? { extra } : {}),
    });
  }

  const cur = raw.cursorpos;
  const cursor: Cursor | null = cur && typeof cur.x === 'number' && typeof cur.y === 'number' ? { x: cur.x, y: cur.y, source: 'compositor' } : null;

  return {
    compositor: 'hyprland',
    monitors,
    workspaces,
    windows,
    activeWindow: active,
    activeWorkspace,
    cursor,
    layers: raw.layers === null ? null : mapLayers(raw.layers),
  };
}

/** Assemble a RawSnapshot from the batch values (order of SNAPSHOT_QUERIES). */
export function rawSnapshotFromBatch(values: unknown[]): RawSnapshot {
  const [monitors, workspaces, clients, activewindow, cursorpos, layers] = values;
  return {
    monitors: asArray<RawMonitor>(monitors),
    workspaces: asArray<RawWorkspace>(workspaces),
    clients: asArray<RawClient>(clients),
    activewindow: (activewindow && typeof activewindow === 'object' ? activewindow : {}) as RawClient,
    cursorpos: (cursorpos && typeof cursorpos === 'object' ? cursorpos : null) as RawCursor | null,
    layers: (layers && typeof layers === 'object' && !Array.isArray(layers) ? layers : null) as RawLayers | null,
  };
}
