/**
 * Which applications' AT-SPI change signals this process receives, and only while a reuse of one
 * of their reads is possible. Listening to an application costs a match rule on its bus name (the
 * bus then routes every signal it emits to us, ~165/s from an animating GTK 3 window) and the
 * change events registered with the registry (which makes every bridge on the bus emit them), so
 * both are taken at a read and given back once no read of the application is in flight and its
 * last one is too old to be reused: the match rule removed, and the events deregistered when no
 * application is listened to any more (registered again at the next read).
 *
 * The bus calls go through `ListenBus`; the reuse bookkeeping is told through `hooks`: `listening`
 * once the application's signals provably reach us, `unlistened` the moment it stops (synchronously,
 * before the match rule is even removed, so no read taken while listening is trusted afterwards).
 */
export interface ListenBus {
  addMatch(rule: string): Promise<void>;
  removeMatch(rule: string): Promise<void>;
  registerEvents(): Promise<void>;
  deregisterEvents(): Promise<void>;
}

export interface ListenHooks {
  listening(app: string): void;
  unlistened(app: string): void;
  /** A failed call while giving back (nothing to do about it: logged). */
  failed?(what: string, err: unknown): void;
}

export interface ChangeListenerOptions {
  /** How long after a read began it may still be reused (the listener stays that long). */
  keepMs: number;
  now?: () => number;
}

export function matchRule(app: string): string {
  return `type='signal',sender='${app}'`;
}

interface Listened {
  /** Resolves once the match rule and the events are in place. */
  ready: Promise<void>;
  /** Reads of the application in flight. */
  inFlight: number;
  /** When the last read of the application began. */
  lastBegin: number;
  timer?: NodeJS.Timeout;
}

export class ChangeListener {
  private readonly keepMs: number;
  private readonly now: () => number;
  private readonly apps = new Map<string, Listened>();
  private events: Promise<void> | undefined;
  /** A deregistration on its way: the next registration is sent after it (the registry drops every copy). */
  private deregistering: Promise<void> = Promise.resolve();

  constructor(private readonly bus: ListenBus, private readonly hooks: ListenHooks, opts: ChangeListenerOptions) {
    this.keepMs = opts.keepMs;
    this.now = opts.now ?? (() => performance.now());
  }

  /** The applications listened to (or being set up). */
  get listened(): string[] {
    return [...this.apps.keys()];
  }

  /** Whether the change events are registered (or being registered) with the registry. */
  get registered(): boolean {
    return this.events !== undefined;
  }

  /**
   * A read of `app` begins: listen to it (if not already) and keep listening until `end()` is
   * called and the read is too old to be reused. Await `ready` before taking the read's counts.
   */
  begin(app: string): { ready: Promise<void>; end: () => void } {
    let l = this.apps.get(app);
    if (!l) {
      this.events ??= this.guard(this.deregistering.then(() => this.bus.registerEvents()));
      const events = this.events;
      const entry: Listened = { ready: Promise.resolve(), inFlight: 0, lastBegin: this.now() };
      entry.ready = Promise.all([events, this.bus.addMatch(matchRule(app))]).then(() => {
        if (this.apps.get(app) === entry) this.hooks.listening(app);
      });
      entry.ready.catch(() => {
        // not listening after all: the next read tries again
        if (this.apps.get(app) === entry) this.drop(app, entry, false);
        if (this.events === events && this.apps.size === 0) this.events = undefined;
      });
      this.apps.set(app, entry);
      l = entry;
    }
    const entry = l;
    entry.inFlight++;
    entry.lastBegin = this.now();
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = undefined;
    let ended = false;
    return {
      ready: entry.ready,
      end: () => {
        if (ended) return;
        ended = true;
        entry.inFlight--;
        if (this.apps.get(app) === entry) this.check(app, entry);
      },
    };
  }

  /** The connection was lost: its match rules and registrations are gone with it. */
  lost(): void {
    for (const [app, l] of this.apps) {
      if (l.timer) clearTimeout(l.timer);
      this.apps.delete(app);
      this.hooks.unlistened(app);
    }
    this.events = undefined;
  }

  /** Stop every timer (the process is done with the bus). */
  dispose(): void {
    for (const l of this.apps.values()) if (l.timer) clearTimeout(l.timer);
  }

  private check(app: string, l: Listened): void {
    if (l.inFlight > 0) return;
    const left = l.lastBegin + this.keepMs - this.now();
    if (left > 0) {
      if (l.timer) clearTimeout(l.timer);
      l.timer = setTimeout(() => {
        l.timer = undefined;
        if (this.apps.get(app) === l) this.check(app, l);
      }, Math.ceil(left) + 1);
      l.timer.unref?.();
      return;
    }
    this.drop(app, l, true);
  }

  private drop(app: string, l: Listened, giveBack: boolean): void {
    if (l.timer) clearTimeout(l.timer);
    this.apps.delete(app);
    this.hooks.unlistened(app);
    if (giveBack) {
      // the rule may still be on its way in: removing it is sent after adding it, on one connection
      void l.ready.then(
        () => this.bus.removeMatch(matchRule(app)).catch((err: unknown) => this.hooks.failed?.(`removing the match rule of ${app}`, err)),
        () => undefined,
      );
    }
    if (this.apps.size === 0 && this.events) {
      const events = this.events;
      this.events = undefined;
      if (giveBack) {
        this.deregistering = events.then(
          () => this.bus.deregisterEvents().catch((err: unknown) => this.hooks.failed?.('deregistering the change events', err)),
          () => undefined,
        );
      }
    }
  }

  private guard(p: Promise<void>): Promise<void> {
    p.catch(() => undefined);
    return p;
  }
}
