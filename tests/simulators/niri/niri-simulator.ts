import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';

/**
 * A protocol-faithful niri IPC simulator (niri-ipc 25.x/26.x shapes): a real
 * Unix socket speaking newline-delimited JSON, one reply per request line,
 * `"EventStream"` with the full-state initial burst followed by live events.
 *
 * State: two outputs (DP-1 1920x1080 @1 at 0,0; HDMI-A-1 2560x1600 @1.5 at
 * 1920,0, logical 1706x1066 as niri truncates), five workspaces (one named
 * "chat"), windows with pids and a scrolling-tiling-like layout (16 px gaps,
 * 2 px borders, two columns per view), floating, fullscreen, urgency, layer
 * surfaces.
 *
 * Windows belong to processes: `Spawn`/`SpawnSh` really start the command and
 * map a window whose pid is that process (closed when it exits); the
 * simulator-only `{"SimClient":{pid,title,app_id,workspace,delay_ms}}`
 * request lets a process (see fake-client.mjs) map its own window, which
 * closes when its connection does, like a Wayland client.
 *
 * Failure modes: `replyDelayMs`, `garbageReplies`, `hang`,
 * `refuseEventStreams`, `dropEventStreams()`, `sendGarbageEvent()`,
 * `omitLayout` (pre-25.08 window shape).
 *
 * `version` picks the wire shapes of one niri release (facts from niri's
 * `niri-ipc/src/lib.rs` and `src/layout/` at each tag): window `layout` and
 * `WindowLayoutsChanged` from 25.08, `focus_timestamp` from 25.11, `Casts` /
 * `CastsChanged` after 25.11. As in every niri release, only floating windows
 * get `tile_pos_in_workspace_view`; tiled (and fullscreen) tiles report null
 * (`Tile::ipc_layout_template` leaves it unset, only `FloatingSpace` fills it).
 * The 25.08 shapes are checked against niri's own types by tests/niri-ipc-check.
 */

/** niri releases whose wire shapes the simulator can speak. */
export type NiriSimVersion = '25.05' | '25.08' | '25.11' | '26.04';
const VERSION_ORDER: NiriSimVersion[] = ['25.05', '25.08', '25.11', '26.04'];

export interface SimOutput {
  name: string;
  make: string;
  model: string;
  physical: [number, number];
  scale: number;
  position: [number, number];
  transform: string;
}

export interface SimWorkspace {
  id: number;
  idx: number;
  name: string | null;
  output: string;
  activeWindowId: number | null;
  urgent: boolean;
}

/** `external`: the window stands for a real one elsewhere; a close request only records the action (whoever mirrors it removes it). */
type Owner = { kind: 'none' } | { kind: 'client'; socket: Socket } | { kind: 'process'; child: ChildProcess } | { kind: 'external' };

export interface SimWindow {
  id: number;
  title: string | null;
  appId: string | null;
  pid: number | null;
  workspaceId: number;
  floating: boolean;
  fullscreen: boolean;
  urgent: boolean;
  /** Column order on its workspace. */
  order: number;
  size: [number, number];
  /** Floating only: the content's position in its workspace's view, given from outside (default: centred). */
  pos?: [number, number];
  /** The size was given from outside (a mirrored real window): tiled, it keeps it instead of the simulated column's. */
  sizeGiven?: boolean;
  ignoreClose: boolean;
  owner: Owner;
  focusTs: number | null;
}

export interface OpenWindowSpec {
  title?: string | null;
  appId?: string | null;
  pid?: number | null;
  /** Workspace id; default: the focused workspace. */
  workspace?: number | null;
  floating?: boolean;
  /** Take focus (default: when it opens on the focused workspace). */
  focus?: boolean;
  /** Ignore CloseWindow (an app prompting to save). */
  ignoreClose?: boolean;
  /** Content size (default 640x400). */
  size?: [number, number];
  /** Floating only: the content's position in the workspace's view (default: centred). */
  pos?: [number, number];
  /** The window stands for a real one elsewhere: CloseWindow is only recorded. */
  external?: boolean;
}

export interface SimLayer {
  namespace: string;
  output: string;
  layer: 'Background' | 'Bottom' | 'Top' | 'Overlay';
  keyboard_interactivity: 'None' | 'Exclusive' | 'OnDemand';
}

