import type { Bind, CloseOutcome, Compositor, Desktop, EventSubscription, LaunchResult, Monitor, Window, Workspace } from '@hypruse/core';
import { CapabilityTable, EventHub, HypruseError, REQUEST_TIMEOUT_MS, closeAndConfirm, exactScale, scaledMs } from '@hypruse/core';
import { WS_CAP, WS_STATE, arg, type ExtWorkspace, type ExtWorkspaceList } from '@hypruse/wayland';
import { MANAGER, REQUEST, STATE, ToplevelSession, type Output, type Toplevel } from './toplevels.js';
import { WLROOTS_MANIFEST } from './manifest.js';

const NAME = WLROOTS_MANIFEST.displayName;
const NO_IPC = 'the compositor is reached through standard Wayland protocols only, and none of them';
const NO_WS = 'ext-workspace-v1, which the compositor does not offer';
/** One table per compositor: workspace switching is granted where ext-workspace-v1 is offered. */
const capsTable = () => new CapabilityTable(NAME, ['focus', 'close', 'fullscreen', 'events'], {
  layers: `${NO_IPC} lists other clients' layer surfaces`,
  'cursor.read': `${NO_IPC} reports the pointer position`,
  'cursor.set': `${NO_IPC} warps the pointer; hypruse moves it with its virtual pointer instead`,
  'lock.read': `${NO_IPC} tells whether the session is locked`,
  tag: `${NO_IPC} tags windows`,
  notify: `${NO_IPC} shows a notice`,
  binds: `${NO_IPC} lists key bindings`,
  'bind.run': `${NO_IPC} runs a key binding`,
  launch: `${MANAGER} reports no pid, so a launched process cannot be told from its window; start the program with a plain command and find its window with desktop`,
  'launch.unseen': `${MANAGER} reports no pid and ${NO_IPC} places a new window, so it cannot open one out of the person's sight; work in a private desk`,
  'launch.unseen.later': "it cannot open a launched window out of the person's sight at all (launch.unseen)",
  floating: `${NO_IPC} sets a window floating`,
  move: `${NO_IPC} moves a window between workspaces (ext-workspace-v1 lists workspaces but not their windows)`,
  workspace: `${NO_IPC} switches workspaces except ${NO_WS}`,
  'capture.toplevel': 'window capture by toplevel needs ext-image-copy-capture, which this plugin does not use; capture the output',
});
const POSITION_UNKNOWN = `${MANAGER} reports no window position or size`;
const WORKSPACE_UNKNOWN = 'ext-workspace-v1 lists workspaces but not which windows are on them, and no other protocol says';
/** A number of this process, or an ext-foreign-toplevel-list identifier. */
const ADDRESS = /^[0-9]{1,9}$|^[A-Za-z0-9._:-]{10,64}$/;
const WS_NAME = /^[^\u0000-\u001f"';]{1,64}$/;
/** A workspace's key: the compositor's stable id when it gives one, else its name. */
const wsKey = (w: ExtWorkspace) => w.id ?? w.name;

/** wl_output.scale is a whole number (a fractional 1.5 reads 2): the mode over the logical size is the real one. */
function scaleOf(o: Output): number {
  const across = o.transform % 2 === 0 ? o.physical?.width : o.physical?.height;
  return across && o.logical.width > 0 ? exactScale(across / o.logical.width, o.physical!.width, o.physical!.height) : o.scale;
}

/** Per output id, the key of the active workspace of the group the output is in (the first active one). */
function extShown(ext: ExtWorkspaceList, outputs: Output[]): Map<number, string> {
  const shown = new Map<number, string>();
  for (const w of ext.list()) {
    if (!(w.state & WS_STATE.active)) continue;
    for (const o of outputs) if (!shown.has(o.id) && ext.groupOf(w)?.outputs.has(o.id)) shown.set(o.id, wsKey(w));
  }
  return shown;
}

/** Any wlroots-family compositor (labwc, river, Wayfire, sway...) through the standard protocols: no IPC socket. */
export class WlrootsCompositor implements Compositor {
  readonly id = WLROOTS_MANIFEST.id;
  readonly displayName = NAME;
  readonly capabilities: ReadonlySet<Parameters<Compositor['unsupportedReason']>[0]>;
  private readonly caps = capsTable();
  private session: Promise<ToplevelSession> | null = null;
  private seq = 0;
  private readonly hub: EventHub;

  /** `workspaces`: the display offers ext_workspace_manager_v1 (switching is then granted). */
  constructor(private readonly path: string, workspaces = false) {
    if (workspaces) this.caps.grant('workspace');
    this.capabilities = this.caps.set;
    this.hub = new EventHub({
      peer: NAME,
      open: async (emit, dropped) => {
        const s = await this.current();
        const listener = (events: Parameters<typeof emit>[0]) => emit(events);
        s.listeners.add(listener);
        void s.conn.whenFailed().then((err) => s.listeners.has(listener) && dropped(err));
        return { close: () => s.listeners.delete(listener) };
      },
    });
  }

  unsupportedReason(cap: Parameters<Compositor['unsupportedReason']>[0]): string {
    return this.caps.reason(cap);
  }

  /** The live connection, opened again after it ended. */
  private current(): Promise<ToplevelSession> {
    if (this.session) return this.session;
    const p = ToplevelSession.open(this.path, scaledMs(REQUEST_TIMEOUT_MS), () => String(++this.seq)).catch((e: unknown) => {
      throw e instanceof HypruseError ? e : new HypruseError('error.compositor', `${NAME}: ${(e as Error).message}`, { hint: 'the compositor must offer zwlr_foreign_toplevel_manager_v1 to this client' });
    });
    this.session = p;
    p.then(
      (s) => void s.conn.whenFailed().then(() => this.session === p && (this.session = null)),
      () => this.session === p && (this.session = null),
    );
    return p;
  }

  private async fresh(signal?: AbortSignal): Promise<ToplevelSession> {
    const s = await this.current();
    await s.conn.roundtrip(signal);
    return s;
  }

  private async toplevel(address: string): Promise<{ s: ToplevelSession; t: Toplevel }> {
    if (!ADDRESS.test(address)) throw new HypruseError('usage.address', `"${address}" is not a window address here (a number from desktop)`);
    const s = await this.fresh();
    const t = s.byAddress(address);
    if (!t) throw new HypruseError('not_found.window', `no window ${address} (closed, or listed before the connection was re-established)`, { hint: 'list the windows with desktop' });
    return { s, t };
  }

  async version(): Promise<string> {
    const s = await this.current();
    const extra = [s.workspaces ? 'ext-workspace-v1' : '', s.extList ? 'ext-foreign-toplevel-list-v1' : ''].filter(Boolean);
    return `${NAME} (Wayland protocols: ${MANAGER} v${s.managerVersion}${extra.map((e) => `, ${e}`).join('')}, ${s.outputs.size} outputs)`;
  }

  async snapshot(signal?: AbortSignal): Promise<Desktop> {
    const s = await this.fresh(signal);
    const ready = [...s.toplevels.values()].filter((t) => t.ready);
    const active = ready.find((t) => t.states.has(STATE.activated)) ?? null;
    const outputs = [...s.outputs.values()];
    const outputOf = (t: Toplevel) => outputs.find((o) => t.outputs.has(o.id))?.name ?? null;
    const ext = s.workspaces?.ready ? s.workspaces : null;
    // the focused output: the active window's; with no active window, that of the workspace that last became active
    const last = ext?.workspaces.get(s.lastActivated);
    const lastOutputs = last && last.state & WS_STATE.active ? ext?.groupOf(last)?.outputs : undefined;
    const focusedOutput = (active && outputs.find((o) => active.outputs.has(o.id))) ?? (lastOutputs && outputs.find((o) => lastOutputs.has(o.id))) ?? outputs[0];
    const shown = ext ? extShown(ext, outputs) : null;
    const monitors: Monitor[] = outputs.map((o) => ({
      name: o.name,
      geometry: { ...o.logical },
      scale: scaleOf(o),
      transform: o.transform,
      focused: o === focusedOutput,
      activeWorkspace: shown ? (shown.get(o.id) ?? null) : o.name,
      ...(o.physical ? { physical: o.physical } : {}),
    }));
    const focusedWs = focusedOutput ? (shown ? (shown.get(focusedOutput.id) ?? null) : focusedOutput.name) : null;
    const workspaces: Workspace[] = ext
      ? ext.list().map((w) => {
          const outs = [...(ext.groupOf(w)?.outputs ?? [])].map((id) => s.outputs.get(id)?.name).filter((n): n is string => Boolean(n));
          return {
            id: wsKey(w),
            name: w.name,
            // a group on several outputs shows its workspace on all of them: no one monitor to name
            monitor: outs.length === 1 ? outs[0]! : null,
            windows: 0,
            windowsUnknown: WORKSPACE_UNKNOWN,
            visible: (w.state & WS_STATE.active) !== 0 && (w.state & WS_STATE.hidden) === 0,
            focused: wsKey(w) === focusedWs,
            ...(w.state & WS_STATE.urgent ? { urgent: true } : {}),
            ...(w.state & WS_STATE.hidden ? { hidden: true } : {}),
            ...(w.coordinates.length ? { coordinates: [...w.coordinates] } : {}),
          };
        })
      : // without ext-workspace-v1 the one thing known of a window's place is its output: one workspace per output
        outputs.map((o) => ({
          id: o.name,
          name: o.name,
          monitor: o.name,
          windows: ready.filter((t) => outputOf(t) === o.name).length,
          visible: true,
          focused: o === focusedOutput,
        }));
    const windows: Window[] = ready.map((t) => ({
      address: t.address,
      class: t.appId,
      title: t.title,
      pid: null,
      pidUnknown: `${MANAGER} reports no pid`,
      geometry: { x: 0, y: 0, width: 0, height: 0 },
      positionUnknown: POSITION_UNKNOWN,
      workspace: ext ? null : outputOf(t),
      ...(ext ? { workspaceUnknown: WORKSPACE_UNKNOWN } : {}),
      floating: false,
      fullscreen: t.states.has(STATE.fullscreen),
      visible: !t.states.has(STATE.minimized),
      focused: t === active,
      ...(t.states.has(STATE.minimized) ? { hidden: true } : {}),
      extra: { maximized: t.states.has(STATE.maximized), minimized: t.states.has(STATE.minimized), outputs: [...t.outputs].map((id) => s.outputName(id)).filter(Boolean) },
    }));
    return {
      compositor: this.id,
      monitors,
      workspaces,
      windows,
      activeWindow: active?.address ?? null,
      activeWorkspace: focusedWs,
      cursor: null,
      layers: null,
    };
  }

  /** ext-workspace-v1: activate the workspace of this name (or id) and commit. */
  async switchWorkspace(name: string): Promise<void> {
    if (!WS_NAME.test(name)) throw new HypruseError('usage.workspace', 'a workspace name is 1-64 characters without control characters, quotes or semicolons');
    if (!this.caps.has('workspace')) throw this.caps.refuse('workspace');
    const s = await this.fresh();
    const ext = s.workspaces;
    if (!ext) throw this.caps.refuse('workspace', `the compositor no longer offers ${NO_WS}`);
    const all = ext.list();
    const w = all.find((x) => x.name === name) ?? all.find((x) => x.id === name);
    if (!w) throw new HypruseError('not_found.workspace', `no workspace named ${JSON.stringify(name)}; the compositor lists ${all.map((x) => JSON.stringify(x.name)).join(', ') || 'none'}`, { hint: 'ext-workspace-v1 cannot create one here: pick a listed name' });
    if (!(w.capabilities & WS_CAP.activate)) throw this.caps.refuse('workspace', `the compositor does not let clients activate workspace ${JSON.stringify(w.name)} (ext-workspace-v1 capabilities)`);
    ext.activate(w);
    await s.conn.roundtrip();
    // ext-workspace-v1 tells which workspaces are active, not which has the focus: one already shown on
    // another output gets no event, so the one hypruse just activated is taken as the focused one
    if ((ext.workspaces.get(w.handle)?.state ?? 0) & WS_STATE.active) s.lastActivated = w.handle;
  }

  subscribe(): Promise<EventSubscription> {
    return this.hub.subscribe();
  }

  async focusWindow(address: string): Promise<void> {
    const { s, t } = await this.toplevel(address);
    if (!s.seat) throw this.caps.refuse('focus', 'the compositor offers no wl_seat');
    s.conn.send(t.id, REQUEST.activate, [arg.object(s.seat)]);
    await s.conn.roundtrip();
  }

  async closeWindow(address: string, timeoutMs: number): Promise<CloseOutcome> {
    const { s, t } = await this.toplevel(address);
    return closeAndConfirm(address, timeoutMs, {
      subscribe: () => this.subscribe(),
      send: async () => {
        s.conn.send(t.id, REQUEST.close);
        await s.conn.roundtrip();
      },
      isOpen: async () => (await this.fresh()).byAddress(address) !== undefined,
      pollWithoutEvents: true,
    });
  }

  async toggleFullscreen(address: string | null): Promise<void> {
    const { s, t } = await this.toplevel(address ?? (await this.snapshot()).activeWindow ?? 'none');
    if (s.managerVersion < 2) throw this.caps.refuse('fullscreen', `the compositor offers ${MANAGER} v${s.managerVersion}; fullscreen needs v2`);
    if (t.states.has(STATE.fullscreen)) s.conn.send(t.id, REQUEST.unsetFullscreen);
    else s.conn.send(t.id, REQUEST.setFullscreen, [arg.object(0)]);
    await s.conn.roundtrip();
  }

  moveToWorkspace = async (): Promise<void> => Promise.reject(this.caps.refuse('move'));
  toggleFloating = async (): Promise<void> => Promise.reject(this.caps.refuse('floating'));
  moveCursor = async (): Promise<void> => Promise.reject(this.caps.refuse('cursor.set'));
  launch = async (_command: string, opts?: { unseen?: boolean }): Promise<LaunchResult> => Promise.reject(this.caps.refuse(opts?.unseen ? 'launch.unseen' : 'launch'));
  binds = async (): Promise<Bind[]> => Promise.reject(this.caps.refuse('binds'));
  runBind = async (): Promise<string> => Promise.reject(this.caps.refuse('bind.run'));
  locked = async (): Promise<boolean | null> => null;
  tagWindow = async (): Promise<void> => Promise.reject(this.caps.refuse('tag'));
  notify = async (): Promise<void> => Promise.reject(this.caps.refuse('notify'));
  installMarkRule = async (): Promise<boolean> => false;

  async dispose(): Promise<void> {
    this.hub.dispose();
    const s = this.session;
    this.session = null;
    if (s) await s.then((x) => x.close(), () => undefined);
  }
}
