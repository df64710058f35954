import { readFileSync, readdirSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { TRUST_ORDER, ensurePrivateDir, hypruseRuntimeDir, writeFileExclusive, type HypruseConfig, type TrustLayer, pidAlive } from '@hypruse/core';

/** The activity beacon a status bar (and `hypruse stop`) reads. */
export interface Beacon {
  v: 1;
  pid: number;
  /** Process start, epoch seconds. */
  started: number;
  /** `active` while a call runs, `idle` between calls. */
  state: 'active' | 'idle';
  /** Current (active) or last (idle) tool and action, `[A-Za-z0-9:_.-]`, at most 64 characters. */
  tool: string;
  action: string;
  /** When the current call started (active) or the last one ended (idle), epoch seconds. */
  since: number;
  mode: { readonly: boolean; dry_run: boolean; confine: boolean; strict: boolean; source: string };
  /** The monitor page this process serves, without its token (`http://127.0.0.1:PORT/`). */
  monitor?: string;
}

/** `$XDG_RUNTIME_DIR/hypruse`, or `/tmp/hypruse-<uid>` when there is no runtime dir. */
export function beaconDir(env: NodeJS.ProcessEnv = process.env): string {
  return hypruseRuntimeDir(env);
}

/** The folder of beacons: one file per hypruse process, `<pid>.json`. */
export function beaconsDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(beaconDir(env), 'beacons');
}

/** The beacon of one process (this one by default). */
export function beaconPath(env: NodeJS.ProcessEnv = process.env, pid = process.pid): string {
  return join(beaconsDir(env), `${pid}.json`);
}

/** Keep an action label safe for a status bar: `[A-Za-z0-9:_.-]`, 64 characters (arguments flow in before validation). */
export function safeLabel(s: string): string {
  return s.replace(/[^A-Za-z0-9:_.-]/g, '').slice(0, 64);
}

export function readBeacon(path = beaconPath()): Beacon | null | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? null : 'unreadable';
  }
  try {
    const b = JSON.parse(text) as Beacon;
    if (typeof b !== 'object' || b === null || !Number.isInteger(b.pid) || b.pid <= 0) return 'unreadable';
    return b;
  } catch {
    return 'unreadable';
  }
}

/** Is this pid a hypruse process (not one that reused a dead hypruse's pid)? null when it cannot be told. */
export function isHypruseProcess(pid: number): boolean | null {
  try {
    return /hypruse/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' '));
  } catch {
    return null;
  }
}

export interface LiveBeacons {
  /** Beacons of running hypruse processes, oldest process first. */
  live: Array<Beacon & { path: string }>;
  /** Beacons left by processes that are gone (or whose pid now belongs to another program): removed. */
  stale: number[];
  /** Files in the folder that are not beacons. */
  unreadable: string[];
}

/**
 * Every beacon of this seat's runtime dir: live ones returned, stale ones
 * (dead pid, or a pid reused by a program that is not hypruse) removed.
 */
export function readBeacons(env: NodeJS.ProcessEnv = process.env): LiveBeacons {
  const dir = beaconsDir(env);
  const out: LiveBeacons = { live: [], stale: [], unreadable: [] };
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const m = /^(\d+)\.json$/.exec(name);
    if (!m) continue;
    const path = join(dir, name);
    const b = readBeacon(path);
    if (b === null) continue;
    if (b === 'unreadable' || b.pid !== Number(m[1])) {
      // a torn or foreign file named by a pid: judge it by that pid
      const pid = Number(m[1]);
      if (!pidAlive(pid) || isHypruseProcess(pid) === false) {
        removeQuietly(path);
        out.stale.push(pid);
      } else out.unreadable.push(path);
      continue;
    }
    if (!pidAlive(b.pid) || isHypruseProcess(b.pid) === false) {
      removeQuietly(path);
      out.stale.push(b.pid);
      continue;
    }
    out.live.push({ ...b, path });
  }
  out.live.sort((a, b) => a.started - b.started || a.pid - b.pid);
  return out;
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    /* gone already */
  }
}

/**
 * The beacon of this process, its own file (`beacons/<pid>.json`), so a
 * server and any number of shell verbs are each visible to `hypruse stop`
 * and a status bar: written atomically (temp file + rename, writes queued in
 * order), removed when the process exits. Writing never blocks or fails an
 * action (warns once).
 */
export class BeaconWriter {
  /** Calls running now, in start order (concurrent observations run beside an action). */
  private readonly running = new Map<number, { tool: string; action: string }>();
  private nextId = 1;
  private queue: Promise<void> = Promise.resolve();
  private warned = false;
  private exitHook = false;
  private readonly started = Date.now() / 1000;
  private monitor: string | null = null;
  private last: { config: HypruseConfig; source: string } | null = null;

