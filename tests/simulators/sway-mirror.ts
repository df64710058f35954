// A protocol simulator (Hyprland, niri) standing in front of the real headless
// sway desktop: the simulator's outputs are sway's, its window list describes
// the real windows on sway (their pids, titles, app ids and content geometry,
// followed as they open, move, retitle, take focus and close), and the
// requests that change the desktop (focus, cursor, close, floating, workspace)
// are carried over to sway before the simulator answers them. Tools then run
// against the simulator's IPC while their pointer, keyboard and accessibility
// act on real apps on sway's Wayland display.
//
//   const m = await HyprlandMirror.start({ version: '0.57' });
//   ... m.sim.env, m.addressOf(pid), m.sim.dispatches ...
//   await m.stop();
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { scaledMs } from '@hypruse/core';
import type { DesktopEnv } from '../support/desktop.js';
import { HyprlandSimulator, type SimulatorOptions } from './hyprland/index.js';
import type { SimWindow as HyprWindow } from './hyprland/fixtures.js';
import { NiriSimulator, type NiriSimulatorOptions, type SimOutput } from './niri/niri-simulator.js';

interface Rect { x: number; y: number; width: number; height: number }

interface RawNode {
  id: number;
  type: string;
  name?: string | null;
  pid?: number;
  app_id?: string | null;
  focused?: boolean;
  rect: Rect;
  window_rect?: Rect;
  nodes?: RawNode[];
  floating_nodes?: RawNode[];
  scale?: number;
  current_mode?: { width: number; height: number };
  active?: boolean;
}

/** A window on sway as the mirror follows it. */
export interface RealWindow {
  con: number;
  pid: number;
  appId: string;
  title: string;
  /** Content geometry (rect + window_rect), global logical. */
  at: [number, number];
  size: [number, number];
  floating: boolean;
  focused: boolean;
  workspace: string;
  output: string;
}

export interface RealOutput {
  name: string;
  /** Physical mode. */
  width: number;
  height: number;
  x: number;
  y: number;
  scale: number;
}

function run(cmd: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, timeout: scaledMs(10000), maxBuffer: 16 * 1024 * 1024 }, (err, out, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')}: ${stderr.trim() || err.message}`));
      else resolve(out);
    });
  });
}

async function swayOutputs(env: DesktopEnv): Promise<RealOutput[]> {
  const outs = JSON.parse(await run('swaymsg', ['-s', env.SWAYSOCK, '-r', '-t', 'get_outputs'], env)) as RawNode[];
  return outs
    .filter((o) => o.active !== false && o.current_mode)
    .map((o) => ({ name: o.name ?? '', width: o.current_mode!.width, height: o.current_mode!.height, x: o.rect.x, y: o.rect.y, scale: o.scale ?? 1 }));
}

async function swayWindows(env: DesktopEnv): Promise<RealWindow[]> {
  const tree = JSON.parse(await run('swaymsg', ['-s', env.SWAYSOCK, '-r', '-t', 'get_tree'], env)) as RawNode;
  const out: RealWindow[] = [];
  const walk = (n: RawNode, output: string, workspace: string, floating: boolean) => {
    if (n.type === 'output') output = n.name ?? '';
    if (n.type === 'workspace') workspace = n.name ?? '';
    if ((n.type === 'con' || n.type === 'floating_con') && n.pid !== undefined && !(n.nodes?.length)) {
      const wr = n.window_rect;
      const g = wr && wr.width > 0 && wr.height > 0 ? { x: n.rect.x + wr.x, y: n.rect.y + wr.y, width: wr.width, height: wr.height } : n.rect;
      out.push({
        con: n.id, pid: n.pid, appId: n.app_id ?? '', title: n.name ?? '', at: [g.x, g.y], size: [g.width, g.height],
        floating: floating || n.type === 'floating_con', focused: n.focused === true, workspace, output,
      });
    }
    for (const c of n.nodes ?? []) walk(c, output, workspace, floating);
    for (const c of n.floating_nodes ?? []) walk(c, output, workspace, true);
  };
  walk(tree, '', '', false);
  return out.filter((w) => w.workspace !== '__i3_scratch');
}

/** What the two mirrors share: following sway's windows and carrying commands over. */
abstract class Mirror<Id> {
  /** sway con id -> simulator window id */
  protected readonly ids = new Map<number, Id>();
  protected readonly known = new Map<number, RealWindow>();
  private timer: NodeJS.Timeout | null = null;
  private events: ChildProcess | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  /** sway commands carried over, in order (`[con_id=7] focus`, `seat seat0 cursor set 10 20`). */
  readonly carried: string[] = [];
  lastError: Error | null = null;

  protected constructor(readonly desk: DesktopEnv) {}

