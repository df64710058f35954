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
  const ws = workspaceKey(m.activeWorkspace);
  return {
    name: m.name ?? '',
    geometry: { x: m.x ?? 0, y: m.y ?? 0, width: w, height: h },
    scale,
    transform,
    focused: m.focused === true,
    activeWorkspace: ws,
    physical: { width: pw, height: ph },
    ...(m.description ? { description: m.description } : {}),
  };
}

/**
 * The workspace a reference names, as hypruse's workspace id: its number where
 * Hyprland gives one (-1 and 0 name none), else, from 0.57 on, where a special
 * workspace carries no `id`, its name (`special:NAME`, also its `address`).
 */
export function workspaceKey(ref: { id?: number; name?: string; address?: string; type?: string } | undefined): string | null {
  if (!ref) return null;
  if (typeof ref.id === 'number') return ref.id === -1 || ref.id === 0 ? null : String(ref.id);
  const name = ref.name || ref.address || '';
  return name && (ref.type === 'special' || name.startsWith('special')) ? name : null;
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
  const shown = new Set<string>();
  for (const m of rawMonitors) {
    const active = workspaceKey(m.activeWorkspace);
    if (active) shown.add(active);
    const special = workspaceKey(m.specialWorkspace);
    if (special) shown.add(special);
  }
  const focusedMon = rawMonitors.find((m) => m.focused === true) ?? rawMonitors[0];
  const activeWorkspace = workspaceKey(focusedMon?.activeWorkspace);

  const numeric = (id: string) => (/^-?\d+$/.test(id) ? Number(id) : Number.POSITIVE_INFINITY);
  const workspaces: Workspace[] = asArray<RawWorkspace>(raw.workspaces)
    .flatMap((w) => {
      const id = workspaceKey(w);
      if (id === null) return [];
      const name = w.name ?? id;
      const special = numeric(id) < 0 || w.type === 'special' || name.startsWith('special');
      return [{
        id,
        name,
        monitor: !w.monitor || w.monitor === '?' ? null : w.monitor,
        windows: w.windows ?? 0,
        visible: shown.has(id),
        focused: id === activeWorkspace,
        ...(special ? { special: true } : {}),
      }];
    })
    .sort((a, b) => numeric(a.id) - numeric(b.id) || a.id.localeCompare(b.id));

  const active = raw.activewindow && typeof (raw.activewindow as RawClient).address === 'string' ? normalizeAddress((raw.activewindow as RawClient).address as string) : null;

  const windows: Window[] = [];
  for (const c of asArray<RawClient>(raw.clients)) {
    if (c.mapped === false || typeof c.address !== 'string') continue;
    const address = normalizeAddress(c.address);
    const wsId = workspaceKey(c.workspace);
    const onWs = wsId !== null;
    const hidden = c.hidden === true;
    // `visible` (0.55+) is "mapped and not fully transparent", not "on a shown workspace": it only narrows
    const visible = onWs && shown.has(wsId) && !hidden && c.visible !== false;
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
    if (c.workspace?.name && c.workspace.name !== wsId) extra.workspaceName = c.workspace.name;
    windows.push({
      address,
      class: c.class ?? '',
      title: c.title ?? '',
      pid: typeof c.pid === 'number' && c.pid > 0 ? c.pid : null,
      geometry: { x: c.at?.[0] ?? 0, y: c.at?.[1] ?? 0, width: c.size?.[0] ?? 0, height: c.size?.[1] ?? 0 },
      workspace: wsId,
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
