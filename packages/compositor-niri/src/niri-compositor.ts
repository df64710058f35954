import { basename, dirname } from 'node:path';
import {
  CapabilityTable,
  launchAndPlace,
  HypruseError,
  NotFoundError,
  UnsupportedError,
  UsageError,
  procfsTable,
  spawnDetached,
  startLaunch,
  throwIfAborted,
  type Bind,
  type ChordRegistration,
  type KeyCombo,
  type CloseOutcome,
  type Compositor,
  type CompositorCapability,
  type Desktop,
  type EventSubscription,
  type LaunchOptions,
  type LaunchResult,
  type Logger,
  type Point,
  type ProcessTable,
  type Spawner,
  type Window, closeAndConfirm } from '@hypruse/core';
import { NiriEventHub } from './events/niri-event-hub.js';
import { NiriIpcClient } from './ipc/niri-ipc-client.js';
import type { NiriWindow, NiriWorkspace } from './ipc/types.js';
import { toDesktop, toWindow } from './model/to-desktop.js';
import { resolveWorkspace } from './model/workspace-ref.js';
import { readNiriBinds } from './model/binds.js';

export interface NiriCompositorOptions {
  /** Path of niri's IPC socket ($NIRI_SOCKET). */
  socketPath: string;
  /** The session environment launched processes start from (default: process.env). */
  baseEnv?: NodeJS.ProcessEnv;
  /** Environment for launched processes on top of `baseEnv` (WAYLAND_DISPLAY etc. of this niri). */
  childEnv?: Record<string, string>;
  logger?: Logger;
  /** Deadline for one IPC request (default: the kit's one policy). */
  requestTimeoutMs?: number;
  /** Injection points for tests. */
  spawner?: Spawner;
  processTable?: ProcessTable;
}


/** Why the stop chord cannot be registered on niri. */
export const NIRI_CHORD_REASON =
  'niri reads key bindings only from its config file (the binds section); its IPC has no request to add or remove a binding at run time';

const CAPS = new CapabilityTable('niri', ['layers', 'launch', 'fullscreen', 'floating', 'close', 'move', 'focus', 'workspace', 'events'], {
  'cursor.read': 'niri IPC has no request that reports the pointer position',
  'cursor.set':
    "niri IPC cannot warp the pointer (no such action); hypruse positions it with its virtual pointer's absolute motion over the output layout instead",
  'lock.read': 'niri IPC does not report whether the session is locked (logind LockedHint may)',
  tag: 'niri has no window tags',
  notify: 'niri has no on-screen notice over IPC',
  binds: "niri IPC does not list the configured key bindings (they live in niri's KDL config only)",
  'bind.run': 'niri IPC does not list key bindings, so there is no bind to run; use the action itself',
  'capture.toplevel': 'niri implements no ext-foreign-toplevel image capture; capture the window region instead',
  'launch.unseen.later': 'niri cannot open a launched window out of the person\'s sight at all (launch.unseen)',
  'launch.unseen':
    "niri's IPC can neither create an output nor add a window rule at run time (open-on-workspace rules live in its KDL config), so a new window opens on the focused workspace and takes the focus; work in a private desk (desk: \"private\")",
});

/** The niri compositor over its JSON IPC (`$NIRI_SOCKET`). */
export class NiriCompositor implements Compositor {
  readonly id = 'niri';
  readonly displayName = 'niri';
  readonly capabilities: ReadonlySet<CompositorCapability> = CAPS.set;
  readonly ipc: NiriIpcClient;
  private readonly hub: NiriEventHub;
  private readonly spawner: Spawner;
  private readonly processTable: ProcessTable;
  private readonly childEnv: Record<string, string>;

  constructor(private readonly opts: NiriCompositorOptions) {
    this.ipc = new NiriIpcClient(opts.socketPath, opts.requestTimeoutMs);
    this.hub = new NiriEventHub(this.ipc, opts.logger);
    this.spawner = opts.spawner ?? spawnDetached;
    this.processTable = opts.processTable ?? procfsTable;
    this.childEnv = { ...niriSessionEnv(opts.socketPath), ...(opts.childEnv ?? {}) };
  }

  get instanceId(): string {
    return this.opts.socketPath;
  }

