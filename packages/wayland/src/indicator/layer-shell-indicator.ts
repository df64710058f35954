/**
 * The on-screen indicator over zwlr_layer_shell_v1: small overlay-layer
 * surfaces on every monitor (edge glows, the label, a ring per target), each
 * placed by margins from the monitor's top-left corner, with an empty input
 * region (clicks and the pointer pass through) and no keyboard interactivity
 * (it never takes focus), drawn into wl_shm buffers from SVG rendered by sharp. Its own
 * Wayland connection carries only surfaces, never input, so the takeover
 * detector never hears it. Every request runs on one queue, so a hide before
 * a capture is ordered after any drawing in flight.
 */
import { existsSync } from 'node:fs';
import { ShmFile } from '../shm-file.js';
import {
  HypruseError, runtimeDir, scaledMs, toHypruseError, type Indicator, type IndicatorAct, type IndicatorReport, type Logger, type Rect,
} from '@hypruse/core';
import { DISPLAY_ID, WaylandConnection, arg, fdPassingUnavailable, requestXdgOutput, waylandSocketPath, type ArgReader } from '../input/index.js';
import { loadSharp } from '../capture/sharp-imaging.js';
import { indicatorElements, rgbaToShmArgb, type IndicatorElement, type IndicatorScene } from './indicator-svg.js';

export const LAYER_SHELL = 'zwlr_layer_shell_v1';
/** The layer surfaces' namespace (what `hyprctl layers` and niri list). */
export const INDICATOR_NAMESPACE = 'hypruse-indicator';
/** How long the indicator stays after the last action, then how long it takes to fade out. */
export const INDICATOR_HOLD_MS = 2500;
export const INDICATOR_FADE_MS = 400;
const FADE_STEPS = 4;

const LAYER_OVERLAY = 3;
const ANCHOR_TOP_LEFT = 1 | 4;
const SHM_ARGB8888 = 0;

export interface LayerShellIndicatorOptions {
  /** The Wayland session environment (WAYLAND_DISPLAY, XDG_RUNTIME_DIR). */
  env: NodeJS.ProcessEnv;
  /** false: nothing is ever shown (config `indicator: false`, or a CLI run, which ends with its action); `probe` still answers. */
  enabled: boolean;
  logger?: Logger;
  holdMs?: number;
  fadeMs?: number;
  /** Base ceiling of one connection step or round trip, scaled by the time policy (default 3 s). */
  timeoutMs?: number;
}

interface Surface {
  key: string;
  surface: number;
  layer: number;
  box: Rect;
  configured: boolean;
  closed: boolean;
  /** What is on screen now (svg + alpha), or null before the first buffer. */
  shown: string | null;
  buffers: Set<number>;
  onConfigure: (() => void) | null;
}

interface Output {
  globalName: number;
  id: number;
  name: string;
  logical: Rect;
  scale: number;
  /** The surfaces on this monitor, by element key. */
  surfaces: Map<string, Surface>;
}

interface Session {
  conn: WaylandConnection;
  registry: number;
  compositor: number;
  shm: number;
  layerShell: number;
  outputs: Map<number, Output>;
}

type Phase = 'off' | 'acting' | 'holding' | 'fading';


/** Why this desktop cannot show the indicator, from a registry's interface names and the transport; null when it can. */
export function indicatorBlocker(interfaces: ReadonlySet<string>, fdPassing: boolean): string | null {
  if (!interfaces.has(LAYER_SHELL)) return `no ${LAYER_SHELL}`;
  if (!interfaces.has('wl_compositor')) return 'no wl_compositor';
  if (!interfaces.has('wl_shm')) return 'no wl_shm';
  if (!interfaces.has('zxdg_output_manager_v1')) return 'no zxdg_output_manager_v1 (monitor layout)';
  if (!fdPassing) return `wl_shm buffers need file-descriptor passing (${fdPassingUnavailable() ?? 'the connection cannot pass fds'})`;
  return null;
}

