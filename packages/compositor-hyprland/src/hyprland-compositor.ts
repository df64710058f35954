import {
  AGENT_WORKSPACE_PREFIX, CapabilityTable, HypruseError, LaunchMatcher, launchAndPlace, NotFoundError, UnsupportedError, UsageError, newLaunchToken, procfsTable, scaledMs, throwIfAborted,
  wrapLaunchCommand, type Bind, type ChordRegistration, type KeyCombo, type CloseOutcome, type Compositor, type CompositorCapability, type Desktop, type DesktopEvent, type EventSubscription,
  type LaunchOptions, type LaunchResult, type Point, type ProcessTable, type UnseenPlace, type Window, closeAndConfirm, listenForChord } from '@hypruse/core';
import { HyprlandDispatcher } from './dispatch/dispatcher.js';
import type { Dialect } from './dispatch/dialect.js';
import { validateAddress, validateTag, validateWorkspace } from './dispatch/validate.js';
import { HyprlandEventReader } from './ipc/event-reader.js';
import { HyprlandRequestClient } from './ipc/request-client.js';
import type { HyprlandSockets } from './ipc/socket-paths.js';
import { mapBinds } from './model/binds.js';
import { STOP_CHORD_EVENT, hyprChordCombo, hyprChordRequests, sameHyprCombo } from './model/chord.js';
import { SNAPSHOT_QUERIES, fullscreenChanges, fullscreenMode, fullscreenModes, mapDesktop, normalizeAddress, rawSnapshotFromBatch, type FullscreenMode } from './model/map-desktop.js';
import type { RawBind, RawClient, RawMonitor } from './model/raw-types.js';

export interface HyprlandCompositorOptions {
  sockets: HyprlandSockets;
  /** Per-request timeout (default 5000 ms). */
  requestTimeoutMs?: number;
  /** Process table access for launch matching (default: /proc). */
  inspector?: ProcessTable;
  /** Hyprland version string if already known (decides `capture.toplevel`). */
  version?: string | null;
}

const ALL_CAPS: CompositorCapability[] = [
  'layers', 'cursor.read', 'cursor.set', 'lock.read', 'tag', 'notify', 'binds', 'bind.run', 'launch', 'launch.unseen', 'fullscreen',
  'floating', 'close', 'move', 'focus', 'workspace', 'events',
];

const TOPLEVEL_CAPTURE = 'window capture by toplevel needs Hyprland 0.54 or newer (ext-foreign-toplevel image capture)';

/** MARK colour (HYPRUSE-BEHAVIOR §5.6). */
const MARK_COLOR = 'rgb(ff5555)';

