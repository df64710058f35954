import type { Bind, CloseOutcome, Compositor, Desktop, EventSubscription, LaunchResult, Monitor, Window, Workspace } from '@hypruse/core';
import { CapabilityTable, EventHub, HypruseError, REQUEST_TIMEOUT_MS, closeAndConfirm, exactScale, scaledMs } from '@hypruse/core';
import { arg } from '@hypruse/wayland';
import { MANAGER, REQUEST, STATE, ToplevelSession, type Output, type Toplevel } from './toplevels.js';
import { WLROOTS_MANIFEST } from './manifest.js';

const NAME = WLROOTS_MANIFEST.displayName;
const NO_IPC = 'the compositor is reached through standard Wayland protocols only, and none of them';
const CAPS = new CapabilityTable(NAME, ['focus', 'close', 'fullscreen', 'events'], {
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
  floating: `${NO_IPC} sets a window floating`,
  move: `${NO_IPC} moves a window between workspaces (ext-workspace-v1 is not read yet)`,
  workspace: `${NO_IPC} switches workspaces (ext-workspace-v1 is not read yet)`,
  'capture.toplevel': 'window capture by toplevel needs ext-image-copy-capture, which this plugin does not use; capture the output',
});
const POSITION_UNKNOWN = `${MANAGER} reports no window position or size`;
const ADDRESS = /^[0-9]{1,9}$/;

/** wl_output.scale is a whole number (a fractional 1.5 reads 2): the mode over the logical size is the real one. */
function scaleOf(o: Output): number {
  const across = o.transform % 2 === 0 ? o.physical?.width : o.physical?.height;
  return across && o.logical.width > 0 ? exactScale(across / o.logical.width, o.physical!.width, o.physical!.height) : o.scale;
}

/** Any wlroots-family compositor (labwc, river, Wayfire, sway...) through the standard protocols: no IPC socket. */
export class WlrootsCompositor implements Compositor {
  readonly id = WLROOTS_MANIFEST.id;
  readonly displayName = NAME;
  readonly capabilities = CAPS.set;
  private session: Promise<ToplevelSession> | null = null;
  private seq = 0;
  private readonly hub: EventHub;

  constructor(private readonly path: string) {
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
    return CAPS.reason(cap);
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
    return `${NAME} (Wayland protocols: ${MANAGER} v${s.managerVersion}, ${s.outputs.size} outputs)`;
  }

  async snapshot(signal?: AbortSignal): Promise<Desktop> {
    const s = await this.fresh(signal);
    const ready = [...s.toplevels.values()].filter((t) => t.ready);
    const active = ready.find((t) => t.states.has(STATE.activated)) ?? null;
    const outputs = [...s.outputs.values()];
    const focusedOutput = (active && outputs.find((o) => active.outputs.has(o.id))) ?? outputs[0];
    const monitors: Monitor[] = outputs.map((o) => ({
      name: o.name,
      geometry: { ...o.logical },
      scale: scaleOf(o),
      transform: o.transform,
      focused: o === focusedOutput,
      activeWorkspace: o.name,
      ...(o.physical ? { physical: o.physical } : {}),
    }));
    const outputOf = (t: Toplevel) => outputs.find((o) => t.outputs.has(o.id))?.name ?? null;
    // without ext-workspace-v1 the one thing known of a window's place is its output: one workspace per output
    const workspaces: Workspace[] = outputs.map((o) => ({
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
      workspace: outputOf(t),
      floating: false,
      fullscreen: t.states.has(STATE.fullscreen),
      visible: !t.states.has(STATE.minimized),
      focused: t === active,
      ...(t.states.has(STATE.minimized) ? { hidden: true } : {}),
      extra: { maximized: t.states.has(STATE.maximized), minimized: t.states.has(STATE.minimized) },
    }));
    return {
      compositor: this.id,
      monitors,
      workspaces,
      windows,
      activeWindow: active?.address ?? null,
      activeWorkspace: focusedOutput?.name ?? null,
      cursor: null,
      layers: null,
    };
  }

  subscribe(): Promise<EventSubscription> {
    return this.hub.subscribe();
  }

  async focusWindow(address: string): Promise<void> {
    const { s, t } = await this.toplevel(address);
    if (!s.seat) throw CAPS.refuse('focus', 'the compositor offers no wl_seat');
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
    if (s.managerVersion < 2) throw CAPS.refuse('fullscreen', `the compositor offers ${MANAGER} v${s.managerVersion}; fullscreen needs v2`);
    if (t.states.has(STATE.fullscreen)) s.conn.send(t.id, REQUEST.unsetFullscreen);
    else s.conn.send(t.id, REQUEST.setFullscreen, [arg.object(0)]);
    await s.conn.roundtrip();
  }

  switchWorkspace = async (): Promise<void> => Promise.reject(CAPS.refuse('workspace'));
  moveToWorkspace = async (): Promise<void> => Promise.reject(CAPS.refuse('move'));
  toggleFloating = async (): Promise<void> => Promise.reject(CAPS.refuse('floating'));
  moveCursor = async (): Promise<void> => Promise.reject(CAPS.refuse('cursor.set'));
  launch = async (_command: string, opts?: { unseen?: boolean }): Promise<LaunchResult> => Promise.reject(CAPS.refuse(opts?.unseen ? 'launch.unseen' : 'launch'));
  binds = async (): Promise<Bind[]> => Promise.reject(CAPS.refuse('binds'));
  runBind = async (): Promise<string> => Promise.reject(CAPS.refuse('bind.run'));
  locked = async (): Promise<boolean | null> => null;
  tagWindow = async (): Promise<void> => Promise.reject(CAPS.refuse('tag'));
  notify = async (): Promise<void> => Promise.reject(CAPS.refuse('notify'));
  installMarkRule = async (): Promise<boolean> => false;

  async dispose(): Promise<void> {
    this.hub.dispose();
    const s = this.session;
    this.session = null;
    if (s) await s.then((x) => x.close(), () => undefined);
  }
}
