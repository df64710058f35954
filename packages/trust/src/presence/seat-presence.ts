import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { ChordReport, Presence, PresenceVerdict, TakeoverReport } from '@hypruse/core';
import { CancelledError, ensurePrivateDir } from '@hypruse/core';
import { controlPath, readControl, writeControl, type ControlRecord } from './control-file.js';
import { TakeoverTracker } from './takeover-tracker.js';

/** A source of the compositor's idle notifications, opened by the composition root (wayland package). */
export interface IdleSource {
  readonly method: string;
  readonly sees: string;
  readonly blind: string;
  /** A barrier: resolves once every notification the compositor queued for this client so far has been handled. */
  sync(): Promise<void>;
  close(): void;
}

export interface IdleSink {
  idle(): void;
  resumed(): void;
  /** The source died (compositor gone); the detector reports itself inactive. */
  lost(reason: string): void;
}

export interface SeatPresenceOptions {
  env: NodeJS.ProcessEnv;
  takeoverMs: number;
  /** Opens the idle source with this idle timeout, or returns why none is available. */
  openIdle?: (idleMs: number, sink: IdleSink) => Promise<IdleSource | { unavailable: string }>;
  /** Open the idle source now (the server) instead of at the first acting call (a CLI verb). */
  eager?: boolean;
  now?: () => number;
  /** Idle-timer granularity asked of the compositor. */
  idleMs?: number;
  /** Allowance for the compositor's idle timer and event delivery (from the timeout policy). */
  slackMs?: number;
}

/** Burst granularity: short enough to see a person between two agent actions, long enough not to flood. */
export const IDLE_GRANULARITY_MS = 100;
/** Allowance for the compositor's idle timer and for this process reading the notification late (a busy event loop). */
export const IDLE_SLACK_MS = 500;

/**
 * The seat presence of one hypruse process: the takeover detector over the
 * compositor's idle notifications, and the shared stop/pause state (a control
 * file in the runtime directory, so the chord, the monitor page and every
 * hypruse process of the session agree).
 */
export class SeatPresence implements Presence {
  private readonly path: string;
  private readonly now: () => number;
  private readonly tracker: TakeoverTracker | null;
  private source: IdleSource | null = null;
  private opening: Promise<void> | null = null;
  private unavailable: string | null = null;
  private readonly listeners = new Set<(v: PresenceVerdict) => void>();
  private watcher: FSWatcher | null = null;
  private lastControl: ControlRecord;
  private chordReport: ChordReport = { combo: null, registered: false, detail: 'not registered by this process' };
  private readonly idleMs: number;
  private readonly slackMs: number;

  constructor(private readonly opts: SeatPresenceOptions) {
    this.path = controlPath(opts.env);
    this.now = opts.now ?? (() => performance.now());
    this.idleMs = opts.idleMs ?? IDLE_GRANULARITY_MS;
    this.slackMs = opts.slackMs ?? IDLE_SLACK_MS;
    this.tracker = opts.takeoverMs > 0 && opts.openIdle ? new TakeoverTracker({ idleMs: this.idleMs, windowMs: opts.takeoverMs, slackMs: this.slackMs }) : null;
    if (opts.takeoverMs > 0 && !opts.openIdle) this.unavailable = 'no idle source in this process';
    this.lastControl = readControl(this.path);
    if (opts.eager) {
      void this.ensureOpen();
      this.watchControl();
    }
  }

  private ensureOpen(): Promise<void> {
    if (!this.tracker || !this.opts.openIdle) return Promise.resolve();
    this.opening ??= (async () => {
      const tracker = this.tracker!;
      try {
        const src = await this.opts.openIdle!(this.idleMs, {
          idle: () => tracker.idled(this.now()),
          resumed: () => {
            tracker.resumed(this.now());
          },
          lost: (reason) => {
            this.unavailable = `the idle notifications stopped: ${reason}`;
            this.source = null;
          },
        });
        if ('unavailable' in src) {
          this.unavailable = src.unavailable;
          return;
        }
        tracker.opened(this.now());
        this.source = src;
      } catch (err) {
        this.unavailable = (err as Error).message;
      }
    })();
    return this.opening;
  }