  unsupportedReason(cap: CompositorCapability): string {
    return CAPS.reason(cap);
  }

  version(): Promise<string> {
    return this.ipc.version();
  }

  async snapshot(signal?: AbortSignal): Promise<Desktop> {
    const o = { signal };
    const [outputs, workspaces, windows, layers] = await Promise.all([
      this.ipc.outputs(o),
      this.ipc.workspaces(o),
      this.ipc.windows(o),
      // niri before the Layers request answers Err: the desktop then has no layer list rather than no desktop
      this.ipc.layers(o).catch((e: unknown) => {
        if (e instanceof HypruseError && e.data?.niri !== undefined) return null;
        throw e;
      }),
    ]);
    return toDesktop({ outputs, workspaces, windows, layers });
  }

  subscribe(): Promise<EventSubscription> {
    return this.hub.subscribe();
  }

  async focusWindow(address: string): Promise<void> {
    const win = await this.requireWindow(address);
    await this.ipc.action({ FocusWindow: { id: win.id } });
  }

  async switchWorkspace(workspace: string): Promise<void> {
    const { reference } = resolveWorkspace(workspace, await this.ipc.workspaces());
    await this.ipc.action({ FocusWorkspace: { reference } });
  }

  async moveToWorkspace(address: string, workspace: string, silent: boolean): Promise<void> {
    const [win, workspaces] = await Promise.all([this.requireWindow(address), this.ipc.workspaces()]);
    const { reference } = resolveWorkspace(workspace, workspaces);
    await this.ipc.action({ MoveWindowToWorkspace: { window_id: win.id, reference, focus: !silent } });
  }

  async closeWindow(address: string, timeoutMs: number): Promise<CloseOutcome> {
    const win = await this.requireWindow(address);
    return closeAndConfirm(String(win.id), timeoutMs, {
      subscribe: () =>
        this.hub.subscribe().catch((e: Error) => {
          this.opts.logger?.warn(`niri event stream unavailable, closing without confirmation: ${e.message}`);
          return null;
        }),
      send: () => this.ipc.action({ CloseWindow: { id: win.id } }).then(() => undefined),
      isOpen: async () => (await this.ipc.windows()).some((w) => w.id === win.id),
    });
  }

  async toggleFullscreen(address: string | null): Promise<void> {
    const id = address === null ? (await this.requireFocused()).id : (await this.requireWindow(address)).id;
    await this.ipc.action({ FullscreenWindow: { id } });
  }

  async toggleFloating(address: string | null): Promise<void> {
    const id = address === null ? (await this.requireFocused()).id : (await this.requireWindow(address)).id;
    await this.ipc.action({ ToggleWindowFloating: { id } });
  }

  async moveCursor(_point: Point): Promise<void> {
    throw CAPS.refuse('cursor.set', 'Position the pointer through the Input backend (virtual pointer motion_absolute).');
  }

  /**
   * Start `command` (via /bin/sh, detached) and wait for a window of *that*
   * process (core's `awaitLaunchedWindow`: its pid, a descendant's, its
   * session's, or one carrying the launch token). Other windows that open
   * meanwhile are ignored. niri has no exec rule to place a window, so a
   * requested workspace is applied by moving the window once it is open.
   */
  async launch(command: string, opts: LaunchOptions): Promise<LaunchResult> {
    if (opts.unseen) throw CAPS.refuse('launch.unseen');
    if (!command.trim()) throw new UsageError('launch needs a command: the program and its arguments, as a shell command line');
    throwIfAborted(opts.signal);
    const target = opts.workspace ? resolveWorkspace(opts.workspace, await this.ipc.workspaces({ signal: opts.signal })) : null;
    let streamError: string | null = null;
    const env = { ...(this.opts.baseEnv ?? process.env), ...this.childEnv, ...(opts.env ?? {}) };
    const r = await launchAndPlace(
      {
        subscribe: () =>
          this.hub.subscribe().catch((e: Error) => {
            streamError = e.message;
            return null;
          }),
        windows: async (signal) => (await this.ipc.windows({ signal })).map((w) => ({ address: String(w.id), pid: w.pid ?? null, class: w.app_id ?? undefined, title: w.title ?? undefined })),
        start: () => startLaunch(command, env, { spawner: this.spawner, table: this.processTable }),
        window: (address) => this.describeWindow(Number(address)),
        placed: async (w) => (await this.ipc.windows()).find((x) => x.id === Number(w.address))?.workspace_id === target?.workspace?.id,
        move: (address) => this.ipc.action({ MoveWindowToWorkspace: { window_id: Number(address), reference: target!.reference, focus: false } }),
      },
      { workspace: target ? opts.workspace : undefined, timeoutMs: opts.timeoutMs, signal: opts.signal, stayMs: opts.stayMs, splash: opts.splash, program: opts.program, table: this.processTable },
    );
    if (!r.window && streamError) r.note = `${r.note} (event stream unavailable: ${streamError}; polled instead)`;
    return r;
  }