  protected abstract open(w: RealWindow): Id;
  protected abstract update(id: Id, w: RealWindow, was: RealWindow): void;
  protected abstract close(id: Id): void;
  protected abstract focus(id: Id): void;

  protected begin(): void {
    // a pass on each of sway's window events (a new dialog reaches the simulator as its own event would),
    // and every 50 ms for what sway announces with no event (a tiled neighbour resized)
    this.events = spawn('swaymsg', ['-s', this.desk.SWAYSOCK, '-m', '-t', 'subscribe', '["window"]'], { stdio: ['ignore', 'pipe', 'ignore'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...this.desk } });
    this.events.on('error', (e) => (this.lastError = e));
    this.events.stdout?.on('data', () => {
      if (!this.stopped) void this.sync().catch((e: Error) => (this.lastError = e));
    });
    const tick = async () => {
      if (this.stopped) return;
      await this.sync().catch((e: Error) => (this.lastError = e));
      if (!this.stopped) this.timer = setTimeout(() => void tick(), 50);
    };
    this.timer = setTimeout(() => void tick(), 50);
  }

  /** One pass over sway's tree (or the pass under way, then a fresh one). */
  async sync(): Promise<void> {
    while (this.running) await this.running;
    this.running = this.pass().finally(() => (this.running = null));
    return this.running;
  }

  private async pass(): Promise<void> {
    const now = await swayWindows(this.desk);
    const seen = new Set<number>();
    for (const w of now) {
      seen.add(w.con);
      const was = this.known.get(w.con);
      if (!was) {
        this.ids.set(w.con, this.open(w));
      } else if (JSON.stringify(was) !== JSON.stringify(w)) {
        this.update(this.ids.get(w.con)!, w, was);
      }
      this.known.set(w.con, w);
    }
    for (const con of [...this.known.keys()]) {
      if (seen.has(con)) continue;
      this.close(this.ids.get(con)!);
      this.ids.delete(con);
      this.known.delete(con);
    }
    const f = now.find((w) => w.focused);
    if (f) this.focus(this.ids.get(f.con)!);
  }

  protected conOf(id: Id): number | null {
    for (const [con, x] of this.ids) if (x === id) return con;
    return null;
  }

  /** Run a sway command, then take sway's tree over (so the answer describes the result). */
  protected async carry(command: string): Promise<void> {
    this.carried.push(command);
    await run('swaymsg', ['-s', this.desk.SWAYSOCK, command], this.desk).catch((e: Error) => (this.lastError = e));
    await this.sync().catch((e: Error) => (this.lastError = e));
  }

