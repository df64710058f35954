import type {
  Bind, ChordRegistration, KeyCombo, CloseOutcome, Compositor, CompositorCapability, Cursor, Desktop, EventSubscription, LaunchOptions, LaunchResult, Point, Window,
} from '@hypruse/core';
import { AGENT_WORKSPACE_PREFIX, CancelledError, HypruseError, NotFoundError, UsageError, followDescendants, heldCommand, launchAndPlace, releaseHeld, startLaunch, closeAndConfirm, type UnseenPlace } from '@hypruse/core';
import { swayCapabilities } from './capabilities.js';
import { EventHub, EventQueue, listenForChord } from '@hypruse/core';
import type { SwayEventName } from './ipc/message-types.js';
import { SwayMessage } from './ipc/message-types.js';
import { swayEventSource } from './ipc/sway-event-stream.js';
import { SwayIpcClient } from './ipc/sway-ipc-client.js';
import { parseSwayBinds, swayBindKeys } from './model/binds.js';
import { STOP_CHORD_COMMAND, sameSwayKeys, swayChordCommands } from './model/chord.js';
import { firstFailure, parseAddress, quoteMark, quoteWorkspace } from './model/commands.js';
import { desktopFromTree, findNode, isWindowNode, SCRATCH_WORKSPACE } from './model/desktop-model.js';
import type { SwayCommandResult, SwayNode, SwayVersion } from './model/raw-types.js';

export interface SwayCompositorOptions {
  /** Path of sway's IPC socket ($SWAYSOCK). */
  socketPath: string;
  /** The session environment launched commands start from (default: process.env). */
  baseEnv?: NodeJS.ProcessEnv;
  /** What discovery found (WAYLAND_DISPLAY, SWAYSOCK, XDG_RUNTIME_DIR, ...), on top of `baseEnv` for launched commands. */
  launchEnv?: Record<string, string>;
  requestTimeoutMs?: number;
}

const SUBSCRIBED_EVENTS: readonly SwayEventName[] = ['window', 'workspace', 'binding', 'shutdown'];

/** The agent's workspace in background mode is this prefix and the server's pid. */

/** `output` events exist from sway 1.8 on; sway 1.7 refuses the name. */
const OPTIONAL_EVENTS: readonly SwayEventName[] = ['output'];
const WINDOW_HINT = 'Call desktop() and use a window\'s `address` as given.';

/** The sway implementation of the Compositor contract, over i3-ipc in process. */
export class SwayCompositor implements Compositor {
  readonly id = 'sway';
  readonly displayName = 'sway';
  /** SWAY_CAPABILITIES, plus `capture.toplevel` once the tree names its windows for ext-foreign-toplevel capture (sway 1.12+). */
  private readonly caps = swayCapabilities();
  get capabilities(): ReadonlySet<CompositorCapability> {
    return this.caps.set;
  }
  readonly client: SwayIpcClient;
  private readonly opts: SwayCompositorOptions;
  private readonly subscriptions = new Set<EventQueue>();
  private cursor: Cursor | null = null;
  private disposed = false;

  constructor(opts: SwayCompositorOptions) {
    this.opts = opts;
    this.client = new SwayIpcClient({ socketPath: opts.socketPath, timeoutMs: opts.requestTimeoutMs });
  }

  get instanceId(): string {
    return this.opts.socketPath;
  }

  unsupportedReason(cap: CompositorCapability): string {
    return this.caps.reason(cap);
  }

  async version(): Promise<string> {
    const v = await this.client.requestJson<SwayVersion>(SwayMessage.GET_VERSION);
    return `sway ${v.human_readable ?? `${v.major}.${v.minor}.${v.patch}`}`;
  }

  async tree(signal?: AbortSignal): Promise<SwayNode> {
    return this.client.requestJson<SwayNode>(SwayMessage.GET_TREE, '', { signal });
  }

