import { ShmFile } from '../shm-file.js';
import {
  CancelledError, HypruseError, runtimeDir, scaledMs, type Capture, type CaptureTarget, type Frame, type Logger, type Rect,
} from '@hypruse/core';
import { DISPLAY_ID, WaylandConnection, arg, fdPassingUnavailable, requestXdgOutput, waylandSocketPath, type ArgReader } from '../input/index.js';
import { grimGeometry } from './grim-capture.js';
import { channelOffsets, shmToRgb } from './shm-pixels.js';

/** A window's own pixels (a toplevel export protocol some compositors offer beside screencopy). */
const EXPORT_MANAGER = 'hyprland_toplevel_export_manager_v1';

export interface ScreencopyCaptureOptions {
  /** The Wayland session environment (WAYLAND_DISPLAY, XDG_RUNTIME_DIR). */
  env: NodeJS.ProcessEnv;
  /** Used for what screencopy cannot do here (regions across monitors, rotated outputs, window pixels) and when it fails. */
  fallback: Capture;
  logger?: Logger;
  /** Per-capture ceiling, default 3 s. */
  timeoutMs?: number;
}

interface OutputInfo {
  id: number;
  globalName: number;
  name: string;
  transform: number;
  logical: Rect;
}

interface Session {
  conn: WaylandConnection;
  registry: number;
  shm: number;
  manager: number;
  managerVersion: number;
  outputs: Map<number, OutputInfo>;
  /** hyprland_toplevel_export_manager_v1 (Hyprland): a window's own pixels, whatever covers it; 0 when not offered. */
  toplevelExport: number;
}

/** One frame protocol: how to start a capture into `frame`, copy into a buffer, and which event opcodes mean what. */
interface FrameProtocol {
  iface: string;
  label: string;
  start(frame: number): void;
  copy(frame: number, buffer: number): void;
  destroyOp: number;
  ev: { buffer: number; flags: number; ready: number; failed: number; bufferDone: number };
  /** Only one buffer event and no buffer_done (wlr-screencopy v1/v2). */
  singleOffer: boolean;
}



/**
 * In-process screen capture over wlr-screencopy into a wl_shm buffer (the
 * file descriptor travels through sendmsg, see input/wire/libc.ts): no grim process, no PPM pipe.
 * Whole outputs and regions inside one output are taken here; everything
 * else goes to the fallback (grim), which is also used when this path fails.
 */
export class ScreencopyCapture implements Capture {
  private readonly env: NodeJS.ProcessEnv;
  private readonly fallback: Capture;
  private readonly logger?: Logger;
  private readonly baseTimeoutMs: number;
  /** Scaled by the time policy when armed. */
  private get timeoutMs(): number {
    return scaledMs(this.baseTimeoutMs);
  }
  private session?: Promise<Session>;
  /** Set when this machine cannot do in-process capture at all (no fd passing, no screencopy): then every call goes to the fallback. */
  private unavailable?: string;

  constructor(opts: ScreencopyCaptureOptions) {
    this.env = opts.env;
    this.fallback = opts.fallback;
    this.logger = opts.logger;
    this.baseTimeoutMs = opts.timeoutMs ?? 3000;
  }