export class LayerShellIndicator implements Indicator {
  private readonly env: NodeJS.ProcessEnv;
  private readonly enabled: boolean;
  private readonly logger?: Logger;
  private readonly holdMs: number;
  private readonly fadeMs: number;
  private readonly baseTimeoutMs: number;
  private session: Promise<Session> | null = null;
  /** Set when this desktop cannot show it (no layer shell, no fd passing): then nothing is tried again. */
  private blocked: string | null = null;
  private queue: Promise<void> = Promise.resolve();
  private phase: Phase = 'off';
  private active = 0;
  private alpha = 1;
  private scene: IndicatorScene = { label: '', points: [] };
  private hideDepth = 0;
  private timer: NodeJS.Timeout | null = null;
  private disposed = false;
  private lastWarning = '';
  private retries = 0;

  constructor(opts: LayerShellIndicatorOptions) {
    this.env = opts.env;
    this.enabled = opts.enabled;
    this.logger = opts.logger;
    this.holdMs = opts.holdMs ?? INDICATOR_HOLD_MS;
    this.fadeMs = opts.fadeMs ?? INDICATOR_FADE_MS;
    this.baseTimeoutMs = opts.timeoutMs ?? 3000;
  }

  private get timeoutMs(): number {
    return scaledMs(this.baseTimeoutMs, this.env);
  }

  /** What is showing now (tests, the monitor): off, acting, holding or fading, and whether a capture hides it. */
  get state(): { phase: Phase; hidden: boolean; label: string } {
    return { phase: this.phase, hidden: this.hideDepth > 0, label: this.scene.label };
  }

