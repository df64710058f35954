import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  PROFILES, defaultBinds, serializeBind, serializeClient, serializeLayers, serializeMonitor, serializeVersion, serializeWorkspace,
  type ConfigProvider, type HyprVersion, type SimBind, type SimLayer, type SimMonitor, type SimWindow, type SimWorkspace, type VersionProfile,
} from './fixtures.js';
import { LuaSyntaxError, parseLuaExpression, parseLuaStatement, type LuaCall, type LuaVal } from './lua-parser.js';

export const FAKE_APP = join(dirname(fileURLToPath(import.meta.url)), 'fake-app.mjs');

export interface SimulatorOptions {
  version?: HyprVersion;
  /** Config provider (0.56 only chooses; ≤0.54 is hyprlang, main is lua). */
  configProvider?: ConfigProvider;
  /** Runtime dir to lay the sockets out in (default: a fresh temp dir). */
  runtimeDir?: string;
  signature?: string;
  /** `spawn`: exec really runs the command; `fake`: exec creates a fake process (no process is started). */
  processes?: 'spawn' | 'fake';
  /** Per-client socket2 queue limit (Hyprland: 64). */
  eventQueueLimit?: number;
  /**
   * Monitors in place of the two simulated ones (physical size, logical
   * position, scale), e.g. the outputs of a real Wayland display the
   * simulator stands in front of; workspace N+1 starts on monitor N.
   */
  monitors?: Array<{ name: string; width: number; height: number; x: number; y: number; scale: number }>;
}

/** One dispatch the simulator executed, decoded (tests assert exact values). */
export interface DispatchRecord {
  dialect: ConfigProvider;
  name: string;
  args: Record<string, unknown>;
}

export type FailureMode = { mode: 'slow'; delayMs: number } | { mode: 'garbage' } | { mode: 'drop' } | { mode: 'silent' };

interface FakeProcess {
  pid: number;
  ppid: number | null;
  env: Record<string, string>;
  alive: boolean;
}

interface PendingRule {
  rootPid: number;
  workspace: string;
  silent: boolean;
}

type Owner = { socket: Socket | null; pid: number };

const LUA_NOTE = '\n→ Note: dispatch in lua is a shorthand for hl.dispatch(...), your syntax might need to be updated.';

/**
 * A protocol-faithful Hyprland IPC simulator: real Unix sockets laid out as
 * `$XDG_RUNTIME_DIR/hypr/<signature>/.socket.sock` and `.socket2.sock`, one
 * request per connection, `[[BATCH]]`, per-version JSON shapes, legacy and
 * Lua dispatch, socket2 events on every change, the 64-event slow-client
 * drop, and scripted failures.
 */
export class HyprlandSimulator {
  readonly profile: VersionProfile;
  configProvider: ConfigProvider;
  readonly runtimeDir: string;
  readonly signature: string;
  readonly instanceDir: string;
  readonly requestPath: string;
  readonly eventsPath: string;
  readonly controlPath: string;
  readonly processes: 'spawn' | 'fake';

  monitors: SimMonitor[] = [];
  workspaces: SimWorkspace[] = [];
  windows: SimWindow[] = [];
  layers: SimLayer[] = [];
  binds: SimBind[];
  activeWindow: string | null = null;
  cursor = { x: 0, y: 0 };
  locked = false;
  /** Every raw request received on socket 1. */
  readonly requests: string[] = [];
  readonly dispatches: DispatchRecord[] = [];
  readonly rules: string[] = [];
  /** Border rules that match something (tag -> colour), as Hyprland would apply them. */
  private readonly borderRules: Array<{ tag: string; color: string }> = [];
  readonly notifications: string[] = [];
  readonly emitted: string[] = [];
  /** Called after each exec dispatch (tests use it to race an unrelated window). */
  onExec: ((command: string) => void) | null = null;
  /**
   * Called with each decoded dispatch; the request is answered once every
   * returned promise settled (a real compositor answers after the change took
   * effect), so a test can carry a dispatch over to a real compositor.
   */
  onDispatch: ((d: DispatchRecord) => Promise<void> | void) | null = null;

  private s1: Server | null = null;
  private s2: Server | null = null;
  private ctl: Server | null = null;
  private readonly eventClients = new Set<Socket>();
  private readonly pending = new Map<Socket, number>();
  private readonly queueLimit: number;
  private failures: FailureMode[] = [];
  private nextAddr = 0x55a4479a1000;
  private nextLayer = 0x55a447f00000;
  private nextFakePid = 5_000_000;
  private ownRuntime: boolean;
  private readonly children = new Set<ChildProcess>();
  private readonly fake = new Map<number, FakeProcess>();
  private readonly rulesPending: PendingRule[] = [];
  private readonly owners = new Map<string, Owner>();
  private focusCounter = 0;
  /** Windows whose place is given from outside (`openWindow({ geometry })`): the simulated layout leaves them alone. */
  private readonly placed = new Set<string>();

  constructor(opts: SimulatorOptions = {}) {
    this.profile = PROFILES[opts.version ?? '0.56'];
    this.configProvider = this.profile.luaOnly ? 'lua' : this.profile.lua ? (opts.configProvider ?? 'hyprlang') : 'hyprlang';
    this.ownRuntime = !opts.runtimeDir;
    // created in start(), so a simulator used only through handle() leaves nothing behind
    this.runtimeDir = opts.runtimeDir ?? join(tmpdir(), `hypr-sim-${process.pid}-${randomBytes(6).toString('hex')}`);
    this.signature = opts.signature ?? `a9902ea65c1b0d5f_${Math.floor(Date.now() / 1000)}_${Math.floor(Math.random() * 1e9)}`;
    this.instanceDir = join(this.runtimeDir, 'hypr', this.signature);
    this.requestPath = join(this.instanceDir, '.socket.sock');
    this.eventsPath = join(this.instanceDir, '.socket2.sock');
    this.controlPath = join(this.instanceDir, '.hypruse-sim.sock');
    this.processes = opts.processes ?? 'spawn';
    this.queueLimit = opts.eventQueueLimit ?? 64;
    this.binds = defaultBinds(this.configProvider, this.profile.version);
    this.monitors = opts.monitors
      ? opts.monitors.map((m, i) => ({ id: i, description: `Mirrored ${m.name}`, make: 'Sim', model: 'Mirror', refreshRate: 60, transform: 0, focused: i === 0, activeWorkspace: i + 1, specialWorkspace: 0, ...m }))
      : [
          { id: 0, name: 'DP-1', description: 'Simulated 1080p', make: 'Sim', model: 'Flat', width: 1920, height: 1080, refreshRate: 60, x: 0, y: 0, scale: 1, transform: 0, focused: true, activeWorkspace: 1, specialWorkspace: 0 },
          { id: 1, name: 'HDMI-A-1', description: 'Simulated 1.5x', make: 'Sim', model: 'Scaled', width: 2880, height: 1620, refreshRate: 60, x: 1920, y: 0, scale: 1.5, transform: 0, focused: false, activeWorkspace: 2, specialWorkspace: 0 },
        ];
    this.workspaces = this.monitors.map((m, i) => ({ id: i + 1, name: String(i + 1), monitor: m.name }));
    const first = this.monitors[0];
    this.layers = [
      { address: this.layerAddr(), namespace: 'waybar', monitor: first.name, level: 2, x: first.x, y: first.y, w: Math.round(first.width / first.scale), h: 30, pid: 4242 },
      { address: this.layerAddr(), namespace: 'hyprpaper', monitor: first.name, level: 0, x: first.x, y: first.y, w: Math.round(first.width / first.scale), h: Math.round(first.height / first.scale), pid: 4243 },
    ];
    this.cursor = { x: first.x + Math.round(first.width / first.scale / 2), y: first.y + Math.round(first.height / first.scale / 2) };
  }

