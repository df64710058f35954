/**
 * ext-workspace-v1 (wayland-protocols staging), client side: the workspace
 * groups and workspaces a compositor lists, applied atomically on the
 * manager's `done`, and the activate request (sent with the manager's
 * `commit`, which the protocol requires). Compositor-neutral: any plugin that
 * reaches a compositor offering ext_workspace_manager_v1 can use it.
 *
 * What the protocol does not carry: which workspace a window is on (it has
 * no window membership at all), and, for groups spanning several outputs,
 * which of them a workspace is shown on beyond "all of the group's".
 */
import type { ArgReader } from './codec.js';
import type { WaylandConnection } from './connection.js';

export const EXT_WORKSPACE_MANAGER = 'ext_workspace_manager_v1';

/** ext_workspace_handle_v1.state bits. */
export const WS_STATE = { active: 1, urgent: 2, hidden: 4 } as const;
/** ext_workspace_handle_v1 capability bits (ext_workspace_capabilities_v1). */
export const WS_CAP = { activate: 1, deactivate: 2, remove: 4, assign: 8 } as const;
/** ext_workspace_group_handle_v1 capability bits. */
export const WS_GROUP_CAP = { createWorkspace: 1 } as const;

// opcodes, in the order the protocol XML declares them
const MANAGER_EV = { workspaceGroup: 0, workspace: 1, done: 2, finished: 3 } as const;
const MANAGER_REQ = { commit: 0, stop: 1 } as const;
const GROUP_EV = { capabilities: 0, outputEnter: 1, outputLeave: 2, workspaceEnter: 3, workspaceLeave: 4, removed: 5 } as const;
const GROUP_REQ = { destroy: 1 } as const;
const WS_EV = { id: 0, name: 1, coordinates: 2, state: 3, capabilities: 4, removed: 5 } as const;
const WS_REQ = { destroy: 0, activate: 1 } as const;

export interface ExtWorkspaceGroup {
  /** Object id on this connection. */
  handle: number;
  capabilities: number;
  /** wl_output object ids (as bound by this connection's client) the group is assigned to. */
  outputs: Set<number>;
}

export interface ExtWorkspace {
  handle: number;
  /** The compositor's stable id, when it gives one (it need not). */
  id: string | null;
  name: string;
  /** Position in the group's N-dimensional grid; empty when the compositor orders none. */
  coordinates: number[];
  state: number;
  capabilities: number;
  /** Object id of the group it belongs to, null while in none. */
  group: number | null;
}

/** A change the manager's `done` made visible. */
export type WorkspaceChange = { kind: 'activated'; workspace: ExtWorkspace } | { kind: 'added' | 'removed'; workspace: ExtWorkspace };

/**
 * The workspace list of one ext_workspace_manager_v1 bound on `conn`. Events
 * are collected into pending copies and applied on `done`; `onDone` then gets
 * what changed (a workspace that became active, workspaces added or removed).
 */
export class ExtWorkspaceList {
  readonly groups = new Map<number, ExtWorkspaceGroup>();
  readonly workspaces = new Map<number, ExtWorkspace>();
  /** At least one `done` arrived: the list is complete. */
  ready = false;
  private readonly manager: number;
  private readonly pending = new Map<number, ExtWorkspace>();
  private readonly pendingGroups = new Map<number, ExtWorkspaceGroup>();
  private readonly removed = new Set<number>();

  /** Binds the manager through `registry` (global `name`, at version 1). */
  constructor(
    private readonly conn: WaylandConnection,
    registry: number,
    name: number,
    private readonly onDone: (changes: WorkspaceChange[]) => void = () => undefined,
  ) {
    this.manager = conn.bindName(registry, name, EXT_WORKSPACE_MANAGER, 1, (op, a) => this.onManager(op, a));
  }

  /** Workspaces in the order the compositor sent them, those of its groups first by grid coordinates. */
  list(): ExtWorkspace[] {
    return [...this.workspaces.values()].sort((x, y) => compareCoordinates(x.coordinates, y.coordinates));
  }

  groupOf(ws: ExtWorkspace): ExtWorkspaceGroup | undefined {
    return ws.group === null ? undefined : this.groups.get(ws.group);
  }