/** `0.54.0` → [0, 54, 0]. */
export function parseVersion(v: string | null | undefined): [number, number, number] | null {
  const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(v ?? '');
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : null;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A workspace argument we can compare against where a window landed (ids and names, not relative selectors). */
function comparableWorkspace(ws: string): string | null {
  if (/^-?\d+$/.test(ws)) return ws;
  if (ws.startsWith('name:')) return ws.slice(5);
  if (/^special:./.test(ws)) return ws; // a named special workspace: its name is `special:NAME`
  if (/^([+-]|[emr][+\-~]|previous|empty|special)/.test(ws)) return null;
  return ws;
}

/** A workspace selector that names one workspace (`3`, `name:web`), or null for relative ones (`+1`, `m-1`, `previous`, `special`...). */
export function workspaceTarget(ws: string): { id: number } | { name: string } | null {
  if (/^\d+$/.test(ws)) return { id: Number(ws) };
  const m = /^name:(.+)$/.exec(ws);
  return m ? { name: m[1] } : null;
}

function matchesWorkspace(ref: { id?: number; name?: string } | undefined, want: { id: number } | { name: string }): boolean {
  if (!ref) return false;
  return 'id' in want ? ref.id === want.id : ref.name === want.name;
}

/** The Hyprland compositor plugin: requests over `.socket.sock`, events over `.socket2.sock`, never `hyprctl`. */
export class HyprlandCompositor implements Compositor {
  readonly id = 'hyprland';
  readonly displayName = 'Hyprland';
  private readonly caps: CapabilityTable;
  get capabilities(): ReadonlySet<CompositorCapability> {
    return this.caps.set;
  }
  readonly client: HyprlandRequestClient;
  readonly dispatcher: HyprlandDispatcher;
  readonly reader: HyprlandEventReader;
  private readonly inspector: ProcessTable;
  private readonly knownVersion: string | null;

  constructor(readonly options: HyprlandCompositorOptions) {
    this.client = new HyprlandRequestClient(options.sockets.request, options.requestTimeoutMs);
    this.dispatcher = new HyprlandDispatcher(this.client);
    this.reader = new HyprlandEventReader(options.sockets.events, (raw) => this.resolveFullscreen(raw.data));
    this.inspector = options.inspector ?? procfsTable;
    this.knownVersion = options.version ?? null;
    this.caps = new CapabilityTable('Hyprland', ALL_CAPS, {
      'capture.toplevel': `${TOPLEVEL_CAPTURE}; this is ${this.knownVersion ?? 'an unknown version'}`,
      // seen on real 0.57: the Save As dialog of an app launched onto special:hypruse-agent-PID mapped on
      // the shown workspace and took the keyboard focus (the exec rule is used up by the first window)
      'launch.unseen.later':
        "Hyprland applies a launch's workspace rule to the first window of the launched process only, so a dialog the app opens later maps on the workspace the person looks at and takes the keyboard focus",
    });
    const v = parseVersion(this.knownVersion);
    if (v && (v[0] > 0 || v[1] >= 54)) this.caps.grant('capture.toplevel');
  }

  unsupportedReason(cap: CompositorCapability): string {
    return this.caps.reason(cap);
  }

  get instanceId(): string {
    return this.options.sockets.signature;
  }

  async doctorDetail(): Promise<string> {
    return `config dialect ${await this.dialect()}`;
  }

  /** The dispatch dialect in use (`legacy` or `lua`). */
  dialect(): Promise<Dialect> {
    return this.dispatcher.currentDialect();
  }

  /** [major, minor, patch] of the running Hyprland (known at creation, else asked once). */
  private versionTripleP?: Promise<[number, number, number] | null>;
  private versionTriple(): Promise<[number, number, number] | null> {
    const known = parseVersion(this.knownVersion);
    if (known) return Promise.resolve(known);
    this.versionTripleP ??= this.client
      .json<{ version?: string; tag?: string }>('version')
      .then((v) => parseVersion(v.version || v.tag))
      .catch(() => null);
    return this.versionTripleP;
  }

  async version(): Promise<string> {
    const v = await this.client.json<{ version?: string; tag?: string; commit?: string }>('version');
    return `Hyprland ${v.version || v.tag?.replace(/^v/, '') || v.commit || 'unknown version'}`;
  }

  async snapshot(signal?: AbortSignal): Promise<Desktop> {
    const values = await this.client.batch(SNAPSHOT_QUERIES, { signal });
    return mapDesktop(rawSnapshotFromBatch(values));
  }

  async subscribe(): Promise<EventSubscription> {
    const sub = await this.reader.subscribe();
    // the fullscreen modes a later `fullscreen>>` event is told apart against (read once)
    await this.seedFullscreenModes();
    return sub;
  }

  private fsModes: Map<string, FullscreenMode> | null = null;
  private fsSeed: Promise<void> | null = null;
  private seedFullscreenModes(): Promise<void> {
    this.fsSeed ??= this.clients().then(
      (cs) => {
        this.fsModes ??= fullscreenModes(cs);
      },
      () => {
        this.fsSeed = null;
      },
    );
    return this.fsSeed;
  }

  /** A `fullscreen>>0|1` event (no window named, and also sent for maximize) as what changed in the clients' modes. */
  private async resolveFullscreen(data: string): Promise<DesktopEvent[]> {
    await this.seedFullscreenModes();
    const before = this.fsModes;
    const now = fullscreenModes(await this.clients());
    this.fsModes = now;
    return before ? fullscreenChanges(before, now, data) : [{ type: 'other', name: 'fullscreen', data }];
  }

  private async clients(signal?: AbortSignal): Promise<RawClient[]> {
    const c = await this.client.json<RawClient[]>('clients', { signal });
    return Array.isArray(c) ? c.filter((x) => x.mapped !== false && typeof x.address === 'string') : [];
  }

  /** Validate an address and make sure the window exists (Hyprland may answer `ok` for a missing one). */
  private async requireWindow(address: string): Promise<string> {
    const addr = validateAddress(address);
    if (!(await this.clients()).some((c) => normalizeAddress(c.address as string) === addr)) {
      throw new NotFoundError('not_found.window', `no window with address ${addr}`, { hint: 'It may have closed; call desktop() for the current addresses.' });
    }
    return addr;
  }

  /** Clients, active window address and monitors, in one round trip. */
  private async state(): Promise<{ clients: RawClient[]; active: string | null; monitors: RawMonitor[] }> {
    const [clients, active, monitors] = await this.client.batch(['clients', 'activewindow', 'monitors']);
    const a = active as RawClient | null;
    return {
      clients: (Array.isArray(clients) ? (clients as RawClient[]) : []).filter((c) => c.mapped !== false && typeof c.address === 'string'),
      active: a && typeof a.address === 'string' ? normalizeAddress(a.address) : null,
      monitors: Array.isArray(monitors) ? (monitors as RawMonitor[]) : [],
    };
  }

  private async client1(address: string): Promise<RawClient | undefined> {
    return (await this.state()).clients.find((c) => normalizeAddress(c.address as string) === address);
  }

  /**
   * Hyprland answers `ok` to a dispatch whether or not it changed anything (a
   * dialog its layout keeps floating, a window rule, a selector matching
   * nothing). So every state-changing action is checked against the state read
   * back over IPC, polled for a short while (the layout applies changes on its
   * next pass); `describe` words the error when the state never came.
   */
  private async verify(what: string, reached: (s: Awaited<ReturnType<HyprlandCompositor['state']>>) => boolean, describe: (s: Awaited<ReturnType<HyprlandCompositor['state']>>) => string): Promise<void> {
    const deadline = Date.now() + scaledMs(1500);
    let s = await this.state();
    while (!reached(s)) {
      if (Date.now() >= deadline) {
        throw new HypruseError('error.compositor', `Hyprland answered ok to ${what}, but ${describe(s)}`, {
          hint: 'Hyprland did not apply it (a window rule, a dialog its layout keeps floating, or a target it would not act on); check with desktop(), and act on the window another way',
          data: { action: what },
        });
      }
      await sleep(50);
      s = await this.state();
    }
  }

  async focusWindow(address: string): Promise<void> {
    const addr = await this.requireWindow(address);
    await this.dispatcher.dispatch({ op: 'focus_window', window: addr });
    await this.verify(`focusing ${addr}`, (s) => s.active === addr, (s) => `the active window is ${s.active ?? 'none'}`);
  }

  async switchWorkspace(workspace: string): Promise<void> {
    const ws = validateWorkspace(workspace);
    await this.dispatcher.dispatch({ op: 'workspace', workspace: ws });
    const want = workspaceTarget(ws);
    if (!want) return; // relative selectors (+1, m-1, previous, empty...) name no one workspace to check
    const focused = (s: { monitors: RawMonitor[] }) => s.monitors.find((m) => m.focused === true)?.activeWorkspace;
    await this.verify(
      `switching to workspace ${ws}`,
      (s) => matchesWorkspace(focused(s), want),
      (s) => `the focused monitor shows workspace ${focused(s)?.name ?? focused(s)?.id ?? 'unknown'}`,
    );
  }

  async moveToWorkspace(address: string, workspace: string, silent: boolean): Promise<void> {
    const ws = validateWorkspace(workspace);
    const addr = await this.requireWindow(address);
    const before = (await this.client1(addr))?.workspace;
    await this.dispatcher.dispatch({ op: 'move_to_workspace', window: addr, workspace: ws, silent });
    const want = workspaceTarget(ws);
    const wsOf = (s: { clients: RawClient[] }) => s.clients.find((c) => normalizeAddress(c.address as string) === addr)?.workspace;
    await this.verify(
      `moving ${addr} to workspace ${ws}`,
      (s) => (want ? matchesWorkspace(wsOf(s), want) : wsOf(s)?.id !== before?.id),
      (s) => (wsOf(s) ? `${addr} is still on workspace ${wsOf(s)?.name ?? wsOf(s)?.id}` : `${addr} is gone`),
    );
  }

  async closeWindow(address: string, timeoutMs: number): Promise<CloseOutcome> {
    const addr = await this.requireWindow(address);
    const isOpen = async () => (await this.clients()).some((c) => normalizeAddress(c.address as string) === addr);
    return closeAndConfirm(addr, timeoutMs, {
      subscribe: () => this.subscribe(),
      send: () => this.dispatcher.dispatch({ op: 'close_window', window: addr }).then(() => undefined),
      isOpen,
    });
  }

  /** The window an action on `address` (null: the active window) acts on, and its state now. */
  private async target(address: string | null): Promise<{ addr: string; now: RawClient }> {
    const addr = address === null ? (await this.state()).active : await this.requireWindow(address);
    const now = addr ? await this.client1(addr) : undefined;
    if (!addr || !now) throw new NotFoundError('not_found.window', address === null ? 'there is no active window' : `no window with address ${addr}`, { hint: 'call desktop() for the current windows' });
    return { addr, now };
  }

  async toggleFullscreen(address: string | null): Promise<void> {
    const { addr, now } = await this.target(address);
    const before = fullscreenMode(now.fullscreen);
    await this.dispatcher.dispatch({ op: 'fullscreen', window: address === null ? null : addr });
    // `fullscreen>>1` is also sent for maximize, so the state is read back, not the event trusted;
    // a maximized window is not fullscreen: toggling it must end in fullscreen
    const mode = (s: { clients: RawClient[] }) => fullscreenMode(s.clients.find((c) => normalizeAddress(c.address as string) === addr)?.fullscreen);
    const want = before === 'fullscreen' ? (m: FullscreenMode) => m !== 'fullscreen' : (m: FullscreenMode) => m === 'fullscreen';
    const said = { none: 'not fullscreen', maximized: 'maximized, not fullscreen', fullscreen: 'still fullscreen' } as const;
    await this.verify(`toggling fullscreen on ${addr}`, (s) => want(mode(s)), (s) => `${addr} is ${said[mode(s)]}`);
  }

  async toggleFloating(address: string | null): Promise<void> {
    const { addr, now } = await this.target(address);
    const before = now.floating === true;
    await this.dispatcher.dispatch({ op: 'toggle_floating', window: address === null ? null : addr });
    const floating = (s: { clients: RawClient[] }) => s.clients.find((c) => normalizeAddress(c.address as string) === addr)?.floating === true;
    await this.verify(`toggling floating on ${addr}`, (s) => floating(s) !== before, () => `${addr} is still ${before ? 'floating' : 'tiled'}`);
  }

  async moveCursor(point: Point): Promise<void> {
    if (!Number.isFinite(point.x) || !Number.isFinite(point.y)) {
      throw new UsageError(`cursor position (${point.x}, ${point.y}) is not a pair of finite numbers`, { code: 'usage.arguments' });
    }
    await this.dispatcher.dispatch({ op: 'move_cursor', x: Math.round(point.x), y: Math.round(point.y) });
  }

  /**
   * Exec through Hyprland (so `[workspace N silent]` rules apply) and wait for
   * the window of the launched process (core's `awaitLaunchedWindow`): the
   * command runs under a unique HYPRUSE_LAUNCH_TOKEN, and a new window counts
   * only if its pid or an ancestor carries that token. Any other window that
   * opens meanwhile, whatever its class, is not taken. An app that ignores the
   * workspace rule is moved there (the kit's launchAndPlace).
   */
  async launch(command: string, opts: LaunchOptions): Promise<LaunchResult> {
    if (!command.trim()) throw new UsageError('launch needs a command', { code: 'usage.arguments' });
    if (opts.unseen) return this.launchUnseen(command, opts);
    return this.launchOn(command, opts, opts.workspace ? validateWorkspace(opts.workspace) : undefined);
  }

  /**
   * Background mode's launch: the window opens on the agent's special workspace
   * (`special:hypruse-agent-PID`), which no monitor shows until the person toggles it,
   * through the exec rule `workspace special:NAME silent`: Hyprland puts the window of
   * the launched process there as it maps and, the workspace not being shown, gives it
   * no focus. A window the rule missed (another process took over the launch) is moved
   * there once it appears, and the note says the person may have seen it. A special
   * workspace lives only while it holds windows: nothing is left of it once they close.
   */
  private async launchUnseen(command: string, opts: LaunchOptions): Promise<LaunchResult> {
    const name = `${AGENT_WORKSPACE_PREFIX}${process.pid}`; // special:NAME
    const workspace = `special:${name}`;
    const r = await this.launchOn(command, opts, workspace);
    const dialect = await this.dialect().catch(() => 'lua' as Dialect);
    const toggle = dialect === 'lua' ? `hyprctl dispatch 'hl.dsp.workspace.toggle_special("${name}")'` : `hyprctl dispatch togglespecialworkspace ${name}`;
    const unseen: UnseenPlace = {
      workspace,
      output: null,
      reveal: `the person brings it into view by toggling the special workspace ${name} (${toggle}, or a bind to togglespecialworkspace), or moves the window to a workspace of theirs with hypruse hypr move_window ADDRESS --workspace N; the special workspace is gone once its windows close`,
    };
    const shown = r.relocated
      ? `its window (pid ${r.window?.pid ?? '?'}) opened outside the agent's special workspace first and was moved there: the person may have seen it`
      : undefined;
    return { ...r, ...(shown ? { note: shown } : {}), unseen };
  }

  private async launchOn(command: string, opts: LaunchOptions, workspace: string | undefined): Promise<LaunchResult> {
    const token = newLaunchToken();
    const wrapped = wrapLaunchCommand(command, token, opts.env); // refuses a bad env name before anything is sent
    throwIfAborted(opts.signal);
    const want = workspace ? comparableWorkspace(workspace) : null;
    return launchAndPlace(
      {
        subscribe: () => this.subscribe(),
        windows: async (signal) =>
          (await this.clients(signal)).map((c) => ({ address: normalizeAddress(c.address as string), pid: typeof c.pid === 'number' ? c.pid : null, class: typeof c.class === 'string' ? c.class : undefined, title: typeof c.title === 'string' ? c.title : undefined })),
        start: async () => {
          await this.dispatcher.dispatch({ op: 'exec', command: wrapped, workspace });
          // Hyprland starts the process itself: no root pid, the token alone decides.
          return { child: null, matcher: new LaunchMatcher({ token, table: this.inspector }) };
        },
        window: (address) => this.windowByAddress(address),
        // a relative selector (+1, previous...) names no one workspace to compare with
        placed: (w) => want === null || w.workspace === want || w.extra?.workspaceName === want,
        move: (address, ws) => this.dispatcher.dispatch({ op: 'move_to_workspace', window: address, workspace: ws, silent: true }).then(() => undefined),
      },
      { workspace, timeoutMs: opts.timeoutMs, signal: opts.signal, stayMs: opts.stayMs, splash: opts.splash, program: opts.program, table: this.inspector },
    );
  }

  private async windowByAddress(address: string): Promise<Window | null> {
    const d = await this.snapshot();
    return d.windows.find((w) => w.address === address) ?? null;
  }

  async binds(): Promise<Bind[]> {
    return mapBinds(await this.client.json<RawBind[]>('binds'));
  }

  async runBind(bind: Bind): Promise<string> {
    if (bind.lua || bind.action === 'lua') {
      throw new UnsupportedError(
        'hyprland',
        'bind.run',
        `${bind.combo} is a Lua bind from hyprland.lua: Hyprland exposes it over IPC only as an opaque Lua registry index, so it cannot be run from outside`,
        'Press the combination on the real keyboard, or do what the bind does with the hypr/launch tools.',
      );
    }
    if (!bind.action) throw new UsageError(`bind ${bind.combo} has no dispatcher`, { code: 'usage.combo' });
    await this.dispatcher.dispatch({ op: 'raw', dispatcher: bind.action, arg: bind.arg });
    return `ran ${bind.combo}: ${bind.action}${bind.arg ? ` ${bind.arg}` : ''}`;
  }

  async locked(): Promise<boolean | null> {
    let reply: string;
    try {
      reply = (await this.client.request('j/locked')).trim();
    } catch (err) {
      if (err instanceof HypruseError && err.code === 'cancelled.request') throw err;
      return null;
    }
    if (reply === 'true') return true;
    if (reply === 'false') return false;
    try {
      const v = JSON.parse(reply) as { locked?: unknown };
      return typeof v?.locked === 'boolean' ? v.locked : null;
    } catch {
      return null;
    }
  }

  async tagWindow(address: string, tag: string): Promise<void> {
    const t = validateTag(tag);
    await this.dispatcher.dispatch({ op: 'tag_window', window: await this.requireWindow(address), tag: t });
  }

  async notify(message: string, ms: number): Promise<void> {
    const text = message.replace(/[\0-\x1f\x7f]+/g, ' ').trim().slice(0, 500);
    const dur = Math.max(1, Math.min(60_000, Math.round(ms)));
    await this.client.command(`notify -1 ${dur} ${MARK_COLOR} ${text}`);
  }

  async installMarkRule(tag: string): Promise<boolean> {
    return this.dispatcher.installMarkRule(validateTag(tag), MARK_COLOR, await this.versionTriple());
  }

  /** The stop chord: a bind to the `event` dispatcher, heard as `custom>>hypruse-stop` on socket2; unbound on remove. */
  async registerChord(combo: KeyCombo, onPress: () => void): Promise<ChordRegistration> {
    const shown = hyprChordCombo(combo);
    const taken = (await this.binds()).find((b) => sameHyprCombo(b.combo, shown) && !(b.action === 'event' && b.arg === STOP_CHORD_EVENT));
    if (taken) {
      throw new UsageError(`the stop chord ${shown} is already bound in Hyprland (to ${taken.action}${taken.arg ? ` ${taken.arg}` : ''})`, {
        code: 'usage.combo',
        hint: 'choose another stop_chord (HYPRUSE_STOP_CHORD)',
      });
    }
    const dialect = await this.dialect();
    const req = hyprChordRequests(combo, dialect);
    const sub = await this.subscribe();
    const reply = (await this.client.request(req.bind).catch((err: Error) => err.message)).trim();
    if (reply !== 'ok') {
      sub.close();
      throw new HypruseError('error.compositor', `Hyprland refused the stop chord (\`${req.bind}\`): ${reply}`);
    }
    const remove = listenForChord(
      sub,
      (e) => e.type === 'other' && e.name === 'custom' && String(e.data).trim() === STOP_CHORD_EVENT,
      onPress,
      () => this.client.request(req.unbind),
      this.chordRemovals,
    );
    return { detail: `Hyprland ${req.bind}`, remove };
  }

  private readonly chordRemovals = new Set<() => Promise<void>>();

  async dispose(): Promise<void> {
    for (const r of [...this.chordRemovals]) await r();
    this.reader.dispose();
  }
}
