import { createHash } from 'node:crypto';
import { toHypruseError, type Capture, type Imaging, type Rect } from '@hypruse/core';

export interface OutputInfo {
  name: string;
  geometry: Rect;
  scale: number;
  /** A window of a background-mode agent on a workspace no output of the person shows: captured as the window itself. */
  agent?: AgentWindow;
}

/** A window of the agent's workspace (background mode), shown on the page as a view of its own. */
export interface AgentWindow {
  workspace: string;
  window: string;
  title: string;
  class: string;
  toplevelId?: string;
  exportHandle?: number;
  /** Why no image of it can be had (the compositor has no toplevel capture); then it is listed without one. */
  noImage?: string;
}

/** An agent view as the page lists it. */
export interface AgentView {
  view: string;
  workspace: string;
  window: string;
  title: string;
  class: string;
  note?: string;
}

/** The latest frame of one output, encoded once and served to every viewer. */
export interface EncodedFrame {
  output: string;
  version: number;
  png: Buffer;
  width: number;
  height: number;
  geometry: Rect;
  scale: number;
}

export interface FrameMeta {
  output: string;
  version: number;
  width: number;
  height: number;
  geometry: Rect;
  scale: number;
}

export interface FrameLoopOptions {
  capture: Capture;
  imaging: Imaging;
  /** The outputs now (the compositor's monitors). */
  outputs: () => Promise<OutputInfo[]>;
  /** Time between the starts of two capture rounds. */
  intervalMs: number;
  /** A new frame of an output (its pixels changed), or the list of outputs changed. */
  onFrame: (meta: FrameMeta) => void;
  onOutputs: (names: string[]) => void;
  /** The agent's windows (background mode) changed: the views the page lists for them. */
  onAgent?: (views: AgentView[]) => void;
  /** A round failed (once per distinct message), or null when it works again. */
  onError: (message: string | null) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The live desktop image: while someone watches, captures every output a few
 * times a second and keeps a frame only when its pixels changed (raw pixels
 * hashed before encoding, so an unchanged desktop costs a capture and a hash,
 * no encoding and nothing sent). Stops capturing when nobody watches.
 */
export class FrameLoop {
  private readonly frames = new Map<string, EncodedFrame>();
  private readonly hashes = new Map<string, string>();
  private names: string[] = [];
  private agentViews: AgentView[] = [];
  private version = 0;
  private running: Promise<void> | null = null;
  private wanted = false;
  private lastError: string | null = null;
  /** Rounds done and frames kept, for the page's footer and tests. */
  readonly stats = { rounds: 0, kept: 0, unchanged: 0 };

  constructor(private readonly opts: FrameLoopOptions) {}

  latest(output: string): EncodedFrame | undefined {
    return this.frames.get(output);
  }

  all(): FrameMeta[] {
    return this.names.flatMap((n) => {
      const f = this.frames.get(n);
      return f ? [meta(f)] : [];
    });
  }

  outputs(): string[] {
    return [...this.names];
  }

  /** The agent's windows the page lists (background mode), with a note where there is no image. */
  agents(): AgentView[] {
    return [...this.agentViews];
  }

  error(): string | null {
    return this.lastError;
  }

  /** Start (or keep) capturing. */
  start(): void {
    this.wanted = true;
    this.running ??= this.loop().finally(() => {
      this.running = null;
    });
  }

  /** Stop after the round in progress. */
  async stop(): Promise<void> {
    this.wanted = false;
    await this.running;
  }

  /** One capture round over every output (the loop's body; tests call it directly). */
  async round(): Promise<void> {
    this.stats.rounds++;
    const outs = await this.opts.outputs();
    const names = outs.map((o) => o.name);
    if (names.join('\n') !== this.names.join('\n')) {
      this.names = names;
      for (const n of [...this.frames.keys()]) {
        if (!names.includes(n)) {
          this.frames.delete(n);
          this.hashes.delete(n);
        }
      }
      this.opts.onOutputs(names);
    }
    const views = outs.flatMap((o) => (o.agent ? [viewOf(o.name, o.agent)] : []));
    if (JSON.stringify(views) !== JSON.stringify(this.agentViews)) {
      this.agentViews = views;
      this.opts.onAgent?.(views);
    }
    for (const o of outs) {
      if (o.agent?.noImage) continue;
      const a = o.agent;
      const frame = a
        ? // an agent's window may close between the listing and its capture: the round goes on without it
          await this.opts.capture
            .capture({ kind: 'window', address: a.window, geometry: o.geometry, scale: o.scale, ...(a.toplevelId ? { toplevelId: a.toplevelId } : {}), ...(a.exportHandle !== undefined ? { exportHandle: a.exportHandle } : {}) })
            .catch(() => null)
        : await this.opts.capture.capture({ kind: 'output', name: o.name, geometry: o.geometry, scale: o.scale });
      if (!frame) continue;
      // a window capture that fell back to a crop of the screen would show the person's screen, not the agent's window
      if (a && frame.source === 'crop') continue;
      const raw = frame.encoded ? await this.opts.imaging.raw(frame) : frame;
      const hash = createHash('sha1').update(`${raw.width}x${raw.height}x${raw.channels}:`).update(raw.data).digest('hex');
      if (this.hashes.get(o.name) === hash) {
        this.stats.unchanged++;
        continue;
      }
      const png = await this.opts.imaging.encode(raw, { format: 'png' });
      const f: EncodedFrame = { output: o.name, version: ++this.version, png: png.data, width: png.width, height: png.height, geometry: raw.geometry, scale: png.scale };
      this.hashes.set(o.name, hash);
      this.frames.set(o.name, f);
      this.stats.kept++;
      this.opts.onFrame(meta(f));
    }
  }

  private async loop(): Promise<void> {
    let backoff = this.opts.intervalMs;
    while (this.wanted) {
      const t0 = performance.now();
      try {
        await this.round();
        backoff = this.opts.intervalMs;
        if (this.lastError !== null) {
          this.lastError = null;
          this.opts.onError(null);
        }
      } catch (err) {
        const msg = toHypruseError(err).message;
        if (msg !== this.lastError) {
          this.lastError = msg;
          this.opts.onError(msg);
        }
        // a failing desktop (compositor gone, capture refused) is retried more and more slowly, up to 5 s
        backoff = Math.min(5000, backoff * 2);
      }
      const wait = (this.lastError ? backoff : this.opts.intervalMs) - (performance.now() - t0);
      if (wait > 0 && this.wanted) await sleep(wait);
    }
  }
}

function viewOf(view: string, a: AgentWindow): AgentView {
  return { view, workspace: a.workspace, window: a.window, title: a.title, class: a.class, ...(a.noImage ? { note: a.noImage } : {}) };
}

function meta(f: EncodedFrame): FrameMeta {
  return { output: f.output, version: f.version, width: f.width, height: f.height, geometry: f.geometry, scale: f.scale };
}