  /** Re-read the control file when it changes, so listeners (a plan, the monitor page) hear a stop at once. */
  private watchControl(): void {
    if (this.watcher) return;
    try {
      writeControlDirReady(this.path);
      this.watcher = watch(dirname(this.path), { persistent: false }, (_e, name) => {
        if (name && name !== basename(this.path)) return;
        const r = readControl(this.path);
        if (r.state !== this.lastControl.state || r.at !== this.lastControl.at) {
          this.lastControl = r;
          this.emit();
        }
      });
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = null;
      });
    } catch {
      this.watcher = null; // polled on every call instead
    }
  }

  current(): PresenceVerdict {
    const r = readControl(this.path);
    this.lastControl = r;
    if (r.state === 'stopped') return { state: 'stopped', by: r.by || 'the person', at: r.at };
    if (r.state === 'paused') return { state: 'paused', cause: 'manual', retryAfterMs: null, by: r.by || 'the person' };
    return { state: 'running' };
  }

  async verdict(signal?: AbortSignal): Promise<PresenceVerdict> {
    const c = this.current();
    if (c.state !== 'running' || !this.tracker) return c;
    await this.ensureOpen();
    if (!this.source) return c;
    // a fresh process: wait until the compositor's first idle (or its absence) has told whether the seat is in use
    while (!this.tracker.isPrimed(this.now())) {
      if (signal?.aborted) throw new CancelledError();
      await this.source.sync().catch(() => undefined);
      if (this.tracker.isPrimed(this.now())) break;
      await new Promise((r) => setTimeout(r, Math.max(5, Math.min(50, this.tracker!.primedBy() - this.now()))));
    }
    await this.source.sync().catch(() => undefined);
    const t = this.tracker.verdict(this.now());
    if (t.active) return { state: 'paused', cause: 'takeover', retryAfterMs: t.retryAfterMs, by: `keyboard or pointer input within the last ${this.opts.takeoverMs} ms` };
    return c;
  }

  async agentInput<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.tracker || !this.source) return fn();
    const src = this.source;
    await src.sync().catch(() => undefined);
    const id = this.tracker.agentBegin(this.now());
    try {
      return await fn();
    } finally {
      // every notification the agent's input caused is in before the bracket closes
      await src.sync().catch(() => undefined);
      this.tracker.agentEnd(id, this.now());
    }
  }

  private set(state: ControlRecord['state'], by: string): void {
    const rec: ControlRecord = { v: 1, state, by, at: Date.now() };
    writeControl(this.path, rec);
    this.lastControl = rec;
    this.emit();
  }

  stop(by: string): void {
    this.set('stopped', by);
  }

  pause(by: string): void {
    if (this.current().state === 'stopped') return; // a stop outranks a pause
    this.set('paused', by);
  }

  resume(by: string): PresenceVerdict {
    const before = this.current();
    this.set('running', by);
    return before;
  }

  onChange(fn: (v: PresenceVerdict) => void): () => void {
    this.watchControl();
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(): void {
    const v = this.current();
    for (const l of [...this.listeners]) {
      try {
        l(v);
      } catch {
        /* a listener never breaks the state */
      }
    }
  }

  takeover(): TakeoverReport {
    if (this.opts.takeoverMs <= 0) return { method: 'off', active: false, sees: 'nothing (takeover_ms is 0)', blind: 'everything' };
    if (this.source) return { method: this.source.method, active: true, sees: this.source.sees, blind: this.source.blind };
    return { method: 'none', active: false, sees: 'nothing', blind: this.unavailable ?? 'not opened yet' };
  }

  /** Open the detector now (doctor). */
  async open(): Promise<void> {
    await this.ensureOpen();
  }

  setChord(report: ChordReport): void {
    this.chordReport = report;
  }

  chord(): ChordReport {
    return this.chordReport;
  }

  async dispose(): Promise<void> {
    this.watcher?.close();
    this.watcher = null;
    this.listeners.clear();
    this.source?.close();
    this.source = null;
  }
}

function writeControlDirReady(path: string): void {
  // fs.watch needs the directory to exist
  ensurePrivateDir(dirname(path));
}
