/**
 * The desktop as the standard Wayland protocols show it, on one connection:
 * windows through zwlr_foreign_toplevel_manager_v1 (title, app id, outputs,
 * states; activate, close, fullscreen), outputs through wl_output and
 * zxdg_output_v1, and where offered workspaces through ext-workspace-v1 and
 * windows' stable identifiers through ext-foreign-toplevel-list-v1 (both read
 * by the wire client's protocol modules).
 *
 * A window's address is its ext-foreign-toplevel-list identifier when the
 * compositor offers that list: the same on every connection, so a window
 * keeps its address across a reconnect. The two lists are separate protocols
 * with no link between their handles; a zwlr handle is paired, at its first
 * `done`, with the first ext handle announced (creation order) with the same
 * app id and title that no other handle took. Without a match (or without
 * the list) the address is a number never reused in this process, and a
 * window seen again after a reconnect has a new one (the `resync` event says so).
 */
import type { DesktopEvent, Rect } from '@hypruse/core';
import { DISPLAY_ID, EXT_TOPLEVEL_LIST, EXT_WORKSPACE_MANAGER, ExtToplevelList, ExtWorkspaceList, WaylandConnection, arg, requestXdgOutput, type ArgReader, type WorkspaceChange } from '@hypruse/wayland';

export const MANAGER = 'zwlr_foreign_toplevel_manager_v1';
const XDG_OUTPUT_MANAGER = 'zxdg_output_manager_v1';
/** zwlr_foreign_toplevel_handle_v1 states. */
export const STATE = { maximized: 0, minimized: 1, activated: 2, fullscreen: 3 } as const;
/** zwlr_foreign_toplevel_handle_v1 requests. */
export const REQUEST = { activate: 4, close: 5, destroy: 7, setFullscreen: 8, unsetFullscreen: 9 } as const;

export interface Toplevel {
  id: number;
  address: string;
  title: string;
  appId: string;
  outputs: Set<number>;
  states: Set<number>;
  /** Its first `done` arrived (title and app id are known). */
  ready: boolean;
  /** Title and states sent since the last `done` (applied together on `done`). */
  next: { title?: string; states?: Set<number> };
}

export interface Output {
  id: number;
  name: string;
  logical: Rect;
  scale: number;
  transform: number;
  physical?: { width: number; height: number };
}

export class ToplevelSession {
  readonly toplevels = new Map<number, Toplevel>();
  readonly outputs = new Map<number, Output>();
  readonly listeners = new Set<(events: DesktopEvent[]) => void>();
  seat = 0;
  managerVersion = 0;
  /** ext-workspace-v1's list, null when the compositor does not offer it. */
  workspaces: ExtWorkspaceList | null = null;
  /** ext-foreign-toplevel-list-v1's list, null when the compositor does not offer it. */
  extList: ExtToplevelList | null = null;
  /** The workspace that last became active (ext-workspace-v1 says which are active, not which has the focus). */
  lastActivated = 0;
  private baseline = false;

  private constructor(readonly conn: WaylandConnection, private readonly nextAddress: () => string) {}

  /** Connect, bind the manager, the seat and every output, and read the initial windows (two round trips). */
  static async open(path: string, timeoutMs: number, nextAddress: () => string): Promise<ToplevelSession> {
    const conn = await WaylandConnection.connect({ path, wantFds: false, timeoutMs });
    const s = new ToplevelSession(conn, nextAddress);
    try {
      const globals: Array<{ name: number; iface: string; version: number }> = [];
      const registry = conn.allocId('wl_registry', (op, a) => {
        if (op === 0) globals.push({ name: a.uint(), iface: a.string() ?? '', version: a.uint() });
      });
      conn.send(DISPLAY_ID, 1, [arg.newId(registry)]);
      await conn.roundtrip();
      const find = (iface: string) => globals.find((g) => g.iface === iface);
      const mgr = find(MANAGER);
      if (!mgr) throw new Error(`the compositor does not offer ${MANAGER}`);
      const seat = find('wl_seat');
      if (seat) s.seat = conn.bindName(registry, seat.name, 'wl_seat', 1);
      const ws = find(EXT_WORKSPACE_MANAGER);
      if (ws) s.workspaces = new ExtWorkspaceList(conn, registry, ws.name, (changes) => s.onWorkspaces(changes));
      // bound before the zwlr manager, so an ext handle's first done precedes its zwlr twin's
      const list = find(EXT_TOPLEVEL_LIST);
      if (list) s.extList = new ExtToplevelList(conn, registry, list.name);
      const xdg = find(XDG_OUTPUT_MANAGER);
      const xdgManager = xdg ? conn.bindName(registry, xdg.name, XDG_OUTPUT_MANAGER, Math.min(xdg.version, 3)) : 0;
      for (const g of globals.filter((x) => x.iface === 'wl_output')) s.bindOutput(registry, g.name, Math.min(g.version, 4), xdgManager);
      s.managerVersion = Math.min(mgr.version, 3);
      conn.bindName(registry, mgr.name, MANAGER, s.managerVersion, (op, a) => {
        if (op === 0) s.adoptToplevel(a.newId());
      });
      await conn.roundtrip();
      await conn.roundtrip();
      s.baseline = true;
      return s;
    } catch (e) {
      conn.close();
      throw e;
    }
  }