  private layerAddr(): string {
    return `0x${(this.nextLayer++).toString(16)}`;
  }

  /** Environment a client of this instance sees. */
  get env(): Record<string, string> {
    return { XDG_RUNTIME_DIR: this.runtimeDir, HYPRLAND_INSTANCE_SIGNATURE: this.signature };
  }

  async start(): Promise<this> {
    if (this.ownRuntime) mkdirSync(this.runtimeDir, { recursive: true, mode: 0o700 });
    if (this.ownRuntime) chmodSync(this.runtimeDir, 0o700);
    mkdirSync(this.instanceDir, { recursive: true, mode: 0o700 });
    this.s1 = createServer((s) => this.onRequestConn(s));
    this.s2 = createServer((s) => this.onEventConn(s));
    this.ctl = createServer((s) => this.onControlConn(s));
    await Promise.all([listen(this.s1, this.requestPath), listen(this.s2, this.eventsPath), listen(this.ctl, this.controlPath)]);
    // like Hyprland: `<pid>\n<wayland socket>\n`, written once the sockets listen
    writeFileSync(join(this.instanceDir, 'hyprland.lock'), `${process.pid}\n${process.env.WAYLAND_DISPLAY ?? 'wayland-1'}\n`);
    return this;
  }

  async stop(): Promise<void> {
    for (const c of this.eventClients) c.destroy();
    for (const o of this.owners.values()) o.socket?.destroy();
    for (const child of this.children) {
      if (child.pid && child.exitCode === null) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          /* already gone */
        }
      }
    }
    this.children.clear();
    await Promise.all([this.s1, this.s2, this.ctl].map((s) => (s ? new Promise<void>((r) => s.close(() => r())) : Promise.resolve())));
    this.s1 = this.s2 = this.ctl = null;
    // Hyprland removes only its lock file on exit; the sockets stay behind
    rmSync(join(this.instanceDir, 'hyprland.lock'), { force: true });
    if (this.ownRuntime) rmSync(this.runtimeDir, { recursive: true, force: true });
  }

  // ---------------------------------------------------------------- scripted failures

  /** The border colour rules give this window, or null (what the MARK rule's effect looks like on screen). */
  borderColorOf(address: string): string | null {
    const w = this.windows.find((x) => x.address === address);
    if (!w) return null;
    const hit = [...this.borderRules].reverse().find((r) => w.tags.includes(r.tag));
    return hit?.color ?? null;
  }

  /** The next requests fail in these ways, one mode per request. */
  failNext(...modes: FailureMode[]): void {
    this.failures.push(...modes);
  }

  /** Disconnect every event client (what Hyprland does to a client 64 events behind). */
  dropEventClients(): void {
    for (const c of this.eventClients) c.destroy();
  }

  get eventClientCount(): number {
    return this.eventClients.size;
  }

  /** Emit `n` events quickly (a flood); slow readers are dropped at the queue limit. */
  flood(n: number, payloadBytes = 64): void {
    const data = 'x'.repeat(Math.max(0, Math.min(1024, payloadBytes)));
    for (let i = 0; i < n; i++) this.emit('custom', `${i} ${data}`);
  }

  /** Switch config provider (as `reload` after swapping hyprland.conf / hyprland.lua would). */
  setConfigProvider(p: ConfigProvider): void {
    if (p === 'lua' && !this.profile.lua) throw new Error(`Hyprland ${this.profile.version} has no Lua config`);
    if (p === 'hyprlang' && this.profile.luaOnly) throw new Error('main has no hyprlang config');
    this.configProvider = p;
    this.binds = defaultBinds(p, this.profile.version);
    this.emit('configreloaded', '');
  }

  // ---------------------------------------------------------------- socket 1

  private onRequestConn(sock: Socket): void {
    let buf = '';
    let scheduled = false;
    const idle = setTimeout(() => sock.destroy(), 5000);
    sock.on('error', () => undefined);
    let ended = false;
    sock.on('end', () => (ended = true));
    sock.on('data', (chunk) => {
      buf += chunk.toString('utf8');
      if (scheduled) return;
      scheduled = true;
      const reply = () => {
        // <= 0.56: blocking 1023-byte reads end only on a short read, so a request of exactly k x 1023 bytes
        // waits for the client to close its write side
        if (!this.profile.luaOnly && Buffer.byteLength(buf, 'utf8') % 1023 === 0 && !ended) {
          sock.once('end', reply);
          return;
        }
        clearTimeout(idle);
        this.answer(sock, buf);
      };
      setImmediate(reply);
    });
    sock.on('close', () => clearTimeout(idle));
  }

  private answer(sock: Socket, request: string): void {
    this.requests.push(request);
    const failure = this.failures.shift();
    if (failure?.mode === 'drop') {
      sock.destroy();
      return;
    }
    if (failure?.mode === 'silent') return;
    if (failure?.mode === 'garbage') {
      sock.end('\u0000{"monitors": [}} garbage \x1b[31m');
      return;
    }
    let reply: string;
    const dispatched = this.dispatches.length;
    try {
      reply = this.handle(request);
    } catch (err) {
      reply = `Err: ${err instanceof Error ? err.message : String(err)}`;
    }
    const hook = this.onDispatch;
    const carried = hook ? this.dispatches.slice(dispatched).map((d) => Promise.resolve().then(() => hook(d))) : [];
    const send = () => {
      if (failure?.mode === 'slow') setTimeout(() => sock.end(reply), failure.delayMs);
      else sock.end(reply);
    };
    if (carried.length) void Promise.allSettled(carried).then(send);
    else send();
  }

  /** Handle one request text exactly as Hyprland's socket 1 would (exposed for unit tests). */
  handle(request: string): string {
    if (request.startsWith('[[BATCH]]')) {
      const cmds = splitBatch(request.slice('[[BATCH]]'.length), this.profile.luaOnly);
      return cmds.map((c) => this.handleOne(c.trim())).join('\n\n\n');
    }
    return this.handleOne(request);
  }

  private handleOne(req: string): string {
    let flags = '';
    const slash = req.indexOf('/');
    if (slash >= 0 && !req.slice(0, slash).includes(' ')) {
      flags = req.slice(0, slash);
      req = req.slice(slash + 1);
    }
    const json = flags.includes('j');
    const sp = req.indexOf(' ');
    const cmd = sp < 0 ? req : req.slice(0, sp);
    const args = sp < 0 ? '' : req.slice(sp + 1);
    const out = (v: unknown, text: string) => (json ? JSON.stringify(v, null, 4) : text);
    switch (cmd) {
      case 'monitors':
        return out(this.monitors.map((m) => serializeMonitor(this.profile.version, m, (id) => this.wsName(id))), this.monitors.map((m) => `Monitor ${m.name} (ID ${m.id})`).join('\n\n'));
      case 'workspaces':
        return out(this.workspaces.map((w) => this.serializeWs(w)), this.workspaces.map((w) => `workspace ID ${w.id} (${w.name}) on monitor ${w.monitor}:`).join('\n\n'));
      case 'activeworkspace': {
        const w = this.workspaces.find((x) => x.id === this.focusedMonitor().activeWorkspace) as SimWorkspace;
        return out(this.serializeWs(w), `workspace ID ${w.id} (${w.name})`);
      }
      case 'clients':
        return out(this.windows.map((c) => this.serializeClient(c)), this.windows.map((c) => `Window ${c.address.slice(2)} -> ${c.title}:`).join('\n\n'));
      case 'activewindow': {
        const w = this.windows.find((x) => x.address === this.activeWindow);
        return out(w ? this.serializeClient(w) : {}, w ? `Window ${w.address.slice(2)} -> ${w.title}:` : 'Invalid');
      }
      case 'cursorpos':
        return out({ x: Math.floor(this.cursor.x), y: Math.floor(this.cursor.y) }, `${Math.floor(this.cursor.x)}, ${Math.floor(this.cursor.y)}`);
      case 'layers':
        return out(serializeLayers(this.profile.version, this.monitors, this.layers), 'layers');
      case 'binds':
        return out(this.binds.map(serializeBind), this.binds.map((b) => `bind\n\tmodmask: ${b.modmask}\n\tkey: ${b.key}\n\tdispatcher: ${b.dispatcher}\n\targ: ${b.arg}`).join('\n\n'));
      case 'version':
        return out(serializeVersion(this.profile), `Hyprland ${this.profile.versionString}`);
      case 'locked':
        return out({ locked: this.locked }, this.locked ? 'true' : 'false');
      case 'status':
        if (!this.profile.hasStatus) return 'unknown request';
        return out({ configProvider: this.configProvider, backend: 'drm' }, `configProvider: ${this.configProvider}\nbackend: drm`);
      case 'dispatch':
        return this.configProvider === 'lua' ? this.luaDispatchRequest(args) : this.legacyDispatch(args);
      case 'keyword':
        if (!this.profile.hasKeyword) return 'unknown request';
        if (this.configProvider === 'lua') return "keyword can't work with non-legacy parsers. Use eval.";
        return this.keyword(args);
      case 'eval':
        if (!this.profile.lua) return 'unknown request';
        if (this.configProvider !== 'lua') return 'eval is only available with a Lua config';
        return this.evalLua(args);
      case 'notify': {
        const m = /^(-?\d+)\s+(\d+)\s+(\S+)\s+([\s\S]*)$/.exec(args);
        if (!m) return 'invalid notify arguments';
        this.notifications.push(m[4]);
        return 'ok';
      }
      default:
        return 'unknown request';
    }
  }

  private serializeWs(w: SimWorkspace): Record<string, unknown> {
    const wins = this.windows.filter((c) => c.workspace === w.id && c.mapped);
    const mon = this.monitors.find((m) => m.name === w.monitor);
    const last = [...wins].sort((a, b) => a.focusHistoryID - b.focusHistoryID)[0] ?? null;
    return serializeWorkspace(this.profile.version, w, mon ? mon.id : null, wins.length, wins.some((c) => c.fullscreen !== 0), last);
  }

  private serializeClient(c: SimWindow): Record<string, unknown> {
    const ws = this.workspaces.find((w) => w.id === c.workspace);
    const mon = this.monitors.find((m) => m.name === ws?.monitor);
    // `visible` (0.55+) is "mapped and not fully transparent" (no window here is transparent), not "on a shown workspace"
    return serializeClient(this.profile.version, c, ws?.name ?? String(c.workspace), mon?.id ?? -1, c.mapped);
  }

  private isShown(ws: number): boolean {
    return this.monitors.some((m) => m.activeWorkspace === ws || (m.specialWorkspace !== 0 && m.specialWorkspace === ws));
  }

  private wsName(id: number): string {
    return this.workspaces.find((w) => w.id === id)?.name ?? String(id);
  }

  private focusedMonitor(): SimMonitor {
    return this.monitors.find((m) => m.focused) ?? this.monitors[0];
  }

  // ---------------------------------------------------------------- dispatch, legacy grammar

  private legacyDispatch(args: string): string {
    const sp = args.indexOf(' ');
    const name = sp < 0 ? args : args.slice(0, sp);
    const rest = sp < 0 ? '' : args.slice(sp + 1);
    const rec = (a: Record<string, unknown>) => this.dispatches.push({ dialect: 'hyprlang', name, args: a });
    switch (name) {
      case 'exec': {
        let command = rest;
        let rule: { workspace: string; silent: boolean } | null = null;
        const m = /^\[([^\]]*)\]\s*([\s\S]*)$/.exec(rest);
        if (m) {
          command = m[2];
          const wm = /^workspace\s+(\S+)(\s+silent)?$/.exec(m[1].trim());
          if (wm) rule = { workspace: wm[1], silent: !!wm[2] };
        }
        rec({ command, workspace: rule?.workspace });
        return this.exec(command, rule);
      }
      case 'workspace':
        rec({ workspace: rest });
        return this.switchWorkspace(rest);
      case 'focuswindow': {
        rec({ window: rest });
        const w = this.select(rest);
        if (!w) return 'No such window found';
        this.focus(w);
        return 'ok';
      }
      case 'movetoworkspace':
      case 'movetoworkspacesilent': {
        const comma = rest.indexOf(',');
        const ws = comma < 0 ? rest : rest.slice(0, comma);
        const sel = comma < 0 ? '' : rest.slice(comma + 1);
        rec({ workspace: ws, window: sel, silent: name.endsWith('silent') });
        const w = sel ? this.select(sel) : this.active();
        if (!w) return 'No such window found';
        return this.moveWindow(w, ws, name.endsWith('silent'));
      }
      case 'closewindow': {
        rec({ window: rest });
        const w = this.select(rest);
        if (!w) return 'No such window found';
        this.requestClose(w);
        return 'ok';
      }
      case 'killactive': {
        rec({});
        const w = this.active();
        if (w) this.requestClose(w);
        return 'ok';
      }
      case 'togglefloating': {
        rec({ window: rest });
        const w = rest ? this.select(rest) : this.active();
        if (!w) return 'No such window found';
        this.setFloating(w, !w.floating);
        return 'ok';
      }
      case 'fullscreen': {
        rec({ mode: rest });
        const w = this.active();
        if (!w) return 'ok';
        // `fullscreen 1` toggles maximize (mode 1), `fullscreen` / `fullscreen 0` fullscreen (mode 2)
        const want = rest.trim() === '1' ? 1 : 2;
        this.setFullscreen(w, w.fullscreen === want ? 0 : want);
        return 'ok';
      }
      case 'movecursor': {
        const m = /^(-?\d+)\s+(-?\d+)$/.exec(rest.trim());
        if (!m) return 'invalid movecursor arguments';
        rec({ x: Number(m[1]), y: Number(m[2]) });
        this.cursor = { x: Number(m[1]), y: Number(m[2]) };
        return 'ok';
      }
      case 'tagwindow': {
        const m = /^([+-]?)(\S+)\s*(.*)$/.exec(rest);
        if (!m) return 'invalid tagwindow arguments';
        rec({ tag: `${m[1]}${m[2]}`, window: m[3] });
        const w = m[3] ? this.select(m[3]) : this.active();
        if (!w) return 'No such window found';
        this.tag(w, m[1], m[2]);
        return 'ok';
      }
      case 'submap':
        rec({ name: rest });
        this.emit('submap', rest === 'reset' ? '' : rest);
        return 'ok';
      default:
        return 'Invalid dispatcher';
    }
  }

  /** Event names of Lua binds to `hl.dsp.event`, by `modmask:key`. */
  private readonly luaEvents = new Map<string, string>();

  /** `keyword bind MODS,key,dispatcher,arg` (hyprlang). */
  private addBind(value: string): string {
    const [mods, key, dispatcher, ...rest] = value.split(',').map((p) => p.trim());
    const parsed = parseKeys([...(mods ? mods.split(/\s+/) : []), key ?? '']);
    if (!parsed || !dispatcher) return `config error: invalid bind ${value}`;
    this.binds = this.binds.filter((b) => !(b.modmask === parsed.modmask && b.key.toLowerCase() === parsed.key.toLowerCase()));
    this.binds.push({ modmask: parsed.modmask, key: parsed.key, keycode: 0, mouse: false, submap: '', dispatcher, arg: rest.join(','), description: '' });
    return 'ok';
  }

  /** `keyword unbind MODS,key`. */
  private removeBind(value: string): string {
    const [mods, key] = value.split(',').map((p) => p.trim());
    const parsed = parseKeys([...(mods ? mods.split(/\s+/) : []), key ?? '']);
    if (!parsed) return `config error: invalid unbind ${value}`;
    this.binds = this.binds.filter((b) => !(b.modmask === parsed.modmask && b.key.toLowerCase() === parsed.key.toLowerCase()));
    return 'ok';
  }

  /** The person presses a key combination: a bind to the `event` dispatcher emits `custom>>ARG` (other dispatchers are not simulated). */
  press(mods: string[], key: string): boolean {
    const parsed = parseKeys([...mods, key]);
    if (!parsed) return false;
    const b = this.binds.find((x) => x.modmask === parsed.modmask && x.key.toLowerCase() === parsed.key.toLowerCase());
    if (!b) return false;
    const event = b.dispatcher === 'event' ? b.arg : b.dispatcher === '__lua' ? this.luaEvents.get(`${parsed.modmask}:${parsed.key.toLowerCase()}`) : undefined;
    if (event !== undefined) this.emit('custom', event);
    return true;
  }

  private keyword(args: string): string {
    const sp = args.indexOf(' ');
    const key = sp < 0 ? args : args.slice(0, sp);
    const value = sp < 0 ? '' : args.slice(sp + 1).trim();
    if (key === 'bind') return this.addBind(value);
    if (key === 'unbind') return this.removeBind(value);
    if (key !== 'windowrule' && key !== 'windowrulev2') return 'ok';
    if (this.profile.ruleGrammar === 'v2') {
      // 0.50-0.52: `windowrulev2 = bordercolor COLOR, tag:X`
      const m = key === 'windowrulev2' ? /^bordercolor\s+(rgba?\([0-9a-fA-F]+\)),\s*tag:(\S+)$/.exec(value) : null;
      if (!m) return `config error: invalid rule: ${value}`;
      this.rules.push(`${key} ${value}`);
      this.borderRules.push({ tag: m[2], color: m[1] });
      return 'ok';
    }
    // 0.53-0.56: every property needs `match:`; `tag X` without it is the tag effect
    if (key !== 'windowrule') return `config error: invalid keyword ${key}`;
    const parts = value.split(',').map((p) => p.trim());
    const match = parts.find((p) => p.startsWith('match:tag '));
    const color = parts.map((p) => /^border_color\s+(rgba?\([0-9a-fA-F]+\))$/.exec(p)).find(Boolean);
    if (!color || parts.some((p) => !/^(match:\S+\s+\S+|border_color\s+\S+|tag\s+\S+)$/.test(p))) return `config error: invalid rule: ${value}`;
    this.rules.push(`windowrule ${value}`);
    if (match) this.borderRules.push({ tag: match.slice('match:tag '.length), color: color[1] });
    return 'ok';
  }

  // ---------------------------------------------------------------- dispatch, Lua

  private luaDispatchRequest(src: string): string {
    const code = `return hl.dispatch(${src})`;
    let expr: LuaVal;
    try {
      expr = parseLuaExpression(src);
    } catch (err) {
      if (!(err instanceof LuaSyntaxError)) throw err;
      // 0.57 (recorded): `error: 3 [string ...]` and the note after a blank line
      const note = src.includes('(') ? '' : this.profile.version === 'main' ? `\n${LUA_NOTE.replace('\n', '\n ')}` : LUA_NOTE;
      return `${this.profile.version === 'main' ? 'error: 3 ' : ''}[string "${code.slice(0, 60)}"]:1: ${err.message}${note}`;
    }
    if (typeof expr !== 'object' || expr === null || expr.kind !== 'call') return `bad argument #1 to 'dispatch' (dispatcher expected)${src.includes('(') ? '' : LUA_NOTE}`;
    return this.runLuaDispatcher(expr);
  }

  private evalLua(src: string): string {
    let call: LuaCall;
    try {
      call = parseLuaStatement(src);
    } catch (err) {
      if (!(err instanceof LuaSyntaxError)) throw err;
      return `[string "${src.slice(0, 60)}"]:1: ${err.message}`;
    }
    if (call.path === 'hl.window_rule') {
      const t = call.args[0];
      if (typeof t !== 'object' || t === null || t.kind !== 'table') return "bad argument #1 to 'window_rule' (table expected)";
      const match = t.fields.match;
      const tag = typeof match === 'object' && match !== null && match.kind === 'table' ? match.fields.tag : undefined;
      if (typeof tag !== 'string' || typeof t.fields.border_color !== 'string') return "window_rule: expected match.tag and border_color";
      this.rules.push(`lua window_rule tag=${tag} border_color=${t.fields.border_color}`);
      this.borderRules.push({ tag, color: t.fields.border_color });
      this.dispatches.push({ dialect: 'lua', name: 'window_rule', args: { tag, border_color: t.fields.border_color } });
      return 'ok';
    }
    if (call.path === 'hl.bind' || call.path === 'hl.unbind') {
      const keys = call.args[0];
      if (typeof keys !== 'string') return `bad argument #1 to '${call.path.slice(3)}' (string expected)`;
      const parsed = parseKeys(keys.split('+').map((k) => k.trim()));
      if (!parsed) return `${call.path.slice(3)}: cannot parse keys ${keys}`;
      this.binds = this.binds.filter((b) => !(b.modmask === parsed.modmask && b.key.toLowerCase() === parsed.key.toLowerCase()));
      if (call.path === 'hl.unbind') return 'ok';
      const d = call.args[1];
      if (typeof d !== 'object' || d === null || d.kind !== 'call') return "bad argument #2 to 'bind' (dispatcher expected)";
      const event = d.path === 'hl.dsp.event' && typeof d.args[0] === 'string' ? d.args[0] : null;
      // Hyprland reports a Lua bind as dispatcher __lua with a registry index
      this.binds.push({ modmask: parsed.modmask, key: parsed.key, keycode: 0, mouse: false, submap: '', dispatcher: '__lua', arg: String(this.binds.length + 100), description: '' });
      if (event !== null) this.luaEvents.set(`${parsed.modmask}:${parsed.key.toLowerCase()}`, event);
      return 'ok';
    }
    if (call.path === 'hl.dispatch') {
      const d = call.args[0];
      if (typeof d !== 'object' || d === null || d.kind !== 'call') return "bad argument #1 to 'dispatch' (dispatcher expected)";
      return this.runLuaDispatcher(d);
    }
    return `attempt to call a nil value (field '${call.path.split('.').pop()}')`;
  }

  private runLuaDispatcher(call: LuaCall): string {
    const t = call.args[0];
    const fields = typeof t === 'object' && t !== null && t.kind === 'table' ? t.fields : {};
    const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
    const rec = (name: string, args: Record<string, unknown>) => this.dispatches.push({ dialect: 'lua', name, args });
    const windowOf = () => (fields.window !== undefined ? this.select(str(fields.window) ?? '') : this.active());
    switch (call.path) {
      case 'hl.dsp.focus': {
        if (fields.workspace !== undefined) {
          rec('focus', { workspace: str(fields.workspace) });
          return this.switchWorkspace(str(fields.workspace) ?? '');
        }
        rec('focus', { window: str(fields.window) });
        const w = windowOf();
        // 0.57 (recorded): a Lua warning naming the dispatcher
        if (!w) return this.profile.version === 'main' ? 'warning: =[C]:-1: hl.focus: window not found' : 'No such window found';
        this.focus(w);
        return 'ok';
      }
      case 'hl.dsp.window.move': {
        rec('window.move', { workspace: str(fields.workspace), follow: fields.follow, window: str(fields.window) });
        const w = windowOf();
        if (!w) return 'No such window found';
        if (fields.workspace === undefined) return 'ok';
        return this.moveWindow(w, str(fields.workspace) ?? '', fields.follow === false);
      }
      case 'hl.dsp.window.close': {
        rec('window.close', { window: str(fields.window) });
        const w = windowOf();
        if (!w) return 'No such window found';
        this.requestClose(w);
        return 'ok';
      }
      case 'hl.dsp.window.fullscreen': {
        rec('window.fullscreen', { mode: str(fields.mode), action: str(fields.action), window: str(fields.window) });
        const w = windowOf();
        if (!w) return 'No such window found';
        const want = str(fields.mode) === 'maximized' ? 1 : 2;
        this.setFullscreen(w, w.fullscreen === want ? 0 : want);
        return 'ok';
      }
      case 'hl.dsp.window.float': {
        rec('window.float', { action: str(fields.action), window: str(fields.window) });
        const w = windowOf();
        if (!w) return 'No such window found';
        const a = str(fields.action) ?? 'toggle';
        this.setFloating(w, a === 'toggle' ? !w.floating : a === 'enable' || a === 'on');
        return 'ok';
      }
      case 'hl.dsp.cursor.move': {
        const x = fields.x;
        const y = fields.y;
        if (typeof x !== 'number' || typeof y !== 'number') return "bad argument #1 to 'move' (x and y expected)";
        rec('cursor.move', { x, y });
        this.cursor = { x, y };
        return 'ok';
      }
      case 'hl.dsp.exec_cmd': {
        const cmd = call.args[0];
        if (typeof cmd !== 'string') return "bad argument #1 to 'exec_cmd' (string expected)";
        const rules = call.args[1];
        const ws = typeof rules === 'object' && rules !== null && rules.kind === 'table' ? str(rules.fields.workspace) : undefined;
        rec('exec_cmd', { command: cmd, workspace: ws });
        const wm = ws ? /^(\S+)(\s+silent)?$/.exec(ws) : null;
        return this.exec(cmd, wm ? { workspace: wm[1], silent: !!wm[2] } : null);
      }
      case 'hl.dsp.window.tag': {
        const tag = str(fields.tag);
        rec('window.tag', { tag, window: str(fields.window) });
        if (!tag) return "bad argument #1 to 'tag' (tag expected)";
        const w = windowOf();
        if (!w) return 'No such window found';
        const m = /^([+-]?)(.*)$/.exec(tag) as RegExpExecArray;
        this.tag(w, m[1], m[2]);
        return 'ok';
      }
      default:
        return `attempt to call a nil value (field '${call.path.split('.').pop()}')`;
    }
  }

  // ---------------------------------------------------------------- state changes (each emits socket2 events)

  private select(sel: string): SimWindow | undefined {
    const s = sel.trim();
    if (s.startsWith('address:')) {
      const a = s.slice(8).toLowerCase();
      return this.windows.find((w) => w.address === a && w.mapped);
    }
    if (s.startsWith('pid:')) return this.windows.find((w) => w.pid === Number(s.slice(4)) && w.mapped);
    if (s === 'activewindow') return this.active();
    if (s.startsWith('class:')) {
      const re = new RegExp(s.slice(6));
      return this.windows.find((w) => re.test(w.class) && w.mapped);
    }
    return undefined;
  }

  private active(): SimWindow | undefined {
    return this.windows.find((w) => w.address === this.activeWindow);
  }

  private resolveWorkspace(ws: string): SimWorkspace | string {
    const cur = this.focusedMonitor().activeWorkspace;
    let id: number | null = null;
    let name: string | null = null;
    if (/^\d+$/.test(ws)) id = Number(ws);
    else if (/^[+-]\d+$/.test(ws)) id = Math.max(1, cur + Number(ws));
    else if (ws.startsWith('name:')) name = ws.slice(5);
    // a named special workspace: shown by no monitor until toggled; ids count down from -99
    else if (/^special:[^\s]+$/.test(ws)) name = ws;
    else if (/^[^\s]+$/.test(ws) && !/^[emr][+\-~]|^previous|^empty|^special/.test(ws)) name = ws;
    else return `Invalid workspace ${ws}`;
    if (id !== null && (id < 1 || id > 2147483647)) return `Invalid workspace ${ws}`;
    let w = id !== null ? this.workspaces.find((x) => x.id === id) : this.workspaces.find((x) => x.name === name);
    if (!w) {
      const special = name?.startsWith('special:') === true;
      const newId = id ?? (special ? -99 - this.workspaces.filter((x) => x.id <= -99 && x.id > -1337).length : -1337 - this.workspaces.filter((x) => x.id <= -1337).length);
      w = { id: newId, name: name ?? String(newId), monitor: this.focusedMonitor().name };
      this.workspaces.push(w);
      this.emit('createworkspace', w.name);
      this.emit('createworkspacev2', `${w.id},${w.name}`);
    }
    return w;
  }

  private switchWorkspace(ws: string): string {
    const w = this.resolveWorkspace(ws);
    if (typeof w === 'string') return w;
    const mon = this.monitors.find((m) => m.name === w.monitor) ?? this.focusedMonitor();
    for (const m of this.monitors) m.focused = m === mon;
    const prev = mon.activeWorkspace;
    mon.activeWorkspace = w.id;
    this.emit('workspace', w.name);
    this.emit('workspacev2', `${w.id},${w.name}`);
    this.emit('focusedmon', `${mon.name},${w.name}`);
    this.emit('focusedmonv2', `${mon.name},${w.id}`);
    const top = this.windows.filter((c) => c.workspace === w.id && c.mapped).sort((a, b) => a.focusHistoryID - b.focusHistoryID)[0];
    this.setActive(top ?? null);
    if (prev !== w.id) this.cleanupWorkspace(prev);
    return 'ok';
  }

  private cleanupWorkspace(id: number): void {
    if (this.isShown(id) || this.windows.some((c) => c.workspace === id && c.mapped)) return;
    const i = this.workspaces.findIndex((w) => w.id === id);
    if (i < 0) return;
    const [w] = this.workspaces.splice(i, 1);
    this.emit('destroyworkspace', w.name);
    this.emit('destroyworkspacev2', `${w.id},${w.name}`);
  }

  private setActive(w: SimWindow | null): void {
    const addr = w?.address ?? null;
    if (addr === this.activeWindow) return;
    this.activeWindow = addr;
    if (w) {
      w.focusHistoryID = -1;
      for (const c of this.windows) c.focusHistoryID++;
      this.focusCounter++;
    }
    this.emit('activewindow', w ? `${w.class},${w.title}` : ',');
    this.emit('activewindowv2', w ? w.address.slice(2) : '');
  }

  private focus(w: SimWindow): void {
    const ws = this.workspaces.find((x) => x.id === w.workspace);
    if (ws && !this.isShown(w.workspace)) this.switchWorkspace(String(ws.id > 0 ? ws.id : `name:${ws.name}`));
    const mon = this.monitors.find((m) => m.name === ws?.monitor);
    if (mon) for (const m of this.monitors) m.focused = m === mon;
    this.setActive(w);
  }

  private moveWindow(w: SimWindow, ws: string, silent: boolean): string {
    const target = this.resolveWorkspace(ws);
    if (typeof target === 'string') return target;
    const from = w.workspace;
    w.workspace = target.id;
    this.layout(from);
    this.layout(target.id);
    this.emit('movewindow', `${w.address.slice(2)},${target.name}`);
    this.emit('movewindowv2', `${w.address.slice(2)},${target.id},${target.name}`);
    if (!silent) this.focus(w);
    else if (this.activeWindow === w.address) {
      const next = this.windows.filter((c) => c.workspace === from && c.mapped && c !== w).sort((a, b) => a.focusHistoryID - b.focusHistoryID)[0];
      this.setActive(next ?? null);
    }
    this.cleanupWorkspace(from);
    return 'ok';
  }

  private setFloating(w: SimWindow, floating: boolean): void {
    if (w.staysFloating && !floating) return;
    w.floating = floating;
    if (floating && !this.placed.has(w.address)) {
      const mon = this.monitorOfWs(w.workspace);
      const lw = Math.round(mon.width / mon.scale);
      const lh = Math.round(mon.height / mon.scale);
      w.size = [Math.round(lw / 2), Math.round(lh / 2)];
      w.at = [mon.x + Math.round(lw / 4), mon.y + Math.round(lh / 4)];
    }
    this.layout(w.workspace);
    this.emit('changefloatingmode', `${w.address.slice(2)},${floating ? 1 : 0}`);
  }

  /** The app or the user changes a window's fullscreen mode (0 none, 1 maximized, 2 fullscreen). */
  setFullscreenMode(address: string, mode: 0 | 1 | 2): void {
    const w = this.windows.find((x) => x.address === address);
    if (!w) throw new Error(`no simulated window ${address}`);
    this.setFullscreen(w, mode);
  }

  private setFullscreen(w: SimWindow, mode: number): void {
    w.fullscreen = mode;
    this.layout(w.workspace);
    // Hyprland announces every mode but none as `fullscreen>>1`, maximize included, and names no window
    this.emit('fullscreen', mode !== 0 ? '1' : '0');
  }

  private tag(w: SimWindow, op: string, tag: string): void {
    if (op === '-') w.tags = w.tags.filter((t) => t !== tag);
    else if (op === '+' || !w.tags.includes(tag)) {
      if (!w.tags.includes(tag)) w.tags.push(tag);
    } else w.tags = w.tags.filter((t) => t !== tag);
  }

  private monitorOfWs(id: number): SimMonitor {
    const ws = this.workspaces.find((w) => w.id === id);
    return this.monitors.find((m) => m.name === ws?.monitor) ?? this.focusedMonitor();
  }

  /** Tile windows of a workspace side by side on its monitor's logical area; fullscreen covers it. */
  private layout(wsId: number): void {
    const mon = this.monitorOfWs(wsId);
    const lw = Math.round(mon.width / mon.scale);
    const lh = Math.round(mon.height / mon.scale);
    const tiled = this.windows.filter((c) => c.workspace === wsId && c.mapped && !c.floating && !this.placed.has(c.address));
    const gap = 5;
    tiled.forEach((c, i) => {
      const w = Math.floor((lw - gap * (tiled.length + 1)) / tiled.length);
      c.at = [mon.x + gap + i * (w + gap), mon.y + 30 + gap];
      c.size = [w, lh - 30 - 2 * gap];
    });
    // maximized: the work area below the simulated 30 px bar, with the gaps; fullscreen: the whole monitor
    for (const c of this.windows.filter((x) => x.workspace === wsId && x.mapped && x.fullscreen === 1 && !this.placed.has(x.address))) {
      c.at = [mon.x + gap, mon.y + 30 + gap];
      c.size = [lw - 2 * gap, lh - 30 - 2 * gap];
    }
    for (const c of this.windows.filter((x) => x.workspace === wsId && x.mapped && x.fullscreen >= 2 && !this.placed.has(x.address))) {
      c.at = [mon.x, mon.y];
      c.size = [lw, lh];
    }
  }

  /**
   * Open a window directly (an "unrelated" app). Returns it. With `geometry`
   * its place is given from outside (the real window it stands for) and kept
   * until `place()`; a close request then only records the dispatch (the real
   * window closes, and whoever mirrors it calls `closeWindowNow`).
   */
  openWindow(o: {
    class: string; title?: string; pid?: number; workspace?: string; floating?: boolean; silent?: boolean; staysFloating?: boolean;
    geometry?: { at: [number, number]; size: [number, number] };
  }): SimWindow {
    const pid = o.pid ?? this.fakeProcess(null, {}).pid;
    let ws = this.focusedMonitor().activeWorkspace;
    let silent = o.silent ?? false;
    if (o.workspace) {
      const r = this.resolveWorkspace(o.workspace);
      if (typeof r !== 'string') ws = r.id;
    } else {
      const rule = this.ruleFor(pid);
      if (rule) {
        const r = this.resolveWorkspace(rule.workspace);
        if (typeof r !== 'string') ws = r.id;
        silent = rule.silent;
      }
    }
    const addrNum = this.nextAddr;
    this.nextAddr += 0x1a0;
    const w: SimWindow = {
      address: `0x${addrNum.toString(16)}`,
      pid,
      class: o.class,
      title: o.title ?? o.class,
      initialClass: o.class,
      initialTitle: o.title ?? o.class,
      workspace: ws,
      floating: o.floating ?? false,
      fullscreen: 0,
      hidden: false,
      mapped: true,
      at: [0, 0],
      size: [100, 100],
      tags: [],
      xwayland: false,
      pinned: false,
      focusHistoryID: this.windows.length,
      stableId: (addrNum & 0xffffffff).toString(16).padStart(8, '0'),
      ...(o.staysFloating ? { staysFloating: true, floating: true } : {}),
    };
    this.windows.push(w);
    if (o.geometry) {
      this.placed.add(w.address);
      w.at = [...o.geometry.at];
      w.size = [...o.geometry.size];
    } else if (w.floating) this.setFloatingQuiet(w);
    this.layout(ws);
    const wsName = this.wsName(ws);
    // 0.57 (recorded): the title arrives before the window maps
    if (this.profile.version === 'main') {
      this.emit('windowtitle', w.address.slice(2));
      this.emit('windowtitlev2', `${w.address.slice(2)},${w.title}`);
    }
    this.emit('openwindow', `${w.address.slice(2)},${wsName},${w.class},${w.title}`);
    if (!silent && this.isShown(ws)) this.setActive(w);
    return w;
  }

  private setFloatingQuiet(w: SimWindow): void {
    const mon = this.monitorOfWs(w.workspace);
    w.size = [400, 300];
    w.at = [mon.x + 100, mon.y + 100];
  }

  /** Move/resize a window placed from outside (Hyprland emits no event for a geometry change). */
  place(address: string, at: [number, number], size: [number, number]): void {
    const w = this.windows.find((x) => x.address === address);
    if (!w) throw new Error(`no window ${address}`);
    w.at = [...at];
    w.size = [...size];
  }

  /** Focus a window as if the person clicked it (its workspace shown, activewindow events). */
  activate(address: string): void {
    const w = this.windows.find((x) => x.address === address && x.mapped);
    if (!w) throw new Error(`no window ${address}`);
    this.focus(w);
  }

  /** Change a window title (emits windowtitle + windowtitlev2). */
  setTitle(address: string, title: string): void {
    const w = this.windows.find((x) => x.address === address);
    if (!w) throw new Error(`no window ${address}`);
    w.title = title;
    this.emit('windowtitle', w.address.slice(2));
    this.emit('windowtitlev2', `${w.address.slice(2)},${title}`);
    if (this.activeWindow === address) this.emit('activewindow', `${w.class},${w.title}`);
  }

  /** Remove a window (the client unmapped/exited). */
  closeWindowNow(address: string): void {
    const i = this.windows.findIndex((x) => x.address === address);
    if (i < 0) return;
    const [w] = this.windows.splice(i, 1);
    this.placed.delete(w.address);
    this.emit('closewindow', w.address.slice(2));
    this.layout(w.workspace);
    if (this.activeWindow === address) {
      const next = this.windows.filter((c) => c.workspace === w.workspace && c.mapped).sort((a, b) => a.focusHistoryID - b.focusHistoryID)[0];
      this.activeWindow = null;
      this.setActive(next ?? null);
      if (!next) {
        this.emit('activewindow', ',');
        this.emit('activewindowv2', '');
      }
    }
    const owner = this.owners.get(address);
    this.owners.delete(address);
    if (owner) {
      if (!owner.socket) {
        const fp = this.fake.get(owner.pid);
        if (fp && ![...this.owners.values()].some((o) => o.pid === owner.pid)) fp.alive = false;
      } else if (![...this.owners.values()].some((o) => o.socket === owner.socket)) {
        owner.socket.end(JSON.stringify({ op: 'close' }) + '\n');
      }
    }
    this.cleanupWorkspace(w.workspace);
  }

  /** closewindow: a window with `refuseClose` in its title stays open (prompting to save). */
  private requestClose(w: SimWindow): void {
    if (w.title.includes('refuse-close') || this.placed.has(w.address)) return;
    setTimeout(() => this.closeWindowNow(w.address), 20);
  }

  openLayer(namespace: string, level: 0 | 1 | 2 | 3 = 2, monitor = 'DP-1'): SimLayer {
    const mon = this.monitors.find((m) => m.name === monitor) ?? this.monitors[0];
    const l: SimLayer = { address: this.layerAddr(), namespace, monitor: mon.name, level, x: mon.x, y: mon.y, w: 600, h: 400, pid: 4300 };
    this.layers.push(l);
    this.emit('openlayer', namespace);
    return l;
  }

  closeLayer(namespace: string): void {
    const i = this.layers.findIndex((l) => l.namespace === namespace);
    if (i < 0) return;
    this.layers.splice(i, 1);
    this.emit('closelayer', namespace);
  }

  setUrgent(address: string): void {
    this.emit('urgent', address.slice(2));
  }

  setScreencast(active: boolean, owner: 0 | 1 = 0): void {
    this.emit('screencast', `${active ? 1 : 0},${owner}`);
    this.emit('screencastv2', `${active ? 1 : 0},${owner},sim-recorder`);
  }

  setLocked(locked: boolean): void {
    this.locked = locked;
  }

  addMonitor(m: Omit<SimMonitor, 'id' | 'focused' | 'activeWorkspace' | 'specialWorkspace'>): void {
    const id = Math.max(...this.monitors.map((x) => x.id)) + 1;
    const wsId = Math.max(...this.workspaces.map((w) => w.id), 0) + 1;
    this.workspaces.push({ id: wsId, name: String(wsId), monitor: m.name });
    this.monitors.push({ ...m, id, focused: false, activeWorkspace: wsId, specialWorkspace: 0 });
    this.emit('monitoradded', m.name);
    this.emit('monitoraddedv2', `${id},${m.name},${m.description}`);
  }

  removeMonitor(name: string): void {
    const i = this.monitors.findIndex((m) => m.name === name);
    if (i < 0) return;
    const [m] = this.monitors.splice(i, 1);
    this.emit('monitorremoved', m.name);
    this.emit('monitorremovedv2', `${m.id},${m.name},${m.description}`);
  }

  // ---------------------------------------------------------------- exec and processes

  private ruleFor(pid: number): PendingRule | undefined {
    let p: number | null = pid;
    for (let d = 0; p !== null && p > 1 && d < 32; d++) {
      const rule = this.rulesPending.find((r) => r.rootPid === p);
      if (rule) return rule;
      p = this.parentOf(p);
    }
    return undefined;
  }

  private parentOf(pid: number): number | null {
    const f = this.fake.get(pid);
    if (f) return f.ppid;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return ppid > 0 ? ppid : null;
    } catch {
      return null;
    }
  }

  private exec(command: string, rule: { workspace: string; silent: boolean } | null): string {
    if (this.processes === 'fake') {
      this.fakeExec(command, rule);
    } else {
      const child = spawn('/bin/sh', ['-c', command], {
        detached: true,
        stdio: 'ignore',
        env: { ...process.env, ...this.env, HYPRUSE_SIM_CONTROL: this.controlPath },
      });
      child.on('error', () => undefined);
      this.children.add(child);
      child.on('exit', () => this.children.delete(child));
      child.unref();
      if (rule && child.pid) this.rulesPending.push({ rootPid: child.pid, ...rule });
    }
    this.onExec?.(command);
    return 'ok';
  }

  private fakeProcess(ppid: number | null, env: Record<string, string>): FakeProcess {
    const p: FakeProcess = { pid: this.nextFakePid++, ppid, env, alive: true };
    this.fake.set(p.pid, p);
    return p;
  }

  /**
   * Fake exec: `[env K=V ...] [sh -c '<inner>']` is understood; the inner
   * command `fake-app [--class C] [--title T] [--delay MS] [--single-instance] [--no-window]`
   * opens a window whose pid is a fake child process carrying the env.
   */
  private fakeExec(command: string, rule: { workspace: string; silent: boolean } | null): void {
    let words = shellWords(command);
    const env: Record<string, string> = {};
    if (words[0] === 'env') {
      words = words.slice(1);
      while (words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) {
        const w = words.shift() as string;
        env[w.slice(0, w.indexOf('='))] = w.slice(w.indexOf('=') + 1);
      }
    }
    const shell = this.fakeProcess(null, env);
    if (rule) this.rulesPending.push({ rootPid: shell.pid, ...rule });
    if (words[0] === 'sh' && words[1] === '-c') words = shellWords(words[2] ?? '');
    const app = this.fakeProcess(shell.pid, env);
    shell.alive = false;
    if (words[0] !== 'fake-app' && !words[0]?.endsWith('fake-app.mjs') && !(words[0] === 'node' && words[1]?.endsWith('fake-app.mjs'))) {
      app.alive = false;
      return;
    }
    const opt = (name: string) => {
      const i = words.indexOf(name);
      return i >= 0 ? words[i + 1] : undefined;
    };
    const cls = opt('--class') ?? 'fake-app';
    const title = opt('--title') ?? cls;
    const delay = Number(opt('--delay') ?? 30);
    if (words.includes('--no-window')) {
      setTimeout(() => (app.alive = false), delay);
      return;
    }
    setTimeout(() => {
      if (words.includes('--single-instance')) {
        const existing = this.windows.find((w) => w.class === cls && this.owners.has(w.address));
        if (existing) {
          const owner = this.owners.get(existing.address) as Owner;
          const w = this.openWindow({ class: cls, title, pid: owner.pid });
          this.owners.set(w.address, { socket: null, pid: owner.pid });
          app.alive = false;
          return;
        }
      }
      const w = this.openWindow({ class: cls, title, pid: app.pid });
      this.owners.set(w.address, { socket: null, pid: app.pid });
    }, delay);
  }

  /** ProcessInspector over the fake process table (for `processes: 'fake'`). */
  readonly fakeInspector = {
    envVar: (pid: number, name: string): string | null => {
      const p = this.fake.get(pid);
      return p && p.alive ? (p.env[name] ?? null) : p ? null : null;
    },
    parent: (pid: number): number | null => this.fake.get(pid)?.ppid ?? null,
    pids: (): number[] => [...this.fake.values()].filter((p) => p.alive).map((p) => p.pid),
  };

  // ---------------------------------------------------------------- control socket (fake apps)

  private onControlConn(sock: Socket): void {
    let buf = '';
    sock.on('error', () => undefined);
    sock.on('data', (chunk) => {
      buf += chunk.toString('utf8');
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        let msg: { op?: string; pid?: number; class?: string; title?: string; singleInstance?: boolean; workspace?: string };
        try {
          msg = JSON.parse(line);
        } catch {
          continue;
        }
        if (msg.op !== 'open' || typeof msg.pid !== 'number') continue;
        const cls = msg.class ?? 'fake-app';
        if (msg.singleInstance) {
          const existing = this.windows.find((w) => w.class === cls && this.owners.get(w.address)?.socket);
          if (existing) {
            const owner = this.owners.get(existing.address) as Owner;
            const w = this.openWindow({ class: cls, title: msg.title, pid: owner.pid });
            this.owners.set(w.address, owner);
            sock.end(JSON.stringify({ op: 'handoff', address: w.address }) + '\n');
            continue;
          }
        }
        const w = this.openWindow({ class: cls, title: msg.title, pid: msg.pid, workspace: msg.workspace });
        this.owners.set(w.address, { socket: sock, pid: msg.pid });
        sock.write(JSON.stringify({ op: 'opened', address: w.address }) + '\n');
      }
    });
    sock.on('close', () => {
      for (const [addr, o] of [...this.owners]) if (o.socket === sock) this.closeWindowNow(addr);
    });
  }

  // ---------------------------------------------------------------- socket 2

  private onEventConn(sock: Socket): void {
    this.eventClients.add(sock);
    this.pending.set(sock, 0);
    sock.on('error', () => undefined);
    sock.on('close', () => {
      this.eventClients.delete(sock);
      this.pending.delete(sock);
    });
    sock.on('data', () => undefined);
  }

  /** Emit one socket2 event to every client; a client with more than the queue limit pending is disconnected. */
  emit(name: string, data: string): void {
    const line = `${name}>>${data.replace(/\n/g, ' ').slice(0, 1024)}\n`;
    this.emitted.push(line.trimEnd());
    if (this.emitted.length > 5000) this.emitted.splice(0, 1000);
    for (const c of this.eventClients) {
      const n = this.pending.get(c) ?? 0;
      if (n >= this.queueLimit) {
        c.destroy();
        this.eventClients.delete(c);
        this.pending.delete(c);
        continue;
      }
      // Pending = written but not yet accepted by the kernel (the reader is behind).
      if (c.writableLength > 0) this.pending.set(c, n + 1);
      c.write(line, () => {
        const m = this.pending.get(c);
        if (m !== undefined && c.writableLength === 0) this.pending.set(c, 0);
      });
    }
  }
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Hyprland's batch splitter: `;` separates, `\;` and `\\` escape. */
export function splitBatch(s: string, escapes = true): string[] {
  const out: string[] = [];
  let cur = '';
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (!escapes) {
      // released <= 0.56.2: split on `;` outside `[...]`, no escapes
      if (c === '[') depth++;
      else if (c === ']') depth = Math.max(0, depth - 1);
      if (c === ';' && depth === 0) {
        out.push(cur);
        cur = '';
      } else cur += c;
      continue;
    }
    if (c === '\\' && (s[i + 1] === ';' || s[i + 1] === '\\')) {
      cur += s[i + 1];
      i++;
    } else if (c === ';') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/** Minimal POSIX word splitting: single quotes, double quotes, backslash. */
export function shellWords(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "'") {
      const j = s.indexOf("'", i + 1);
      cur += s.slice(i + 1, j < 0 ? s.length : j);
      i = j < 0 ? s.length : j;
      has = true;
    } else if (c === '"') {
      let j = i + 1;
      while (j < s.length && s[j] !== '"') {
        if (s[j] === '\\' && j + 1 < s.length) j++;
        cur += s[j];
        j++;
      }
      i = j;
      has = true;
    } else if (c === '\\' && i + 1 < s.length) {
      cur += s[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has) out.push(cur);
  return out;
}

const MOD_MASKS: Record<string, number> = { SHIFT: 1, CAPS: 2, CTRL: 4, CONTROL: 4, ALT: 8, MOD2: 16, MOD3: 32, SUPER: 64, WIN: 64, LOGO: 64, MOD4: 64, MOD5: 128 };

/** Modifier names and a key (the last part) as a modmask and key, or null when a modifier is unknown. */
function parseKeys(parts: string[]): { modmask: number; key: string } | null {
  const key = parts[parts.length - 1];
  if (!key) return null;
  let modmask = 0;
  for (const m of parts.slice(0, -1)) {
    const bit = MOD_MASKS[m.toUpperCase()];
    if (bit === undefined) return null;
    modmask |= bit;
  }
  return { modmask, key };
}