  async snapshot(signal?: AbortSignal): Promise<Desktop> {
    const desktop = desktopFromTree(await this.tree(signal), this.cursor);
    // A window's foreign_toplevel_identifier is what grim -T captures, covered or on a hidden workspace.
    if (desktop.windows.some((w) => typeof w.extra?.toplevelId === 'string')) this.caps.grant('capture.toplevel');
    return desktop;
  }

  async subscribe(): Promise<EventSubscription> {
    // one connection per subscription (sway subscribes per connection); the kit reconnects it and sends `resync`
    const hub = new EventHub(swayEventSource({ socketPath: this.opts.socketPath, events: SUBSCRIBED_EVENTS, optionalEvents: OPTIONAL_EVENTS }));
    const queue = await hub.subscribe();
    this.subscriptions.add(queue);
    return queue;
  }

  /** Run sway commands; any failed command is a typed error carrying sway's message. */
  async command(cmd: string, signal?: AbortSignal): Promise<void> {
    const results = await this.client.requestJson<SwayCommandResult[]>(SwayMessage.RUN_COMMAND, cmd, { signal });
    const failed = firstFailure(results);
    if (failed) {
      const msg = failed.error ?? 'unknown error';
      if (/no matching node/i.test(msg)) {
        throw new NotFoundError('not_found.window', `sway found no window for \`${cmd}\` (${msg})`, { hint: WINDOW_HINT });
      }
      throw new HypruseError('error.compositor', `sway refused \`${cmd}\`: ${msg}`, { data: { command: cmd, parseError: failed.parse_error === true } });
    }
  }

  /** The window node for an address, or not_found.window (a con id of a workspace or split container is not a window). */
  private async requireWindow(address: string): Promise<{ id: number; node: SwayNode; tree: SwayNode }> {
    const id = parseAddress(address);
    const tree = await this.tree();
    const node = findNode(tree, id);
    if (!node || !isWindowNode(node)) {
      throw new NotFoundError('not_found.window', `no window with address ${address}${node ? ` (con ${id} is a ${node.type}, not a window)` : ''}`, { hint: WINDOW_HINT });
    }
    return { id, node, tree };
  }

  async focusWindow(address: string): Promise<void> {
    const { id } = await this.requireWindow(address);
    await this.command(`[con_id=${id}] focus`);
  }

  async switchWorkspace(workspace: string): Promise<void> {
    await this.command(`workspace ${quoteWorkspace(workspace)}`);
  }

  async moveToWorkspace(address: string, workspace: string, silent: boolean): Promise<void> {
    const target = workspace === SCRATCH_WORKSPACE ? null : quoteWorkspace(workspace);
    const { id } = await this.requireWindow(address);
    if (target === null) {
      await this.command(`[con_id=${id}] move scratchpad`);
      return;
    }
    await this.command(`[con_id=${id}] move container to workspace ${target}${silent ? '' : `; [con_id=${id}] focus`}`);
  }

  async closeWindow(address: string, timeoutMs: number): Promise<CloseOutcome> {
    const { id } = await this.requireWindow(address);
    return closeAndConfirm(String(id), timeoutMs, {
      subscribe: () => this.subscribe(),
      send: () => this.command(`[con_id=${id}] kill`),
      isOpen: async () => findNode(await this.tree(), id) !== null,
      pollWithoutEvents: true,
    });
  }

  async toggleFullscreen(address: string | null): Promise<void> {
    if (address === null) return this.command('fullscreen toggle');
    const { id } = await this.requireWindow(address);
    await this.command(`[con_id=${id}] fullscreen toggle`);
  }

  async toggleFloating(address: string | null): Promise<void> {
    if (address === null) return this.command('floating toggle');
    const { id } = await this.requireWindow(address);
    await this.command(`[con_id=${id}] floating toggle`);
  }