  async binds(): Promise<Bind[]> {
    throw CAPS.refuse('binds');
  }

  /** The bindings of niri's config file (its IPC cannot list them): read to keep the keyboard tool off them. */
  async configuredBinds(): Promise<Bind[] | null> {
    return readNiriBinds(this.opts.baseEnv ?? process.env);
  }

  readonly chordUnsupported = NIRI_CHORD_REASON;

  /** niri has no run-time bindings over IPC: the stop chord cannot be registered (see NIRI_CHORD_REASON). */
  async registerChord(_combo: KeyCombo, _onPress: () => void): Promise<ChordRegistration> {
    throw new UnsupportedError('niri', 'stop chord', NIRI_CHORD_REASON, 'stop hypruse with `hypruse stop` (bind it in niri\'s config: Mod+Alt+Escape { spawn "hypruse" "stop"; }) or the monitor page');
  }

  async runBind(_bind: Bind): Promise<string> {
    throw CAPS.refuse('bind.run');
  }

  /** niri's IPC cannot tell (see `unsupportedReason('lock.read')`). */
  async locked(): Promise<boolean | null> {
    return null;
  }

  async tagWindow(_address: string, _tag: string): Promise<void> {
    throw CAPS.refuse('tag');
  }

  async notify(_message: string, _ms: number): Promise<void> {
    throw CAPS.refuse('notify');
  }

  async installMarkRule(_tag: string): Promise<boolean> {
    return false;
  }

  async dispose(): Promise<void> {
    this.hub.dispose();
  }

  // ---- helpers -------------------------------------------------------------

  private async requireWindow(address: string): Promise<NiriWindow> {
    const id = parseAddress(address);
    const win = (await this.ipc.windows()).find((w) => w.id === id);
    if (!win) throw new NotFoundError('not_found.window', `niri has no window ${address}`, { hint: 'It may have closed; call desktop() for current addresses.' });
    return win;
  }

  private async requireFocused(): Promise<NiriWindow> {
    const win = await this.ipc.focusedWindow();
    if (!win) throw new NotFoundError('not_found.window', 'no window is focused on niri', { hint: 'Pass a window address from desktop().' });
    return win;
  }

  private async describeWindow(id: number): Promise<Window | null> {
    const [outputs, workspaces, windows] = await Promise.all([this.ipc.outputs(), this.ipc.workspaces(), this.ipc.windows()]);
    const w = windows.find((x) => x.id === id);
    return w ? toWindow(w, outputs, workspaces as NiriWorkspace[]) : null;
  }
}

/** niri window addresses are its window ids (unsigned integers). */
export function parseAddress(address: string): number {
  const s = String(address).trim();
  if (!/^\d{1,15}$/.test(s)) {
    throw new UsageError(`'${s.slice(0, 40)}' is not a niri window address: use the numeric \`address\` field from desktop()`, { code: 'usage.address' });
  }
  return Number(s);
}

/** The session variables a child of this niri needs, derived from its socket path `<runtime>/niri.<display>.<pid>.sock`. */
export function niriSessionEnv(socketPath: string): Record<string, string> {
  const env: Record<string, string> = { NIRI_SOCKET: socketPath };
  const m = /^niri\.(.+)\.(\d+)\.sock$/.exec(basename(socketPath));
  if (m) env.WAYLAND_DISPLAY = m[1];
  env.XDG_RUNTIME_DIR = dirname(socketPath);
  return env;
}