const GAP = 16;
const BORDER = 2;

type Json = Record<string, unknown>;

export interface NiriSimulatorOptions {
  /** Directory for the socket (default: a fresh temp dir, removed on stop). */
  dir?: string;
  /** The Wayland display name in the socket name (niri.<display>.<pid>.sock). */
  display?: string;
  /** Start with the two demo windows (default true). */
  demoWindows?: boolean;
  /** The niri release whose shapes to speak (default 26.04). */
  version?: NiriSimVersion;
  /**
   * Outputs in place of the two simulated ones (e.g. those of a real Wayland
   * display the simulator stands in front of); the workspaces of the first
   * simulated output go to the first, the others to the second (or the first).
   */
  outputs?: SimOutput[];
}

export class NiriSimulator extends EventEmitter {
  readonly outputs: SimOutput[] = [
    { name: 'DP-1', make: 'Simulated', model: 'Monitor A', physical: [1920, 1080], scale: 1, position: [0, 0], transform: 'Normal' },
    { name: 'HDMI-A-1', make: 'Simulated', model: 'Monitor B', physical: [2560, 1600], scale: 1.5, position: [1920, 0], transform: 'Normal' },
  ];
  readonly workspaces: SimWorkspace[] = [
    { id: 1, idx: 1, name: null, output: 'DP-1', activeWindowId: null, urgent: false },
    { id: 2, idx: 2, name: 'chat', output: 'DP-1', activeWindowId: null, urgent: false },
    { id: 3, idx: 3, name: null, output: 'DP-1', activeWindowId: null, urgent: false },
    { id: 4, idx: 1, name: null, output: 'HDMI-A-1', activeWindowId: null, urgent: false },
    { id: 5, idx: 2, name: null, output: 'HDMI-A-1', activeWindowId: null, urgent: false },
  ];
  readonly windows = new Map<number, SimWindow>();
  layers: SimLayer[] = [
    { namespace: 'wallpaper', output: 'DP-1', layer: 'Background', keyboard_interactivity: 'None' },
    { namespace: 'wallpaper', output: 'HDMI-A-1', layer: 'Background', keyboard_interactivity: 'None' },
    { namespace: 'waybar', output: 'DP-1', layer: 'Top', keyboard_interactivity: 'None' },
  ];
  /** Active workspace per output. */
  private readonly active = new Map<string, number>([
    ['DP-1', 1],
    ['HDMI-A-1', 4],
  ]);
  focusedWorkspaceId = 1;
  focusedWindowId: number | null = null;

  // ---- failure modes ----
  /** Delay before every reply. */
  replyDelayMs = 0;
  /** The next N replies are replaced by a non-JSON line. */
  garbageReplies = 0;
  /** Never answer requests (connections stay open). */
  hang = false;
  /** Close EventStream connections at once, without a reply. */
  refuseEventStreams = false;
  /** Send windows without the `layout` field (niri before 25.08); set by `version: '25.05'`. */
  omitLayout = false;
  /** The niri release whose wire shapes are spoken. */
  version: NiriSimVersion = '26.04';

  /** Names of requests received, in order (`Windows`, `Action FocusWindow`, `SimClient`). */
  readonly requests: string[] = [];
  /**
   * Called with each action (name, fields) after the simulator applied it; the
   * reply waits for the returned promise (niri answers once the action ran), so
   * a test can carry an action over to a real compositor.
   */
  onAction: ((name: string, args: Record<string, unknown>) => Promise<void> | void) | null = null;

  private server: Server | null = null;
  private readonly streams = new Set<Socket>();
  private readonly sockets = new Set<Socket>();
  private nextWindowId = 10;
  private orderCounter = 0;
  private ownsDir = false;

  private constructor(
    readonly dir: string,
    readonly socketPath: string,
    readonly display: string,
  ) {
    super();
  }