  async moveCursor(point: Point): Promise<void> {
    if (!Number.isFinite(point?.x) || !Number.isFinite(point?.y)) {
      throw new UsageError(`cursor position must be two finite numbers, got ${JSON.stringify(point)}`, { code: 'usage.arguments' });
    }
    const x = Math.round(point.x);
    const y = Math.round(point.y);
    const tree = await this.tree();
    const desk = desktopFromTree(tree, null);
    const inside = desk.monitors.some((m) => x >= m.geometry.x && y >= m.geometry.y && x < m.geometry.x + m.geometry.width && y < m.geometry.y + m.geometry.height);
    if (!inside) {
      const list = desk.monitors.map((m) => `${m.name} ${m.geometry.x},${m.geometry.y} ${m.geometry.width}x${m.geometry.height}`).join('; ');
      throw new UsageError(`point ${x},${y} is outside every monitor (${list})`, { code: 'usage.arguments', hint: 'Use global logical coordinates inside a monitor from desktop().' });
    }
    // `seat cursor set` maps x/root.width onto the layout box, which starts at the root rect's origin.
    await this.command(`seat seat0 cursor set ${x - tree.rect.x} ${y - tree.rect.y}`);
    this.cursor = { x, y, source: 'hypruse' };
  }

  async launch(command: string, opts: LaunchOptions): Promise<LaunchResult> {
    if (typeof command !== 'string' || command.trim().length === 0) throw new UsageError('launch needs a non-empty shell command', { code: 'usage.arguments' });
    const target = opts.workspace ? opts.workspace : null;
    if (target && target !== SCRATCH_WORKSPACE) quoteWorkspace(target); // validate before anything starts
    if (opts.signal?.aborted) throw new CancelledError();
    const env = { ...(this.opts.baseEnv ?? process.env), ...(this.opts.launchEnv ?? {}), ...(opts.env ?? {}) };
    if (opts.unseen) return this.launchUnseen(command, env, opts);
    return launchAndPlace(
      {
        subscribe: () => this.subscribe(),
        windows: async (signal) => (await this.snapshot(signal)).windows.map((w) => ({ address: w.address, pid: w.pid, class: w.class, title: w.title })),
        start: () => startLaunch(command, env),
        window: (address) => this.windowByAddress(address),
        move: (address, workspace) => this.moveToWorkspace(address, workspace, true),
      },
      { workspace: target ?? undefined, timeoutMs: opts.timeoutMs, signal: opts.signal, stayMs: opts.stayMs, splash: opts.splash, program: opts.program },
    );
  }

  /** The agent's output (if it has one) and workspace (background mode), made at the first unseen launch. */
  private agent: { output: string | null; workspace: string } | null = null;

  /** Whether this sway removes a headless output (`output NAME unplug`, sway 1.8 and later). */
  private async unplugs(): Promise<boolean> {
    const v = await this.client.requestJson<SwayVersion>(SwayMessage.GET_VERSION);
    return v.major > 1 || (v.major === 1 && v.minor >= 8);
  }