  /** The real window of a process as sway lists it (after a fresh pass), waiting for it to appear. */
  async windowOf(pid: number, opts: { title?: RegExp; timeoutMs?: number } = {}): Promise<{ real: RealWindow; id: Id }> {
    const end = Date.now() + scaledMs(opts.timeoutMs ?? 10000);
    for (;;) {
      await this.sync();
      const real = [...this.known.values()].find((w) => w.pid === pid && (!opts.title || opts.title.test(w.title)));
      if (real) return { real, id: this.ids.get(real.con)! };
      if (Date.now() > end) throw new Error(`no window of pid ${pid}${opts.title ? ` titled ${opts.title}` : ''} on sway`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  protected async halt(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.events?.kill();
    while (this.running) await this.running.catch(() => undefined);
  }
}

/** The Hyprland simulator with sway's outputs and windows. */
export class HyprlandMirror extends Mirror<string> {
  private constructor(desk: DesktopEnv, readonly sim: HyprlandSimulator) {
    super(desk);
  }

  static async start(desk: DesktopEnv, opts: Omit<SimulatorOptions, 'monitors'> = {}): Promise<HyprlandMirror> {
    const outputs = await swayOutputs(desk);
    const sim = await new HyprlandSimulator({ processes: 'fake', ...opts, monitors: outputs }).start();
    const m = new HyprlandMirror(desk, sim);
    sim.onDispatch = (d) => m.onDispatch(d.name, d.args);
    await m.sync();
    m.begin();
    return m;
  }

  /** The simulator's address of a real window (waits for it). */
  async addressOf(pid: number, opts: { title?: RegExp; timeoutMs?: number } = {}): Promise<string> {
    return (await this.windowOf(pid, opts)).id;
  }

  simWindow(address: string): HyprWindow | undefined {
    return this.sim.windows.find((w) => w.address === address);
  }

  protected open(w: RealWindow): string {
    return this.sim.openWindow({ class: w.appId, title: w.title, pid: w.pid, workspace: w.workspace, floating: w.floating, silent: true, geometry: { at: w.at, size: w.size } }).address;
  }

  protected update(address: string, w: RealWindow, was: RealWindow): void {
    this.sim.place(address, w.at, w.size);
    if (w.title !== was.title) this.sim.setTitle(address, w.title);
  }

  protected close(address: string): void {
    this.sim.closeWindowNow(address);
  }

  protected focus(address: string): void {
    if (this.sim.activeWindow !== address) this.sim.activate(address);
  }

  private async onDispatch(name: string, args: Record<string, unknown>): Promise<void> {
    const con = (sel: unknown) => {
      const a = typeof sel === 'string' && sel.startsWith('address:') ? sel.slice(8).toLowerCase() : null;
      return a ? this.conOf(a) : null;
    };
    switch (name) {
      case 'focuswindow':
      case 'focus': {
        if (args.workspace !== undefined) return this.carry(`workspace ${String(args.workspace)}`);
        const c = con(args.window);
        if (c !== null) return this.carry(`[con_id=${c}] focus`);
        return;
      }
      case 'workspace':
        return this.carry(`workspace ${String(args.workspace)}`);
      case 'movecursor':
      case 'cursor.move':
        return this.carry(`seat seat0 cursor set ${Number(args.x)} ${Number(args.y)}`);
      case 'closewindow':
      case 'window.close': {
        const c = con(args.window);
        if (c !== null) return this.carry(`[con_id=${c}] kill`);
        return;
      }
      default:
    }
  }

  async stop(): Promise<void> {
    await this.halt();
    await this.sim.stop();
  }
}

/** The niri simulator with sway's outputs and windows (floating on sway: floating with a position; tiled: tiled, no position). */
export class NiriMirror extends Mirror<number> {
  private constructor(desk: DesktopEnv, readonly sim: NiriSimulator, private readonly outputs: RealOutput[]) {
    super(desk);
  }

  static async start(desk: DesktopEnv, opts: Omit<NiriSimulatorOptions, 'outputs' | 'demoWindows'> = {}): Promise<NiriMirror> {
    const outputs = await swayOutputs(desk);
    const sim = await NiriSimulator.start({
      ...opts,
      demoWindows: false,
      outputs: outputs.map((o): SimOutput => ({ name: o.name, make: 'Mirrored', model: o.name, physical: [o.width, o.height], scale: o.scale, position: [o.x, o.y], transform: 'Normal' })),
    });
    // niri's socket name carries its Wayland display (niri.<display>.<pid>.sock), and the plugin takes the
    // display from it: the display of that name in the simulator's directory is sway's socket
    symlinkSync(join(desk.XDG_RUNTIME_DIR, desk.WAYLAND_DISPLAY), join(sim.dir, sim.display));
    const m = new NiriMirror(desk, sim, outputs);
    sim.onAction = (name, args) => m.onAction(name, args);
    await m.sync();
    m.begin();
    return m;
  }

  /** The simulator's window id of a real window (waits for it), as the tools address it. */
  async addressOf(pid: number, opts: { title?: RegExp; timeoutMs?: number } = {}): Promise<string> {
    return String((await this.windowOf(pid, opts)).id);
  }

  private workspaceOf(w: RealWindow): number {
    return this.sim.workspaces.find((ws) => ws.output === w.output)?.id ?? 1;
  }

  private pos(w: RealWindow): [number, number] {
    const o = this.outputs.find((x) => x.name === w.output) ?? this.outputs[0];
    return [w.at[0] - o.x, w.at[1] - o.y];
  }

  protected open(w: RealWindow): number {
    return this.sim.openWindow({
      title: w.title, appId: w.appId, pid: w.pid, workspace: this.workspaceOf(w), floating: w.floating, focus: false, external: true, size: w.size,
      ...(w.floating ? { pos: this.pos(w) } : {}),
    });
  }

  protected update(id: number, w: RealWindow, was: RealWindow): void {
    this.sim.setPlacement(id, { size: w.size, floating: w.floating, ...(w.floating ? { pos: this.pos(w) } : {}) });
    if (w.title !== was.title) this.sim.setTitle(id, w.title);
  }

  protected close(id: number): void {
    this.sim.removeWindow(id);
  }

  protected focus(id: number): void {
    if (this.sim.focusedWindowId !== id) this.sim.focus(id);
  }

  private async onAction(name: string, args: Record<string, unknown>): Promise<void> {
    const con = typeof args.id === 'number' ? this.conOf(args.id) : null;
    switch (name) {
      case 'FocusWindow':
        if (con !== null) return this.carry(`[con_id=${con}] focus`);
        return;
      case 'CloseWindow':
        if (con !== null) return this.carry(`[con_id=${con}] kill`);
        return;
      case 'ToggleWindowFloating':
        if (con !== null) return this.carry(`[con_id=${con}] floating toggle`);
        return;
      default:
    }
  }

  async stop(): Promise<void> {
    await this.halt();
    await this.sim.stop();
  }
}