  async describe(): Promise<string> {
    const fb = await this.fallback.describe();
    try {
      const s = await this.connect();
      const win = s.toplevelExport ? `windows through ${EXPORT_MANAGER} (their own pixels); ` : '';
      return `zwlr_screencopy_manager_v1 v${s.managerVersion} in-process (wl_shm, fd passing via sendmsg) → sharp; ${win}regions across monitors and rotated outputs: ${fb}`;
    } catch (e) {
      return `${fb}; in-process screencopy unavailable: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  async capture(target: CaptureTarget, signal?: AbortSignal): Promise<Frame> {
    if (this.unavailable) return this.fallback.capture(target, signal);
    let session: Session;
    try {
      session = await this.connect(signal);
    } catch (e) {
      if (e instanceof CancelledError) throw e;
      return this.fallback.capture(target, signal);
    }
    if (target.kind === 'window') return this.captureWindow(session, target, signal);
    const plan = this.plan(session, target);
    if (!plan) return this.fallback.capture(target, signal);
    try {
      const frame = await this.grab(session, this.screencopy(session, plan.output, plan.local), plan.geometry, target.kind === 'output' ? 'output' : 'region', signal);
      // The compositor renders at the output's own scale; a caller asking for another scale gets grim's resampling instead.
      if (target.scale > 0 && Math.abs(frame.width - frame.geometry.width * target.scale) <= 1.01) return { ...frame, scale: target.scale };
      this.logger?.debug(`screencopy gave ${frame.width} px for ${frame.geometry.width} logical, not scale ${target.scale}; using the fallback`);
      return this.fallback.capture(target, signal);
    } catch (e) {
      if (e instanceof CancelledError || signal?.aborted) throw e instanceof CancelledError ? e : new CancelledError();
      this.logger?.warn(`in-process screencopy failed (${e instanceof Error ? e.message : String(e)}); using ${await this.fallback.describe()} for this capture`);
      this.drop(session);
      return this.fallback.capture(target, signal);
    }
  }

  /**
   * A window's own pixels through hyprland_toplevel_export_manager_v1 (the
   * compositor renders the toplevel alone, so a window covered by another, or
   * on a hidden workspace, still yields its own content). Without that
   * protocol, or when it fails, the fallback decides (grim).
   */
  private async captureWindow(session: Session, target: Extract<CaptureTarget, { kind: 'window' }>, signal?: AbortSignal): Promise<Frame> {
    // the compositor plugin names the window's export handle (window.extra.exportHandle)
    const handle = target.exportHandle ?? null;
    if (!session.toplevelExport || handle === null) return this.fallback.capture(target, signal);
    const { conn } = session;
    const proto: FrameProtocol = {
      iface: 'hyprland_toplevel_export_frame_v1',
      label: `toplevel export of window ${target.address}`,
      start: (frame) => conn.send(session.toplevelExport, 0, [arg.newId(frame), arg.int(0), arg.int(handle)]),
      copy: (frame, buffer) => conn.send(frame, 0, [arg.object(buffer), arg.int(1)]),
      destroyOp: 1,
      ev: { buffer: 0, flags: 2, ready: 3, failed: 4, bufferDone: 6 },
      singleOffer: false,
    };
    try {
      const f = await this.grab(session, proto, target.geometry, 'window', signal);
      // the buffer is the window at its monitor's scale: pixels per logical unit from the window's own width
      return { ...f, scale: target.geometry.width > 0 ? f.width / target.geometry.width : f.scale, via: 'toplevel-export' };
    } catch (e) {
      if (e instanceof CancelledError || signal?.aborted) throw e instanceof CancelledError ? e : new CancelledError();
      this.logger?.warn(`toplevel export of ${target.address} failed (${e instanceof Error ? e.message : String(e)}); using ${await this.fallback.describe()}`);
      if (conn.failure) this.drop(session);
      return this.fallback.capture(target, signal);
    }
  }

  /** Close the Wayland connection (a later capture reconnects). */
  async dispose(): Promise<void> {
    this.close();
  }

  close(): void {
    this.session?.then((s) => s.conn.close(), () => undefined);
    this.session = undefined;
  }

  /** Which output and output-local box serve a target, or null when screencopy cannot take it exactly. */
  private plan(s: Session, target: Exclude<CaptureTarget, { kind: 'window' }>): { output: OutputInfo; local?: Rect; geometry: Rect } | null {
    const outs = [...s.outputs.values()];
    if (target.kind === 'output') {
      const o = outs.find((x) => x.name === target.name);
      if (!o || o.transform !== 0) return null;
      return { output: o, geometry: target.geometry };
    }
    const g = grimGeometry(target.rect).rect;
    const o = outs.find(
      (x) => g.x >= x.logical.x && g.y >= x.logical.y && g.x + g.width <= x.logical.x + x.logical.width && g.y + g.height <= x.logical.y + x.logical.height,
    );
    if (!o || o.transform !== 0) return null;
    return { output: o, local: { x: g.x - o.logical.x, y: g.y - o.logical.y, width: g.width, height: g.height }, geometry: g };
  }

  private drop(s: Session): void {
    s.conn.close();
    this.session = undefined;
  }

  private connect(signal?: AbortSignal): Promise<Session> {
    if (this.unavailable) return Promise.reject(new HypruseError('error.capture', this.unavailable));
    const existing = this.session;
    if (existing) {
      return existing.then((s) => {
        if (!s.conn.failure) return s;
        if (this.session === existing) this.session = undefined;
        return this.connect(signal);
      });
    }
    const p = this.open(signal);
    this.session = p;
    p.catch((e: unknown) => {
      if (this.session === p) this.session = undefined;
      if (e instanceof HypruseError && e.data?.permanent) this.unavailable = e.message;
    });
    return p;
  }

  private async open(signal?: AbortSignal): Promise<Session> {
    const conn = await WaylandConnection.connect({ path: waylandSocketPath(this.env, runtimeDir(this.env)), wantFds: true, timeoutMs: this.timeoutMs, signal });
    const permanent = (msg: string) => new HypruseError('error.capture', msg, { data: { permanent: true } });
    try {
      if (!conn.fdPassing) throw permanent(`wl_shm buffers cannot be shared without file-descriptor passing (${fdPassingUnavailable() ?? 'the connection cannot pass fds'})`);
      // Our own registry: the connection's global map keeps one object per interface, and there can be many wl_outputs.
      const globals: Array<{ name: number; iface: string; version: number }> = [];
      const session: Session = { conn, registry: 0, shm: 0, manager: 0, managerVersion: 0, outputs: new Map(), toplevelExport: 0 };
      const bindOutput = (g: { name: number; version: number }, xdgManager: number) => {
        const info: OutputInfo = { id: 0, globalName: g.name, name: '', transform: 0, logical: { x: 0, y: 0, width: 0, height: 0 } };
        info.id = this.bind(session, g.name, 'wl_output', Math.min(g.version, 4), (op, a) => {
          if (op === 0) {
            a.int(); a.int(); a.int(); a.int(); a.int(); a.string(); a.string();
            info.transform = a.int();
          } else if (op === 4 && !info.name) info.name = a.string() ?? '';
        });
        requestXdgOutput(conn, xdgManager, info.id, info);
        session.outputs.set(g.name, info);
      };
      let xdgManager = 0;
      session.registry = conn.allocId('wl_registry', (op, a) => {
        if (op === 0) {
          const g = { name: a.uint(), iface: a.string() ?? '', version: a.uint() };
          globals.push(g);
          if (g.iface === 'wl_output' && xdgManager) bindOutput(g, xdgManager); // hotplug after start
        } else if (op === 1) {
          session.outputs.delete(a.uint());
        }
      });
      conn.send(DISPLAY_ID, 1, [arg.newId(session.registry)]);
      await conn.roundtrip(signal);
      const find = (iface: string) => globals.find((g) => g.iface === iface);
      const mgr = find('zwlr_screencopy_manager_v1');
      const shm = find('wl_shm');
      const xdgm = find('zxdg_output_manager_v1');
      if (!mgr) throw permanent('the compositor does not offer zwlr_screencopy_manager_v1');
      if (!shm) throw permanent('the compositor does not offer wl_shm');
      if (!xdgm || xdgm.version < 2) throw permanent('the compositor does not offer zxdg_output_manager_v1 v2 (output names and logical layout)');
      session.shm = this.bind(session, shm.name, 'wl_shm', 1);
      session.managerVersion = Math.min(mgr.version, 3);
      session.manager = this.bind(session, mgr.name, 'zwlr_screencopy_manager_v1', session.managerVersion);
      xdgManager = this.bind(session, xdgm.name, 'zxdg_output_manager_v1', Math.min(xdgm.version, 3));
      const exp = find(EXPORT_MANAGER);
      if (exp) session.toplevelExport = this.bind(session, exp.name, EXPORT_MANAGER, 1);
      for (const g of globals.filter((x) => x.iface === 'wl_output')) bindOutput(g, xdgManager);
      await conn.roundtrip(signal);
      return session;
    } catch (e) {
      conn.close();
      throw e;
    }
  }

  private bind(s: Session, name: number, iface: string, version: number, handler?: (op: number, a: ArgReader) => void): number {
    return s.conn.bindName(s.registry, name, iface, version, handler);
  }

  /** wlr-screencopy of an output, or of a box inside it. */
  private screencopy(s: Session, out: OutputInfo, local: Rect | undefined): FrameProtocol {
    const { conn } = s;
    return {
      iface: 'zwlr_screencopy_frame_v1',
      label: `screencopy of ${out.name}`,
      start: (frame) =>
        local
          ? conn.send(s.manager, 1, [arg.newId(frame), arg.int(0), arg.object(out.id), arg.int(local.x), arg.int(local.y), arg.int(local.width), arg.int(local.height)])
          : conn.send(s.manager, 0, [arg.newId(frame), arg.int(0), arg.object(out.id)]),
      copy: (frame, buffer) => conn.send(frame, 0, [arg.object(buffer)]),
      destroyOp: 1,
      ev: { buffer: 0, flags: 1, ready: 2, failed: 3, bufferDone: 6 },
      singleOffer: s.managerVersion < 3,
    };
  }

  private async grab(s: Session, proto: FrameProtocol, geometry: Rect, source: Frame['source'], signal?: AbortSignal): Promise<Frame> {
    const { conn } = s;
    const cleanups: Array<() => void | Promise<void>> = [];
    try {
      const shm = await new Promise<{ data: Buffer; width: number; height: number; stride: number; format: number; yInvert: boolean }>((resolve, reject) => {
        const offers: Array<{ format: number; width: number; height: number; stride: number }> = [];
        let yInvert = false;
        let chosen: { format: number; width: number; height: number; stride: number } | undefined;
        let file: ShmFile | undefined;
        let done = false;
        const finish = (fn: () => void) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          fn();
        };
        const onAbort = () => finish(() => reject(new CancelledError()));
        const timer = setTimeout(
          () => finish(() => reject(new HypruseError('error.capture', `${proto.label} did not complete within ${this.timeoutMs} ms`, { data: { timeoutMs: this.timeoutMs } }))),
          this.timeoutMs,
        );
        if (signal?.aborted) return onAbort();
        signal?.addEventListener('abort', onAbort, { once: true });

        const startCopy = async () => {
          chosen = offers.find((o) => channelOffsets(o.format) !== null);
          if (!chosen) throw new HypruseError('error.capture', `${proto.label} offered no 32-bit RGB shm format (offered ${offers.map((o) => `0x${o.format.toString(16)}`).join(', ') || 'none'})`);
          const size = chosen.stride * chosen.height;
          file = await ShmFile.create('shm', this.env);
          const fh = file;
          cleanups.push(() => fh.close());
          await fh.truncate(size);
          const pool = conn.allocId('wl_shm_pool');
          await conn.sendAndFlush(s.shm, 0, [arg.newId(pool), arg.fd(), arg.int(size)], [fh.fd]);
          const buffer = conn.allocId('wl_buffer');
          conn.send(pool, 0, [arg.newId(buffer), arg.int(0), arg.int(chosen.width), arg.int(chosen.height), arg.int(chosen.stride), arg.uint(chosen.format)]);
          cleanups.push(() => {
            if (!conn.failure) {
              conn.send(buffer, 0);
              conn.send(pool, 1);
            }
          });
          if (done) return;
          proto.copy(frame, buffer);
        };
        const kick = () => startCopy().catch((e: unknown) => finish(() => reject(e)));

        const frame = conn.allocId(proto.iface, (op, a) => {
          if (op === proto.ev.buffer) {
            offers.push({ format: a.uint(), width: a.uint(), height: a.uint(), stride: a.uint() });
            if (proto.singleOffer) kick(); // wlr-screencopy v1/v2 send exactly one buffer event and no buffer_done
          } else if (op === proto.ev.flags) {
            yInvert = (a.uint() & 1) === 1;
          } else if (op === proto.ev.ready) {
            const c = chosen!;
            const fh = file!;
            const data = Buffer.allocUnsafe(c.stride * c.height);
            fh.read(data, 0).then(
              () => finish(() => resolve({ data, ...c, yInvert })),
              (e: unknown) => finish(() => reject(e)),
            );
          } else if (op === proto.ev.failed) {
            finish(() => reject(new HypruseError('error.capture', `the compositor refused the ${proto.label} (failed event)`)));
          } else if (op === proto.ev.bufferDone && !proto.singleOffer) {
            kick();
          }
        });
        cleanups.push(() => {
          if (!conn.failure) conn.send(frame, proto.destroyOp);
        });
        proto.start(frame);
      });
      const rgb = shmToRgb(shm.data, shm.width, shm.height, shm.stride, shm.format, shm.yInvert);
      return { data: rgb, width: shm.width, height: shm.height, channels: 3, geometry, scale: shm.width / geometry.width, source, via: 'screencopy' };
    } finally {
      for (const c of cleanups.reverse()) {
        try {
          await c();
        } catch {
          /* best effort: the connection may already be gone */
        }
      }
    }
  }
}