  /** Asks the compositor to activate `ws` (then commit, as the protocol requires). The caller checks WS_CAP.activate. */
  activate(ws: ExtWorkspace): void {
    this.conn.send(ws.handle, WS_REQ.activate);
    this.conn.send(this.manager, MANAGER_REQ.commit);
  }

  private onManager(op: number, a: ArgReader): void {
    if (op === MANAGER_EV.workspaceGroup) {
      const handle = a.newId();
      const g: ExtWorkspaceGroup = { handle, capabilities: 0, outputs: new Set() };
      this.pendingGroups.set(handle, g);
      this.conn.adopt(handle, 'ext_workspace_group_handle_v1', (gop, ga) => this.onGroup(g, gop, ga));
    } else if (op === MANAGER_EV.workspace) {
      const handle = a.newId();
      const ws: ExtWorkspace = { handle, id: null, name: '', coordinates: [], state: 0, capabilities: 0, group: null };
      this.pending.set(handle, ws);
      this.conn.adopt(handle, 'ext_workspace_handle_v1', (wop, wa) => this.onWorkspace(handle, wop, wa));
    } else if (op === MANAGER_EV.done) this.apply();
  }

  /** The pending copy of a workspace, made on its first event since the last `done`. */
  private draft(handle: number): ExtWorkspace | undefined {
    let d = this.pending.get(handle);
    if (!d) {
      const cur = this.workspaces.get(handle);
      if (!cur) return undefined;
      d = { ...cur, coordinates: [...cur.coordinates] };
      this.pending.set(handle, d);
    }
    return d;
  }

  private onGroup(g: ExtWorkspaceGroup, op: number, a: ArgReader): void {
    if (op === GROUP_EV.capabilities) g.capabilities = a.uint();
    else if (op === GROUP_EV.outputEnter) g.outputs.add(a.object());
    else if (op === GROUP_EV.outputLeave) g.outputs.delete(a.object());
    else if (op === GROUP_EV.workspaceEnter || op === GROUP_EV.workspaceLeave) {
      const d = this.draft(a.object());
      if (d) d.group = op === GROUP_EV.workspaceEnter ? g.handle : d.group === g.handle ? null : d.group;
    } else if (op === GROUP_EV.removed) {
      this.groups.delete(g.handle);
      this.pendingGroups.delete(g.handle);
      this.conn.send(g.handle, GROUP_REQ.destroy);
      this.conn.forget(g.handle);
    }
  }

  private onWorkspace(handle: number, op: number, a: ArgReader): void {
    if (op === WS_EV.removed) {
      this.removed.add(handle);
      this.conn.send(handle, WS_REQ.destroy);
      this.conn.forget(handle);
      return;
    }
    const d = this.draft(handle);
    if (!d) return;
    if (op === WS_EV.id) d.id = a.string();
    else if (op === WS_EV.name) d.name = a.string() ?? '';
    else if (op === WS_EV.coordinates) {
      const raw = a.array();
      d.coordinates = [];
      for (let i = 0; i + 4 <= raw.length; i += 4) d.coordinates.push(raw.readUInt32LE(i));
    } else if (op === WS_EV.state) d.state = a.uint();
    else if (op === WS_EV.capabilities) d.capabilities = a.uint();
  }

  private apply(): void {
    const changes: WorkspaceChange[] = [];
    for (const [k, g] of this.pendingGroups) this.groups.set(k, g);
    this.pendingGroups.clear();
    for (const [handle, d] of this.pending) {
      if (this.removed.has(handle)) continue;
      const before = this.workspaces.get(handle);
      this.workspaces.set(handle, d);
      if (!this.ready) continue;
      if (!before) changes.push({ kind: 'added', workspace: d });
      if (d.state & WS_STATE.active && !(before && before.state & WS_STATE.active)) changes.push({ kind: 'activated', workspace: d });
    }
    this.pending.clear();
    for (const handle of this.removed) {
      const gone = this.workspaces.get(handle);
      this.workspaces.delete(handle);
      if (gone && this.ready) changes.push({ kind: 'removed', workspace: gone });
    }
    this.removed.clear();
    this.ready = true;
    if (changes.length) this.onDone(changes);
  }
}

function compareCoordinates(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}