  close(): void {
    this.conn.close();
  }

  /** The window with this address, if the compositor still lists it. */
  byAddress(address: string): Toplevel | undefined {
    for (const t of this.toplevels.values()) if (t.ready && t.address === address) return t;
    return undefined;
  }

  /** The output's name for a wl_output object id of this connection. */
  outputName(id: number): string | undefined {
    return this.outputs.get(id)?.name;
  }

  private onWorkspaces(changes: WorkspaceChange[]): void {
    for (const c of changes) if (c.kind === 'activated') this.lastActivated = c.workspace.handle;
    if (!this.baseline) return;
    const events: DesktopEvent[] = [];
    for (const c of changes) {
      if (c.kind !== 'activated') continue;
      const outs = [...(this.workspaces?.groupOf(c.workspace)?.outputs ?? [])];
      const monitor = outs.length === 1 ? this.outputName(outs[0]!) : undefined;
      events.push({ type: 'workspace', name: c.workspace.name, id: c.workspace.id ?? c.workspace.name, ...(monitor ? { monitor } : {}) });
    }
    if (events.length) for (const l of this.listeners) l(events);
  }

  private bindOutput(registry: number, name: number, version: number, xdgManager: number): void {
    const out: Output = { id: 0, name: `output-${name}`, logical: { x: 0, y: 0, width: 0, height: 0 }, scale: 1, transform: 0 };
    let wlName = '';
    out.id = this.conn.bindName(registry, name, 'wl_output', version, (op, a) => {
      if (op === 0) {
        a.int(), a.int(), a.int(), a.int(), a.int(), a.string(), a.string();
        out.transform = a.int();
      } else if (op === 1) {
        const current = (a.uint() & 1) === 1;
        const width = a.int();
        const height = a.int();
        if (current) out.physical = { width, height };
      } else if (op === 3) out.scale = Math.max(1, a.int());
      else if (op === 4) wlName = a.string() ?? '';
      if (wlName && !xdgManager) out.name = wlName;
    });
    if (xdgManager) {
      const into = { name: '', logical: out.logical };
      requestXdgOutput(this.conn, xdgManager, out.id, into);
      const named = this.conn.roundtrip().then(() => {
        out.name = into.name || wlName || out.name;
      });
      named.catch(() => undefined);
    }
    this.outputs.set(out.id, out);
  }

  private adoptToplevel(id: number): void {
    const t: Toplevel = { id, address: '', title: '', appId: '', outputs: new Set(), states: new Set(), ready: false, next: {} };
    this.toplevels.set(id, t);
    this.conn.adopt(id, 'zwlr_foreign_toplevel_handle_v1', (op, a) => this.onHandle(t, op, a));
  }

  private onHandle(t: Toplevel, op: number, a: ArgReader): void {
    const events: DesktopEvent[] = [];
    if (op === 0) t.next.title = a.string() ?? '';
    else if (op === 1) t.appId = a.string() ?? '';
    else if (op === 2) t.outputs.add(a.object());
    else if (op === 3) t.outputs.delete(a.object());
    else if (op === 4) {
      const raw = a.array();
      const states = new Set<number>();
      for (let i = 0; i + 4 <= raw.length; i += 4) states.add(raw.readUInt32LE(i));
      t.next.states = states;
    } else if (op === 5) {
      const title = t.next.title ?? t.title;
      const states = t.next.states ?? t.states;
      t.next = {};
      if (!t.ready) {
        t.ready = true;
        t.address = this.extList?.claim(t.appId, title)?.identifier || this.nextAddress();
        t.title = title;
        t.states = states;
        if (this.baseline) events.push({ type: 'window_open', address: t.address, class: t.appId, title: t.title, pid: null });
        if (this.baseline && states.has(STATE.activated)) events.push({ type: 'focus', address: t.address });
      } else {
        if (title !== t.title) events.push({ type: 'title_change', address: t.address, title, class: t.appId });
        if (states.has(STATE.activated) && !t.states.has(STATE.activated)) events.push({ type: 'focus', address: t.address });
        if (states.has(STATE.fullscreen) !== t.states.has(STATE.fullscreen)) events.push({ type: 'fullscreen', address: t.address, fullscreen: states.has(STATE.fullscreen) });
        t.title = title;
        t.states = states;
      }
    } else if (op === 6) {
      this.toplevels.delete(t.id);
      if (t.ready) events.push({ type: 'window_close', address: t.address, class: t.appId, title: t.title });
      this.conn.send(t.id, REQUEST.destroy);
      this.conn.forget(t.id);
    }
    if (events.length) for (const l of this.listeners) l(events);
  }
}