  constructor(readonly path: string = beaconPath()) {}

  /** The newest state not yet written: a burst of calls writes only its latest state. */
  private pending: Beacon | null = null;

  private write(b: Beacon): void {
    this.hookExit();
    const queued = this.pending !== null;
    this.pending = b;
    if (queued) return;
    this.queue = this.queue
      .then(async () => {
        const next = this.pending;
        this.pending = null;
        if (!next) return;
        // the folders are checked (ours, 0700, not links) before every write: a cleaned runtime dir is made again
        ensurePrivateDir(dirname(dirname(this.path)));
        ensurePrivateDir(dirname(this.path));
        await writeFileExclusive(this.path, `${JSON.stringify(next)}\n`);
      })
      .catch((err: Error) => {
        if (this.warned) return;
        this.warned = true;
        process.stderr.write(`hypruse warn: beacon: cannot write ${this.path} (${err.message})\n`);
      });
  }

  private hookExit(): void {
    if (this.exitHook) return;
    this.exitHook = true;
    process.once('exit', () => this.removeSync());
  }

  private beacon(config: HypruseConfig, source: string, state: Beacon['state'], tool: string, action: string): Beacon {
    this.last = { config, source };
    return {
      v: 1,
      pid: process.pid,
      started: this.started,
      state,
      tool: safeLabel(tool),
      action: safeLabel(action),
      since: Date.now() / 1000,
      mode: { readonly: config.readonly, dry_run: config.dryRun, confine: config.confine.length > 0, strict: config.strict, source },
      ...(this.monitor ? { monitor: this.monitor } : {}),
    };
  }

  /** Carry the address of the monitor page this process serves (null: none), written at once when the beacon exists. */
  setMonitor(config: HypruseConfig, source: string, url: string | null): void {
    this.monitor = url;
    if (this.running.size === 0) this.write(this.beacon(this.last?.config ?? config, this.last?.source ?? source, 'idle', '', ''));
  }

  /** Announce the session before any call (so `hypruse stop` reaches an idle server). */
  announce(config: HypruseConfig, source: string): void {
    if (this.running.size === 0) this.write(this.beacon(config, source, 'idle', '', ''));
  }

  /** A call started; returns its handle for `end`. */
  begin(config: HypruseConfig, source: string, tool: string, action: string): number {
    const id = this.nextId++;
    this.running.set(id, { tool, action });
    this.write(this.beacon(config, source, 'active', tool, action));
    return id;
  }

  /** A call ended: idle when none runs, else the latest call still running. */
  end(config: HypruseConfig, source: string, id: number): void {
    const done = this.running.get(id);
    this.running.delete(id);
    const still = [...this.running.values()].at(-1);
    if (still) this.write(this.beacon(config, source, 'active', still.tool, still.action));
    else this.write(this.beacon(config, source, 'idle', done?.tool ?? '', done?.action ?? ''));
  }

  /** Wait for queued writes (tests, shutdown). */
  flush(): Promise<void> {
    return this.queue;
  }

  /** Remove the beacon if it is ours (synchronous: safe in an exit handler). */
  removeSync(): void {
    const b = readBeacon(this.path);
    if (b && b !== 'unreadable' && b.pid === process.pid) removeQuietly(this.path);
  }
}

const writers = new Map<string, BeaconWriter>();

/** The beacon writer of this process for the runtime dir of `env`. */
export function beaconWriter(env: NodeJS.ProcessEnv = process.env): BeaconWriter {
  const p = beaconPath(env);
  let w = writers.get(p);
  if (!w) {
    w = new BeaconWriter(p);
    writers.set(p, w);
  }
  return w;
}

function actionOf(tool: string, args: Record<string, unknown>): string {
  const sub = args.action ?? args.event;
  return typeof sub === 'string' && sub ? `${tool}:${sub}` : tool;
}

/**
 * Beacon layer: marks the desktop "agent active" while a call runs and idle
 * after. Runs just inside the journal (TRUST_ORDER has no beacon entry, so it
 * takes journal + 1). Nested calls are covered by their parent.
 */
export function createBeaconLayer(writer: (env: NodeJS.ProcessEnv) => BeaconWriter = (env) => beaconWriter(env)): TrustLayer {
  return {
    name: 'beacon',
    order: TRUST_ORDER.beacon,
    appliesTo: (call) => call.parent === null,
    async handle(call, next) {
      const w = writer(call.env);
      const action = actionOf(call.tool, call.rawArgs);
      const id = w.begin(call.config, call.source, call.tool, action);
      try {
        return await next();
      } finally {
        w.end(call.config, call.source, id);
      }
    },
  };
}

export const beaconLayer: TrustLayer = createBeaconLayer();
