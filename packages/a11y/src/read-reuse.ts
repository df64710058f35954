/**
 * When a window's tree read may be answered again without reading it: only while the application
 * provably did not change. A read is kept with the change counts it started under; any AT-SPI
 * signal from its application, any input (or element operation) this process sent, a lost
 * connection to the bus (signals may have been missed) or its age makes it unusable.
 *
 * Pure bookkeeping: the backend feeds it signals and input, and checks the application is still
 * there (one round trip, which also delivers every signal the application sent before it) before
 * trusting a hit.
 */
export interface ReuseTicket {
  readonly app: string;
  readonly appGen: number;
  readonly inputGen: number;
  readonly linkGen: number;
  /** The application's signals were already reaching us when the read began. */
  readonly watched: boolean;
  readonly at: number;
}

interface Kept<T> {
  ticket: ReuseTicket;
  value: T;
}

export interface ReadReuseOptions {
  /** Reads older than this are never reused (default 2000 ms). */
  maxAgeMs?: number;
  now?: () => number;
}

export class ReadReuse<T> {
  private readonly maxAgeMs: number;
  private readonly now: () => number;
  private readonly appGens = new Map<string, number>();
  private inputGen = 0;
  private linkGen = 0;
  /** Applications whose change signals reach us on the current connection. */
  private readonly watched = new Set<string>();
  private readonly kept = new Map<string, Kept<T>>();

  constructor(opts: ReadReuseOptions = {}) {
    this.maxAgeMs = opts.maxAgeMs ?? 2000;
    this.now = opts.now ?? (() => performance.now());
  }

  /** The counts a read of `app`'s window starts under (take it before the first call of the read). */
  begin(app: string): ReuseTicket {
    return { app, appGen: this.appGens.get(app) ?? 0, inputGen: this.inputGen, linkGen: this.linkGen, watched: this.watched.has(app), at: this.now() };
  }

  /** Whether nothing that invalidates a read happened since `t` was taken (and it is young enough). */
  current(t: ReuseTicket): boolean {
    return (
      t.watched &&
      t.appGen === (this.appGens.get(t.app) ?? 0) &&
      t.inputGen === this.inputGen &&
      t.linkGen === this.linkGen &&
      this.now() - t.at < this.maxAgeMs
    );
  }

  /** Keep a finished read under `key`, unless something changed while it ran. */
  store(key: string, t: ReuseTicket, value: T): boolean {
    if (!this.current(t)) {
      this.kept.delete(key);
      return false;
    }
    this.kept.set(key, { ticket: t, value });
    return true;
  }

  /** A kept read still valid now, with the application it belongs to (to check it is still there). */
  lookup(key: string): { app: string; value: T; ticket: ReuseTicket } | undefined {
    const k = this.kept.get(key);
    if (!k) return undefined;
    if (!this.current(k.ticket)) {
      this.kept.delete(key);
      return undefined;
    }
    return { app: k.ticket.app, value: k.value, ticket: k.ticket };
  }

  /** The application's change signals now reach us (its events registered, a match rule on its name). */
  watching(app: string): void {
    this.watched.add(app);
  }

  /**
   * The application's signals stop reaching us: no read of it taken so far is reused (not even one
   * still in flight), and none begun from now until it is watched again.
   */
  unwatched(app: string): void {
    this.watched.delete(app);
    this.changed(app);
    for (const [key, k] of this.kept) if (k.ticket.app === app) this.kept.delete(key);
  }

  isWatched(app: string): boolean {
    return this.watched.has(app);
  }

  /** A signal from `app`: it changed (or may have). */
  changed(app: string): void {
    this.appGens.set(app, (this.appGens.get(app) ?? 0) + 1);
  }

  /** Input or an element operation was sent: no read taken before it is reused. */
  input(): void {
    this.inputGen++;
    this.kept.clear();
  }

  /** The connection the signals come on was lost or replaced: nothing is watched any more. */
  lost(): void {
    this.linkGen++;
    this.watched.clear();
    this.kept.clear();
  }
}