  /**
   * Where the agent's windows go. On sway 1.8 and later an output of the agent's own: a headless
   * output (`create_output`) placed far from the person's outputs, so neither their screen nor their
   * pointer reaches it, holding a workspace named for this server; unplugged at dispose. sway 1.7
   * cannot remove an output (`disable` leaves a headless one active), and a leftover output would
   * widen the person's layout for good: there the agent's workspace is a hidden one of the person's
   * outputs, never shown unless the person switches to it.
   */
  private async agentPlace(): Promise<{ output: string | null; workspace: string }> {
    const outputs = async () => (await this.client.requestJson<Array<{ name: string; rect: { x: number; y: number; width: number; height: number }; current_workspace?: string | null }>>(SwayMessage.GET_OUTPUTS));
    if (this.agent && (this.agent.output === null || (await outputs()).some((o) => o.name === this.agent!.output))) return this.agent;
    const workspace = `${AGENT_WORKSPACE_PREFIX}${process.pid}`;
    if (!(await this.unplugs())) {
      this.agent = { output: null, workspace };
      return this.agent;
    }
    const before = new Set((await outputs()).map((o) => o.name));
    await this.command('create_output');
    const now = await outputs();
    const made = now.find((o) => !before.has(o.name));
    if (!made) throw new HypruseError('error.compositor', 'sway accepted create_output but listed no new output', { hint: 'work in a private desk (desk: "private") instead' });
    const right = Math.max(0, ...now.filter((o) => o.name !== made.name).map((o) => o.rect.x + o.rect.width));
    // a gap between it and the person's outputs: the pointer cannot cross into it
    await this.command(`output ${made.name} position ${right + 10000} 0`);
    const first = (await outputs()).find((o) => o.name === made.name)?.current_workspace;
    if (first) await this.command(`rename workspace ${quoteWorkspace(first)} to ${quoteWorkspace(workspace)}`);
    this.agent = { output: made.name, workspace };
    return this.agent;
  }

  /**
   * Background mode's launch: the window opens on the agent's workspace on its own output, never
   * on the person's and without the focus. The command starts held; an `assign` rule for its pid
   * is in place before it runs (sway gives a window mapped on a workspace other than the focused
   * one no focus). A window of another pid (a compound command, a hand-off) is moved there once
   * it appears, and the note says it showed where the person works first.
   */
  private async launchUnseen(command: string, env: NodeJS.ProcessEnv, opts: LaunchOptions): Promise<LaunchResult> {
    const place = await this.agentPlace();
    const target = quoteWorkspace(place.workspace);
    let assigned: number | null = null;
    let follow: { stop: () => Promise<void> } | null = null;
    const r = await launchAndPlace(
      {
        subscribe: () => this.subscribe(),
        windows: async (signal) => (await this.snapshot(signal)).windows.map((w) => ({ address: w.address, pid: w.pid, class: w.class, title: w.title })),
        start: async () => {
          const started = await startLaunch(heldCommand(command), env);
          const pid = started.child?.pid;
          if (pid) {
            try {
              await this.command(`assign [pid=${pid}] workspace ${target}`);
              assigned = pid;
            } finally {
              await releaseHeld(pid, env);
            }
            // sway's pid criterion names one process: an app whose windows come from a child it starts
            // (LibreOffice's soffice.bin, a browser's) gets a rule for each child as it appears, long before it maps
            follow = followDescendants(pid, (child) => this.command(`assign [pid=${child}] workspace ${target}`));
          }
          return started;
        },
        window: (address) => this.windowByAddress(address),
        move: (address, workspace) => this.moveToWorkspace(address, workspace, true),
      },
      { workspace: place.workspace, timeoutMs: opts.timeoutMs, signal: opts.signal, stayMs: opts.stayMs, splash: opts.splash, program: opts.program },
    ).finally(() => (follow as { stop: () => Promise<void> } | null)?.stop());
    const unseen: UnseenPlace = {
      workspace: place.workspace,
      output: place.output,
      reveal: `the person brings it into view with hypruse wm move_window ADDRESS --workspace N (or swaymsg '[con_id=ADDRESS] move container to workspace N')${
        place.output
          ? `; the agent's output ${place.output} is removed when hypruse stops`
          : `; this sway (before 1.8) cannot remove an output, so instead of an output of its own the agent's workspace is a hidden one of the person's outputs (switching to ${place.workspace} shows it), and a screenshot of the window needs toplevel capture`
      }`,
    };
    const firstWs = JSON.stringify(r.note?.match(/workspace "([^"]*)"/)?.[1] ?? '?');
    // the rule's own process: sway placed it past the rule, which it does for a window that asks to be
    // fullscreen on an output before it maps (Qt's focuswriter), putting it on that output's shown
    // workspace with the keyboard focus
    const shown = !r.relocated
      ? undefined
      : r.window?.pid != null && r.window.pid === assigned
        ? `its window (pid ${r.window.pid}) asked to be fullscreen on an output before it mapped, so sway put it on that output's shown workspace ${firstWs} past the rule and gave it the keyboard focus; it was moved to the agent's workspace at once: the person may have seen it, and keys they typed meanwhile may have reached it`
        : `its window (pid ${r.window?.pid ?? '?'}, not the started ${assigned ?? 'process'}) opened on the workspace ${firstWs} first and was moved to the agent's workspace: the person may have seen it`;
    return { ...r, ...(shown ? { note: shown } : {}), unseen };
  }