  acting(act: IndicatorAct): void {
    if (!this.enabled || this.blocked || this.disposed) return;
    this.active++;
    this.scene = { label: act.label, points: act.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y)) };
    this.phase = 'acting';
    this.alpha = 1;
    this.clearTimer();
    this.schedule();
  }

  idle(): void {
    if (!this.enabled || this.disposed || this.active === 0) return;
    this.active--;
    if (this.active > 0) return;
    this.phase = 'holding';
    this.clearTimer();
    this.timer = setTimeout(() => this.fadeStep(1), this.holdMs);
    this.timer.unref();
  }

  private fadeStep(i: number): void {
    if (this.phase === 'acting') return;
    this.timer = null;
    if (i > FADE_STEPS) {
      this.phase = 'off';
      this.alpha = 1;
      this.schedule();
      return;
    }
    this.phase = 'fading';
    this.alpha = 1 - i / (FADE_STEPS + 1);
    this.schedule();
    this.timer = setTimeout(() => this.fadeStep(i + 1), this.fadeMs / FADE_STEPS);
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  async hideForCapture(signal?: AbortSignal): Promise<() => void> {
    const noop = () => undefined;
    // nothing was ever drawn by this process: nothing to hide
    if (!this.enabled || !this.session || signal?.aborted) return noop;
    this.hideDepth++;
    let restored = false;
    const restore = () => {
      if (restored) return;
      restored = true;
      this.hideDepth--;
      if (this.hideDepth === 0) this.schedule();
    };
    const session = this.session;
    const hidden = this.enqueue(async () => {
      const s = await session.catch(() => null);
      if (s && this.unmapAll(s)) await s.conn.roundtrip(undefined, this.timeoutMs);
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        hidden,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new HypruseError('error.wayland', `the indicator could not be hidden within ${this.timeoutMs} ms`)), this.timeoutMs);
        }),
      ]);
    } catch (e) {
      // cannot confirm: disconnect, so the compositor drops every surface of this client, and stay off until the next action
      this.logger?.warn(`on-screen indicator: ${toHypruseError(e).message}; disconnected it before the capture`);
      this.drop();
    } finally {
      clearTimeout(timer);
    }
    return restore;
  }

  async probe(signal?: AbortSignal): Promise<IndicatorReport> {
    let conn: WaylandConnection;
    try {
      const path = waylandSocketPath(this.env, runtimeDir(this.env));
      if (!existsSync(path)) return { possible: false, detail: `no Wayland display at ${path} (the surfaces are drawn by the compositor's Wayland server, whatever its IPC)` };
      conn = await WaylandConnection.connect({ path, wantFds: true, timeoutMs: this.timeoutMs, signal });
    } catch (e) {
      return { possible: false, detail: `no Wayland connection: ${toHypruseError(e).message}` };
    }
    try {
      const blocker = indicatorBlocker(new Set(conn.globals.keys()), conn.fdPassing);
      if (blocker) return { possible: false, detail: blocker };
      const v = conn.globals.get(LAYER_SHELL)!.version;
      return { possible: true, detail: `${LAYER_SHELL} v${v}: click-through overlay surfaces (empty input region, no keyboard focus), wl_shm buffers drawn by sharp` };
    } finally {
      conn.close();
    }
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.clearTimer();
    this.phase = 'off';
    this.drop();
  }

  /** Run `job` after every job queued before it; the queue never rejects. */
  private enqueue(job: () => Promise<void>): Promise<void> {
    const run = this.queue.then(job);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Bring the surfaces in line with the state (drawn, faded, or gone), on the queue. */
  private schedule(): void {
    if (this.disposed || this.blocked) return;
    if (this.phase === 'off' && !this.session) return;
    void this.enqueue(() => this.apply()).then(() => {
      this.retries = 0;
    }, (e: unknown) => {
      const err = toHypruseError(e);
      if (err.data?.permanent) this.blocked = err.message;
      const line = err.data?.permanent ? `on-screen indicator not possible: ${err.message}` : `on-screen indicator failed: ${err.message}; it reconnects on the next action`;
      // said once, not on every action
      if (line !== this.lastWarning) this.logger?.warn(line);
      this.lastWarning = line;
      this.drop();
      // still meant to show (a slow compositor missed a ceiling): one more try a moment later, not a loop
      if (!this.blocked && this.phase !== 'off' && this.retries < 2) {
        this.retries++;
        setTimeout(() => this.schedule(), 1000).unref();
      }
    });
  }

  private async apply(): Promise<void> {
    const visible = this.phase !== 'off' && this.hideDepth === 0 && !this.disposed;
    if (!visible) {
      if (this.session) this.unmapAll(await this.session);
      return;
    }
    const s = await this.connect();
    await Promise.all([...s.outputs.values()].filter((o) => o.name && o.logical.width > 0).map((o) => this.draw(s, o)));
  }

  private connect(): Promise<Session> {
    if (!this.session) {
      const p = this.open();
      this.session = p;
      p.catch(() => {
        if (this.session === p) this.session = null;
      });
    }
    return this.session;
  }

  /** Close the connection (the compositor then destroys every surface of it); the next action reconnects. */
  private drop(): void {
    const s = this.session;
    this.session = null;
    s?.then((x) => x.conn.close(), () => undefined);
  }

  private async open(): Promise<Session> {
    const conn = await WaylandConnection.connect({ path: waylandSocketPath(this.env, runtimeDir(this.env)), wantFds: true, timeoutMs: this.timeoutMs });
    try {
      const globals: Array<{ name: number; iface: string; version: number }> = [];
      const s: Session = { conn, registry: 0, compositor: 0, shm: 0, layerShell: 0, outputs: new Map() };
      let xdgManager = 0;
      const bindOutput = (g: { name: number; version: number }) => {
        const out: Output = { globalName: g.name, id: 0, name: '', logical: { x: 0, y: 0, width: 0, height: 0 }, scale: 1, surfaces: new Map() };
        out.id = this.bind(s, g.name, 'wl_output', Math.min(g.version, 4), (op, a) => {
          if (op === 3) out.scale = Math.max(1, a.int());
          else if (op === 4 && !out.name) out.name = a.string() ?? '';
        });
        requestXdgOutput(conn, xdgManager, out.id, out);
        s.outputs.set(g.name, out);
      };
      s.registry = conn.allocId('wl_registry', (op, a) => {
        if (op === 0) {
          const g = { name: a.uint(), iface: a.string() ?? '', version: a.uint() };
          globals.push(g);
          if (g.iface === 'wl_output' && xdgManager) {
            bindOutput(g); // a monitor plugged in while showing: drawn on the next change
            this.schedule();
          }
        } else if (op === 1) {
          const name = a.uint();
          const out = s.outputs.get(name);
          if (out) {
            for (const sf of [...out.surfaces.values()]) this.destroySurface(s, out, sf);
            s.outputs.delete(name);
          }
        }
      });
      conn.send(DISPLAY_ID, 1, [arg.newId(s.registry)]);
      await conn.roundtrip(undefined, this.timeoutMs);
      const blocker = indicatorBlocker(new Set(globals.map((g) => g.iface)), conn.fdPassing);
      if (blocker) throw new HypruseError('unsupported.capability', blocker, { data: { permanent: true } });
      const find = (iface: string) => globals.find((g) => g.iface === iface)!;
      s.compositor = this.bind(s, find('wl_compositor').name, 'wl_compositor', Math.min(find('wl_compositor').version, 4));
      s.shm = this.bind(s, find('wl_shm').name, 'wl_shm', 1);
      s.layerShell = this.bind(s, find(LAYER_SHELL).name, LAYER_SHELL, Math.min(find(LAYER_SHELL).version, 3));
      const xm = find('zxdg_output_manager_v1');
      xdgManager = this.bind(s, xm.name, 'zxdg_output_manager_v1', Math.min(xm.version, 3));
      for (const g of globals.filter((x) => x.iface === 'wl_output')) bindOutput(g);
      await conn.roundtrip(undefined, this.timeoutMs);
      return s;
    } catch (e) {
      conn.close();
      throw e;
    }
  }

  private bind(s: Session, name: number, iface: string, version: number, handler?: (op: number, a: ArgReader) => void): number {
    return s.conn.bindName(s.registry, name, iface, version, handler);
  }

  /** A click-through overlay surface for `el` on `out`, configured by the compositor. */
  private async createSurface(s: Session, out: Output, el: IndicatorElement): Promise<Surface> {
    const { conn } = s;
    const surface = conn.allocId('wl_surface');
    conn.send(s.compositor, 0, [arg.newId(surface)]);
    // an empty input region: the pointer and clicks go to whatever is beneath
    const region = conn.allocId('wl_region');
    conn.send(s.compositor, 1, [arg.newId(region)]);
    conn.send(surface, 5, [arg.object(region)]);
    conn.send(region, 0);
    const sf: Surface = { key: el.key, surface, layer: 0, box: { ...el.box }, configured: false, closed: false, shown: null, buffers: new Set(), onConfigure: null };
    sf.layer = conn.allocId('zwlr_layer_surface_v1', (op, a) => {
      if (op === 0) {
        const serial = a.uint();
        conn.send(sf.layer, 6, [arg.uint(serial)]); // ack_configure (the size is ours: set_size)
        if (!sf.configured) {
          sf.configured = true;
          sf.onConfigure?.();
        }
      } else if (op === 1) {
        sf.closed = true; // the monitor went away, or the compositor dismissed it
        this.destroySurface(s, out, sf);
      }
    });
    conn.send(s.layerShell, 0, [arg.newId(sf.layer), arg.object(surface), arg.object(out.id), arg.uint(LAYER_OVERLAY), arg.string(INDICATOR_NAMESPACE)]);
    conn.send(sf.layer, 0, [arg.uint(el.box.width), arg.uint(el.box.height)]);
    conn.send(sf.layer, 1, [arg.uint(ANCHOR_TOP_LEFT)]);
    conn.send(sf.layer, 3, [arg.int(el.box.y), arg.int(0), arg.int(0), arg.int(el.box.x)]); // margins: top right bottom left
    conn.send(sf.layer, 2, [arg.int(-1)]); // placed from the monitor's real edges, whatever panels reserve
    conn.send(sf.layer, 4, [arg.uint(0)]); // keyboard_interactivity none: never takes focus
    out.surfaces.set(el.key, sf);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new HypruseError('error.wayland', `the compositor did not configure the indicator surface on ${out.name} within ${this.timeoutMs} ms`)), this.timeoutMs);
      sf.onConfigure = () => {
        clearTimeout(timer);
        resolve();
      };
      conn.send(surface, 6); // initial commit, without a buffer
    });
    return sf;
  }

  private destroySurface(s: Session, out: Output, sf: Surface): boolean {
    if (out.surfaces.get(sf.key) === sf) out.surfaces.delete(sf.key);
    if (s.conn.failure) return false;
    try {
      s.conn.send(sf.layer, 7);
      s.conn.send(sf.surface, 0);
      for (const b of sf.buffers) s.conn.send(b, 0);
    } catch {
      return false;
    }
    s.conn.forget(sf.layer);
    for (const b of sf.buffers) s.conn.forget(b);
    return true;
  }

  /** Unmap (destroy) every surface; true when a request went out and a round trip confirms it. */
  private unmapAll(s: Session): boolean {
    let sent = false;
    for (const out of s.outputs.values()) for (const sf of [...out.surfaces.values()]) sent = this.destroySurface(s, out, sf) || sent;
    return sent;
  }

  /** The straight RGBA pixels of an element's picture, by SVG (the glow of a monitor is drawn once; a fade step draws nothing). */
  private readonly rendered = new Map<string, { rgba: Buffer; width: number; height: number }>();

  private async render(svg: string): Promise<{ rgba: Buffer; width: number; height: number }> {
    const hit = this.rendered.get(svg);
    if (hit) return hit;
    const sharp = await loadSharp();
    const { data, info } = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const r = { rgba: data, width: info.width, height: info.height };
    if (this.rendered.size > 64) this.rendered.clear();
    this.rendered.set(svg, r);
    return r;
  }

  /** Bring one monitor's surfaces in line with the scene: gone elements destroyed, moved ones placed anew, changed ones redrawn. */
  private async draw(s: Session, out: Output): Promise<void> {
    const local = { x: out.logical.x, y: out.logical.y, width: out.logical.width, height: out.logical.height };
    const elements = indicatorElements(local, this.scene);
    const keys = new Set(elements.map((e) => e.key));
    for (const sf of [...out.surfaces.values()]) {
      const el = elements.find((e) => e.key === sf.key);
      const moved = el && (el.box.x !== sf.box.x || el.box.y !== sf.box.y || el.box.width !== sf.box.width || el.box.height !== sf.box.height);
      if (!keys.has(sf.key) || moved || sf.closed) this.destroySurface(s, out, sf);
    }
    const alpha = this.alpha;
    await Promise.all(
      elements.map(async (el) => {
        const svg = el.svg(out.scale);
        const key = `${alpha}|${svg}`;
        const existing = out.surfaces.get(el.key);
        if (existing?.shown === key) return;
        const [sf, img] = await Promise.all([existing ?? this.createSurface(s, out, el), this.render(svg)]);
        // the state may have changed meanwhile (a capture began, the act ended): the next apply draws it
        if (this.hideDepth > 0 || this.phase === 'off' || out.surfaces.get(el.key) !== sf || sf.closed) return;
        const buffer = await this.shmBuffer(s, rgbaToShmArgb(img.rgba, alpha), img.width, img.height);
        if (this.hideDepth > 0 || out.surfaces.get(el.key) !== sf) {
          if (!s.conn.failure) s.conn.send(buffer, 0);
          return;
        }
        sf.buffers.add(buffer);
        if (out.scale > 1) s.conn.send(sf.surface, 8, [arg.int(out.scale)]);
        s.conn.send(sf.surface, 1, [arg.object(buffer), arg.int(0), arg.int(0)]);
        s.conn.send(sf.surface, 2, [arg.int(0), arg.int(0), arg.int(el.box.width), arg.int(el.box.height)]);
        s.conn.send(sf.surface, 6);
        sf.shown = key;
      }),
    );
  }

  /** One wl_buffer holding `pixels` (ARGB8888), in a pool of its own; destroyed when the compositor releases it. */
  private async shmBuffer(s: Session, pixels: Buffer, width: number, height: number): Promise<number> {
    const { conn } = s;
    const fh = await ShmFile.create('indicator', this.env);
    try {
      await fh.write(pixels, 0);
      const pool = conn.allocId('wl_shm_pool');
      await conn.sendAndFlush(s.shm, 0, [arg.newId(pool), arg.fd(), arg.int(pixels.length)], [fh.fd]);
      const buffer = conn.allocId('wl_buffer', (op) => {
        if (op !== 0) return; // release: the compositor is done with it
        for (const o of s.outputs.values()) for (const sf of o.surfaces.values()) sf.buffers.delete(buffer);
        if (!conn.failure) conn.send(buffer, 0);
        conn.forget(buffer);
      });
      conn.send(pool, 0, [arg.newId(buffer), arg.int(0), arg.int(width), arg.int(height), arg.int(width * 4), arg.uint(SHM_ARGB8888)]);
      conn.send(pool, 1);
      return buffer;
    } finally {
      await fh.close();
    }
  }
}