  static async start(opts: NiriSimulatorOptions = {}): Promise<NiriSimulator> {
    const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'niri-sim-'));
    const display = opts.display ?? 'wayland-sim';
    const sim = new NiriSimulator(dir, join(dir, `niri.${display}.${process.pid}.sock`), display);
    sim.ownsDir = !opts.dir;
    if (opts.outputs?.length) sim.useOutputs(opts.outputs);
    if (opts.version) {
      sim.version = opts.version;
      sim.omitLayout = !sim.atLeast('25.08');
    }
    if (opts.demoWindows !== false) {
      sim.openWindow({ title: 'notes', appId: 'foot', pid: process.pid, workspace: 1 });
      sim.openWindow({ title: 'Files', appId: 'org.gnome.Nautilus', pid: process.pid, workspace: 4, focus: false });
    }
    await sim.listen();
    return sim;
  }

  private useOutputs(outputs: SimOutput[]): void {
    const [first, second = first] = outputs;
    const rename = new Map([['DP-1', first.name], ['HDMI-A-1', second.name]]);
    for (const ws of this.workspaces) ws.output = rename.get(ws.output) ?? first.name;
    for (const l of this.layers) l.output = rename.get(l.output) ?? first.name;
    this.layers = this.layers.filter((l, i) => this.layers.findIndex((x) => x.namespace === l.namespace && x.output === l.output) === i);
    this.outputs.splice(0, this.outputs.length, ...outputs);
    this.active.clear();
    for (const o of outputs) {
      const ws = this.workspaces.find((w) => w.output === o.name);
      if (ws) this.active.set(o.name, ws.id);
    }
  }

  /** True when the spoken niri release is `v` or newer. */
  atLeast(v: NiriSimVersion): boolean {
    return VERSION_ORDER.indexOf(this.version) >= VERSION_ORDER.indexOf(v);
  }

  /** Environment a client of this simulator needs. */
  get env(): Record<string, string> {
    return { NIRI_SOCKET: this.socketPath, WAYLAND_DISPLAY: this.display, XDG_RUNTIME_DIR: this.dir };
  }

  private listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      const server = createServer((sock) => this.onConnection(sock));
      server.once('error', reject);
      server.listen(this.socketPath, () => {
        server.off('error', reject);
        this.server = server;
        resolve();
      });
    });
  }

  async stop(): Promise<void> {
    for (const w of [...this.windows.values()]) this.killOwner(w);
    for (const s of this.sockets) s.destroy();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((r) => server.close(() => r()));
    if (this.ownsDir) rmSync(this.dir, { recursive: true, force: true });
  }

  // ---- failure-mode triggers ----

  /** Cut every open event stream (as if niri dropped them); returns how many. */
  dropEventStreams(): number {
    const n = this.streams.size;
    for (const s of this.streams) s.destroy();
    this.streams.clear();
    return n;
  }

  /** Write an unparsable line to every event stream. */
  sendGarbageEvent(): void {
    for (const s of this.streams) s.write('}{ not json\n');
  }

  get eventStreamCount(): number {
    return this.streams.size;
  }

  // ---- state manipulation (what apps and the user would do) ----

  /** Map a window; returns its id. Emits the events niri would. */
  openWindow(spec: OpenWindowSpec = {}, owner: Owner = { kind: 'none' }): number {
    return this.commit(() => {
      const id = this.nextWindowId++;
      const wsId = spec.workspace != null && this.workspaces.some((w) => w.id === spec.workspace) ? spec.workspace : this.focusedWorkspaceId;
      const win: SimWindow = {
        id,
        title: spec.title ?? null,
        appId: spec.appId ?? null,
        pid: spec.pid ?? null,
        workspaceId: wsId,
        floating: spec.floating ?? false,
        fullscreen: false,
        urgent: false,
        order: ++this.orderCounter,
        size: spec.size ? [...spec.size] : [640, 400],
        ...(spec.pos ? { pos: [...spec.pos] as [number, number] } : {}),
        ...(spec.size ? { sizeGiven: true } : {}),
        ignoreClose: spec.ignoreClose ?? false,
        owner: spec.external ? { kind: 'external' } : owner,
        focusTs: null,
      };
      this.windows.set(id, win);
      const ws = this.ws(wsId)!;
      const focus = spec.focus ?? wsId === this.focusedWorkspaceId;
      if (focus) {
        this.activateWorkspace(wsId, true);
        this.focusWindowInternal(id);
      } else if (ws.activeWindowId === null) ws.activeWindowId = id;
      this.emit('window-open', id);
      return id;
    });
  }

  /** Unmap a window (the client went away). */
  removeWindow(id: number): void {
    if (!this.windows.has(id)) return;
    this.commit(() => {
      const win = this.windows.get(id)!;
      this.windows.delete(id);
      const ws = this.ws(win.workspaceId);
      if (ws && ws.activeWindowId === id) ws.activeWindowId = this.windowsOn(ws.id).at(-1)?.id ?? null;
      if (this.focusedWindowId === id) this.focusedWindowId = this.ws(this.focusedWorkspaceId)?.activeWindowId ?? null;
    });
    this.emit('window-close', id);
  }

  /** The window moved or resized (or changed floating) on its own: the events niri would emit. */
  setPlacement(id: number, p: { size?: [number, number]; pos?: [number, number]; floating?: boolean }): void {
    this.commit(() => {
      const w = this.windows.get(id);
      if (!w) return;
      if (p.size) w.size = [...p.size];
      if (p.pos) w.pos = [...p.pos];
      if (p.floating !== undefined) w.floating = p.floating;
    });
  }

  /** Focus a window as if the person clicked it. */
  focus(id: number): void {
    if (this.windows.has(id)) this.commit(() => this.focusWindowInternal(id));
  }

  setTitle(id: number, title: string): void {
    this.commit(() => {
      const w = this.windows.get(id);
      if (w) w.title = title;
    });
  }

  setUrgent(id: number, urgent: boolean): void {
    this.commit(() => {
      const w = this.windows.get(id);
      if (w) w.urgent = urgent;
    });
  }

  addLayer(layer: SimLayer): void {
    this.layers.push(layer);
  }

  removeLayer(namespace: string): void {
    this.layers = this.layers.filter((l) => l.namespace !== namespace);
  }

  // ---- niri JSON shapes ----

  logical(o: SimOutput): { x: number; y: number; width: number; height: number; scale: number; transform: string } {
    let width = Math.trunc(o.physical[0] / o.scale);
    let height = Math.trunc(o.physical[1] / o.scale);
    if (/90|270/.test(o.transform)) [width, height] = [height, width];
    return { x: o.position[0], y: o.position[1], width, height, scale: o.scale, transform: o.transform };
  }

  outputJson(o: SimOutput): Json {
    return {
      name: o.name,
      make: o.make,
      model: o.model,
      serial: null,
      physical_size: [600, 340],
      modes: [{ width: o.physical[0], height: o.physical[1], refresh_rate: 60000, is_preferred: true }],
      current_mode: 0,
      is_custom_mode: false,
      vrr_supported: false,
      vrr_enabled: false,
      logical: this.logical(o),
    };
  }

  workspaceJson(ws: SimWorkspace): Json {
    return {
      id: ws.id,
      idx: ws.idx,
      name: ws.name,
      output: ws.output,
      is_urgent: ws.urgent,
      is_active: this.active.get(ws.output) === ws.id,
      is_focused: this.focusedWorkspaceId === ws.id,
      active_window_id: ws.activeWindowId,
    };
  }

  layoutJson(win: SimWindow): Json {
    const ws = this.ws(win.workspaceId)!;
    const out = this.outputs.find((o) => o.name === ws.output)!;
    const { width: W, height: H } = this.logical(out);
    const tiled = this.windowsOn(ws.id).filter((w) => !w.floating);
    const column = tiled.findIndex((w) => w.id === win.id);
    if (win.fullscreen) {
      return {
        pos_in_scrolling_layout: column >= 0 ? [column + 1, 1] : null,
        tile_size: [W, H],
        window_size: [W, H],
        tile_pos_in_workspace_view: null, // a tiled tile, fullscreen or not: niri gives no position
        window_offset_in_tile: [0, 0],
      };
    }
    if (win.floating) {
      const [w, h] = win.size;
      const tw = w + 2 * BORDER;
      const th = h + 2 * BORDER;
      return {
        pos_in_scrolling_layout: null,
        tile_size: [tw, th],
        window_size: [w, h],
        // floating tiles always have a position in their workspace's view, shown or not
        tile_pos_in_workspace_view: win.pos ? [win.pos[0] - BORDER, win.pos[1] - BORDER] : [(W - tw) / 2, (H - th) / 2],
        window_offset_in_tile: [BORDER, BORDER],
      };
    }
    if (win.sizeGiven) {
      const [w, h] = win.size;
      return {
        pos_in_scrolling_layout: [column + 1, 1],
        tile_size: [w + 2 * BORDER, h + 2 * BORDER],
        window_size: [w, h],
        tile_pos_in_workspace_view: null,
        window_offset_in_tile: [BORDER, BORDER],
      };
    }
    const tileW = (W - 3 * GAP) / 2;
    const tileH = H - 2 * GAP;
    return {
      pos_in_scrolling_layout: [column + 1, 1],
      tile_size: [tileW, tileH],
      window_size: [Math.floor(tileW - 2 * BORDER), Math.floor(tileH - 2 * BORDER)],
      tile_pos_in_workspace_view: null, // tiled: niri reports the column/tile index, never a position
      window_offset_in_tile: [BORDER, BORDER],
    };
  }

  windowJson(win: SimWindow): Json {
    const base: Json = {
      id: win.id,
      title: win.title,
      app_id: win.appId,
      pid: win.pid,
      workspace_id: win.workspaceId,
      is_focused: this.focusedWindowId === win.id,
      is_floating: win.floating,
      is_urgent: win.urgent,
    };
    if (!this.omitLayout) {
      base.layout = this.layoutJson(win);
    }
    if (this.atLeast('25.11')) {
      base.focus_timestamp = win.focusTs === null ? null : { secs: Math.floor(win.focusTs / 1000), nanos: (win.focusTs % 1000) * 1e6 };
    }
    return base;
  }

  // ---- internals: state transitions with event emission ----

  private ws(id: number): SimWorkspace | undefined {
    return this.workspaces.find((w) => w.id === id);
  }

  private windowsOn(wsId: number): SimWindow[] {
    return [...this.windows.values()].filter((w) => w.workspaceId === wsId).sort((a, b) => a.order - b.order);
  }

  private activateWorkspace(id: number, focus: boolean): void {
    const ws = this.ws(id);
    if (!ws) return;
    this.active.set(ws.output, id);
    if (focus) {
      this.focusedWorkspaceId = id;
      this.focusedWindowId = ws.activeWindowId;
      if (ws.activeWindowId !== null) this.windows.get(ws.activeWindowId)!.focusTs = Date.now();
    }
  }

  private focusWindowInternal(id: number): void {
    const win = this.windows.get(id);
    if (!win) return;
    const ws = this.ws(win.workspaceId)!;
    ws.activeWindowId = id;
    this.activateWorkspace(ws.id, true);
    this.focusedWindowId = id;
    win.focusTs = Date.now();
  }

  /** Run a mutation and broadcast the niri events that describe its effect. */
  private commit<T>(mutate: () => T): T {
    const before = this.capture();
    const result = mutate();
    const after = this.capture();
    const events: Json[] = [];
    for (const id of before.windows.keys()) if (!after.windows.has(id)) events.push({ WindowClosed: { id } });
    const opened = new Set<number>();
    for (const [id, w] of after.windows) {
      const prev = before.windows.get(id);
      if (!prev) {
        opened.add(id);
        events.push({ WindowOpenedOrChanged: { window: w } });
      } else if (identity(prev) !== identity(w)) events.push({ WindowOpenedOrChanged: { window: w } });
      else if (prev.is_urgent !== w.is_urgent) events.push({ WindowUrgencyChanged: { id, urgent: w.is_urgent } });
    }
    for (const [id, ws] of after.workspaces) {
      const prev = before.workspaces.get(id);
      if (prev && ((!prev.is_active && ws.is_active) || (!prev.is_focused && ws.is_focused))) {
        events.push({ WorkspaceActivated: { id, focused: ws.is_focused } });
      }
    }
    if (before.focused !== after.focused && !(after.focused !== null && opened.has(after.focused))) {
      events.push({ WindowFocusChanged: { id: after.focused } });
    }
    for (const [id, ws] of after.workspaces) {
      const prev = before.workspaces.get(id);
      if (prev && prev.active_window_id !== ws.active_window_id) {
        events.push({ WorkspaceActiveWindowChanged: { workspace_id: id, active_window_id: ws.active_window_id } });
      }
    }
    if (!this.omitLayout) {
      const changes: Array<[number, unknown]> = [];
      for (const [id, w] of after.windows) {
        const prev = before.windows.get(id);
        if (prev && !opened.has(id) && JSON.stringify(prev.layout) !== JSON.stringify(w.layout)) changes.push([id, w.layout]);
      }
      if (changes.length) events.push({ WindowLayoutsChanged: { changes } });
    }
    for (const e of events) this.broadcast(e);
    return result;
  }

  private capture(): { windows: Map<number, Json>; workspaces: Map<number, Json>; focused: number | null } {
    return {
      windows: new Map([...this.windows.values()].map((w) => [w.id, this.windowJson(w)])),
      workspaces: new Map(this.workspaces.map((w) => [w.id, this.workspaceJson(w)])),
      focused: this.focusedWindowId,
    };
  }

  private broadcast(event: Json): void {
    const line = `${JSON.stringify(event)}\n`;
    for (const s of this.streams) s.write(line);
    this.emit('event', event);
  }

  // ---- connections ----

  private onConnection(sock: Socket): void {
    this.sockets.add(sock);
    const decoder = new StringDecoder('utf8');
    let pending = '';
    let chain = Promise.resolve();
    let streaming = false;
    sock.on('data', (chunk) => {
      if (streaming) return; // niri stops reading an event-stream connection
      pending += decoder.write(chunk);
      let nl = pending.indexOf('\n');
      while (nl !== -1) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        nl = pending.indexOf('\n');
        if (!line.trim()) continue;
        chain = chain.then(async () => {
          if (streaming || sock.destroyed) return;
          const r = await this.handleLine(line, sock);
          if (r === 'stream') streaming = true;
        });
      }
    });
    sock.on('error', () => undefined);
    sock.on('close', () => {
      this.sockets.delete(sock);
      this.streams.delete(sock);
      for (const w of [...this.windows.values()]) {
        if (w.owner.kind === 'client' && w.owner.socket === sock) this.removeWindow(w.id);
      }
    });
  }

  private async reply(sock: Socket, value: Json): Promise<void> {
    if (this.hang) return;
    if (this.replyDelayMs > 0) await new Promise((r) => setTimeout(r, this.replyDelayMs));
    if (sock.destroyed) return;
    if (this.garbageReplies > 0) {
      this.garbageReplies--;
      sock.write('<html>not niri</html>\n');
      return;
    }
    sock.write(`${JSON.stringify(value)}\n`);
  }

  private async handleLine(line: string, sock: Socket): Promise<'stream' | void> {
    let req: unknown;
    try {
      req = JSON.parse(line);
    } catch (e) {
      this.requests.push('<unparsable>');
      return this.reply(sock, { Err: `error parsing request: ${(e as Error).message}` });
    }
    const name = typeof req === 'string' ? req : req && typeof req === 'object' ? Object.keys(req)[0] : String(req);
    const body = typeof req === 'object' && req !== null ? (req as Json)[name] : undefined;
    this.requests.push(name === 'Action' && body && typeof body === 'object' ? `Action ${Object.keys(body)[0]}` : name);
    switch (name) {
      case 'Version':
        return this.reply(sock, { Ok: { Version: `${this.version} (niri-simulator)` } });
      case 'Outputs':
        return this.reply(sock, { Ok: { Outputs: Object.fromEntries(this.outputs.map((o) => [o.name, this.outputJson(o)])) } });
      case 'Workspaces':
        return this.reply(sock, { Ok: { Workspaces: this.workspaces.map((w) => this.workspaceJson(w)) } });
      case 'Windows':
        return this.reply(sock, { Ok: { Windows: [...this.windows.values()].map((w) => this.windowJson(w)) } });
      case 'Layers':
        return this.reply(sock, { Ok: { Layers: this.layers } });
      case 'KeyboardLayouts':
        return this.reply(sock, { Ok: { KeyboardLayouts: { names: ['English (US)'], current_idx: 0 } } });
      case 'FocusedOutput': {
        const ws = this.ws(this.focusedWorkspaceId);
        const o = this.outputs.find((x) => x.name === ws?.output);
        return this.reply(sock, { Ok: { FocusedOutput: o ? this.outputJson(o) : null } });
      }
      case 'FocusedWindow': {
        const w = this.focusedWindowId !== null ? this.windows.get(this.focusedWindowId) : undefined;
        return this.reply(sock, { Ok: { FocusedWindow: w ? this.windowJson(w) : null } });
      }
      case 'OverviewState':
        return this.reply(sock, { Ok: { OverviewState: { is_open: false } } });
      case 'Casts':
        if (!this.atLeast('26.04')) return this.reply(sock, { Err: 'error parsing request: unknown variant `Casts`' });
        return this.reply(sock, { Ok: { Casts: [] } });
      case 'ReturnError':
        return this.reply(sock, { Err: 'example compositor error' });
      case 'EventStream':
        return this.startStream(sock);
      case 'Action': {
        const result = this.action(body);
        const hook = this.onAction;
        if (hook && body && typeof body === 'object') {
          const [act] = Object.keys(body);
          await Promise.resolve().then(() => hook(act, ((body as Json)[act] ?? {}) as Record<string, unknown>)).catch(() => undefined);
        }
        return this.reply(sock, result);
      }
      case 'SimClient':
        return this.simClient(body, sock);
      default:
        return this.reply(sock, { Err: `error parsing request: unknown variant \`${name}\`` });
    }
  }

  private async startStream(sock: Socket): Promise<'stream'> {
    if (this.refuseEventStreams) {
      sock.destroy();
      return 'stream';
    }
    if (this.hang) return 'stream';
    if (this.replyDelayMs > 0) await new Promise((r) => setTimeout(r, this.replyDelayMs));
    if (sock.destroyed) return 'stream';
    const burst: Json[] = [
      { WorkspacesChanged: { workspaces: this.workspaces.map((w) => this.workspaceJson(w)) } },
      { WindowsChanged: { windows: [...this.windows.values()].map((w) => this.windowJson(w)) } },
      { KeyboardLayoutsChanged: { keyboard_layouts: { names: ['English (US)'], current_idx: 0 } } },
      { OverviewOpenedOrClosed: { is_open: false } },
      { ConfigLoaded: { failed: false } },
      ...(this.atLeast('26.04') ? [{ CastsChanged: { casts: [] } }] : []),
    ];
    sock.write(`${JSON.stringify({ Ok: 'Handled' })}\n${burst.map((e) => JSON.stringify(e)).join('\n')}\n`);
    this.streams.add(sock);
    this.emit('stream');
    return 'stream';
  }

  private async simClient(body: unknown, sock: Socket): Promise<void> {
    const b = (body ?? {}) as Json;
    const pid = typeof b.pid === 'number' ? b.pid : null;
    this.emit('client', { pid, title: b.title });
    await this.reply(sock, { Ok: 'Handled' });
    const delay = typeof b.delay_ms === 'number' ? b.delay_ms : 0;
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    if (sock.destroyed) return;
    this.openWindow(
      {
        title: typeof b.title === 'string' ? b.title : null,
        appId: typeof b.app_id === 'string' ? b.app_id : null,
        pid,
        workspace: typeof b.workspace === 'number' ? b.workspace : null,
        ignoreClose: b.ignore_close === true,
      },
      { kind: 'client', socket: sock },
    );
  }

  // ---- actions ----

  private targetId(id: unknown): number | null {
    return typeof id === 'number' ? id : this.focusedWindowId;
  }

  private resolveRef(ref: unknown): SimWorkspace | undefined {
    if (!ref || typeof ref !== 'object') return undefined;
    const r = ref as Json;
    if (typeof r.Id === 'number') return this.ws(r.Id);
    if (typeof r.Name === 'string') return this.workspaces.find((w) => w.name === r.Name);
    if (typeof r.Index === 'number') {
      const output = this.ws(this.focusedWorkspaceId)!.output;
      const onOutput = this.workspaces.filter((w) => w.output === output).sort((a, b) => a.idx - b.idx);
      return onOutput.find((w) => w.idx === r.Index) ?? onOutput.at(-1);
    }
    return undefined;
  }

  private action(body: unknown): Json {
    if (!body || typeof body !== 'object') return { Err: 'error parsing request: invalid action' };
    const [name] = Object.keys(body);
    const a = ((body as Json)[name] ?? {}) as Json;
    switch (name) {
      case 'FocusWindow': {
        if (typeof a.id !== 'number') return { Err: 'error parsing request: missing field `id`' };
        this.commit(() => this.focusWindowInternal(a.id as number));
        return { Ok: 'Handled' };
      }
      case 'FocusWorkspace': {
        const ws = this.resolveRef(a.reference);
        if (ws) this.commit(() => this.activateWorkspace(ws.id, true));
        return { Ok: 'Handled' };
      }
      case 'MoveWindowToWorkspace': {
        const id = this.targetId(a.window_id);
        const win = id !== null ? this.windows.get(id) : undefined;
        const target = this.resolveRef(a.reference);
        if (!win || !target || win.workspaceId === target.id) return { Ok: 'Handled' };
        const focus = a.focus !== false;
        this.commit(() => {
          const src = this.ws(win.workspaceId)!;
          win.workspaceId = target.id;
          win.order = ++this.orderCounter;
          if (src.activeWindowId === win.id) src.activeWindowId = this.windowsOn(src.id).at(-1)?.id ?? null;
          target.activeWindowId = win.id;
          if (focus) this.focusWindowInternal(win.id);
          else if (this.focusedWindowId === win.id) this.focusedWindowId = src.activeWindowId;
        });
        return { Ok: 'Handled' };
      }
      case 'CloseWindow': {
        const id = this.targetId(a.id);
        const win = id !== null ? this.windows.get(id) : undefined;
        if (win && !win.ignoreClose) this.requestClose(win);
        return { Ok: 'Handled' };
      }
      case 'FullscreenWindow': {
        const id = this.targetId(a.id);
        const win = id !== null ? this.windows.get(id) : undefined;
        if (win) this.commit(() => (win.fullscreen = !win.fullscreen));
        return { Ok: 'Handled' };
      }
      case 'ToggleWindowFloating': {
        const id = this.targetId(a.id);
        const win = id !== null ? this.windows.get(id) : undefined;
        if (win) {
          this.commit(() => {
            win.floating = !win.floating;
            win.fullscreen = false;
          });
        }
        return { Ok: 'Handled' };
      }
      case 'Spawn':
      case 'SpawnSh': {
        const argv = name === 'Spawn' ? a.command : ['/bin/sh', '-c', a.command];
        if (!Array.isArray(argv) || argv.length === 0 || argv.some((x) => typeof x !== 'string')) {
          return { Err: 'error parsing request: invalid command' };
        }
        this.spawnWithWindow(argv as string[]);
        return { Ok: 'Handled' };
      }
      default:
        return { Err: `the niri simulator does not implement action ${name}` };
    }
  }

  /** Start a process the way niri's Spawn does and map a window owned by it. */
  spawnWithWindow(argv: string[], spec: OpenWindowSpec = {}): ChildProcess {
    const child = spawn(argv[0], argv.slice(1), { detached: true, stdio: 'ignore', env: { ...process.env, ...this.env } });
    child.on('error', () => undefined);
    child.once('spawn', () => {
      setTimeout(() => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const id = this.openWindow({ title: argv.join(' '), appId: basename(argv[0]), ...spec, pid: child.pid! }, { kind: 'process', child });
        child.once('exit', () => this.removeWindow(id));
      }, 30);
    });
    child.unref();
    return child;
  }

  private requestClose(win: SimWindow): void {
    switch (win.owner.kind) {
      case 'client':
        win.owner.socket.end(); // the client exits; its window unmaps when the connection closes
        return;
      case 'process':
        win.owner.child.kill('SIGTERM'); // unmapped on exit
        return;
      case 'external':
        return;
      default:
        setTimeout(() => this.removeWindow(win.id), 20);
    }
  }

  private killOwner(win: SimWindow): void {
    if (win.owner.kind === 'client') win.owner.socket.destroy();
    if (win.owner.kind === 'process' && win.owner.child.exitCode === null) win.owner.child.kill('SIGKILL');
  }
}

/** Everything of a window except what niri reports through dedicated events (focus, urgency, layout). */
function identity(w: Json): string {
  const { is_focused: _f, is_urgent: _u, layout: _l, focus_timestamp: _t, ...rest } = w;
  return JSON.stringify(rest);
}