  private async windowByAddress(address: string): Promise<Window | null> {
    return (await this.snapshot()).windows.find((w) => w.address === address) ?? null;
  }

  async binds(): Promise<Bind[]> {
    const { config } = await this.client.requestJson<{ config: string }>(SwayMessage.GET_CONFIG);
    return parseSwayBinds(config ?? '').map(({ combo, action, arg, description, mode }) => ({
      combo, keys: swayBindKeys(combo), action, arg, ...(description ? { description } : {}), ...(mode ? { mode } : {}),
    }));
  }

  async runBind(bind: Bind): Promise<string> {
    const cmd = [bind.action, bind.arg].filter((s) => s && s.length > 0).join(' ').trim();
    if (!cmd) throw new UsageError(`the bind ${bind.combo} has no command to run`, { code: 'usage.combo' });
    await this.command(cmd);
    return `ran ${bind.combo}: ${cmd}`;
  }

  async locked(): Promise<boolean | null> {
    return null;
  }

  async tagWindow(address: string, tag: string): Promise<void> {
    const mark = quoteMark(tag);
    const { id } = await this.requireWindow(address);
    await this.command(`[con_id=${id}] mark --add ${mark}`);
  }

  async notify(_message: string, _ms: number): Promise<void> {
    throw this.caps.refuse('notify');
  }

  async installMarkRule(_tag: string): Promise<boolean> {
    // sway has no rule that colours the border of marked windows only.
    return false;
  }

  /** The stop chord: `bindsym ... nop hypruse-stop`, heard as a binding event; `unbindsym` on remove. */
  async registerChord(combo: KeyCombo, onPress: () => void): Promise<ChordRegistration> {
    const cmds = swayChordCommands(combo);
    const taken = (await this.binds()).find((b) => sameSwayKeys(b.combo, cmds.keys) && `${b.action} ${b.arg}`.trim() !== STOP_CHORD_COMMAND);
    if (taken) {
      throw new UsageError(`the stop chord ${cmds.keys} is already bound in the sway config (to \`${`${taken.action} ${taken.arg}`.trim()}\`)`, {
        code: 'usage.combo',
        hint: 'choose another stop_chord (HYPRUSE_STOP_CHORD), or bind `nop hypruse-stop` to it yourself',
      });
    }
    const sub = await this.subscribe();
    try {
      await this.command(cmds.bind);
    } catch (err) {
      sub.close();
      throw err;
    }
    const remove = listenForChord(sub, (e) => e.type === 'binding' && e.command.trim() === STOP_CHORD_COMMAND, onPress, () => this.command(cmds.unbind), this.chordRemovals);
    return { detail: `sway ${cmds.bind}`, remove };
  }

  private readonly chordRemovals = new Set<() => Promise<void>>();

  async dispose(): Promise<void> {
    if (this.disposed) return;
    for (const r of [...this.chordRemovals]) await r();
    if (this.agent?.output) {
      // its workspace (and any window still on it) moves to a hidden workspace of the person's outputs; nothing is focused
      await this.command(`output ${this.agent.output} unplug`).catch(() => undefined);
    }
    this.agent = null;
    this.disposed = true;
    for (const q of [...this.subscriptions]) q.close();
    this.client.close();
  }
}
