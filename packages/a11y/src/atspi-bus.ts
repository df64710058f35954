import { HypruseError, type Logger } from '@hypruse/core';
import type { Message as DbusMessage, MessageBus } from 'dbus-next';
import type { Deadline } from './deadline.js';
import { encodeMethodCall } from './dbus-encode.js';

type DbusModule = typeof import('dbus-next');

/** One method call on the accessibility bus (low-level: no proxy introspection). */
export interface CallSpec {
  dest: string;
  path: string;
  iface: string;
  member: string;
  signature?: string;
  body?: unknown[];
}

/** D-Bus error names that mean the object or its application is gone. */
const GONE_ERRORS = new Set([
  'org.freedesktop.DBus.Error.ServiceUnknown',
  'org.freedesktop.DBus.Error.NameHasNoOwner',
  'org.freedesktop.DBus.Error.UnknownObject',
  // also what the bus answers when the peer exits with our call pending
  'org.freedesktop.DBus.Error.NoReply',
]);

/** The typed error of a failed call; `data.dbusError` keeps the D-Bus error name. */
export function isGoneError(err: unknown): boolean {
  return err instanceof HypruseError && err.code === 'error.a11y' && GONE_ERRORS.has(String(err.data?.dbusError ?? ''));
}

/** True when the object path is not served at all (an application without that object). */
export function isUnknownObjectError(err: unknown): boolean {
  return err instanceof HypruseError && err.code === 'error.a11y' && String(err.data?.dbusError ?? '') === 'org.freedesktop.DBus.Error.UnknownObject';
}

/** True when the call failed because the object lacks that interface or method (not an app failure). */
export function isMissingInterfaceError(err: unknown): boolean {
  if (!(err instanceof HypruseError) || err.code !== 'error.a11y') return false;
  const name = String(err.data?.dbusError ?? '');
  return (
    name === 'org.freedesktop.DBus.Error.UnknownMethod' ||
    name === 'org.freedesktop.DBus.Error.UnknownInterface' ||
    name === 'org.freedesktop.DBus.Error.UnknownProperty' ||
    name === 'org.freedesktop.DBus.Error.InvalidArgs' ||
    name === 'org.freedesktop.DBus.Error.NotSupported'
  );
}

/** A signal received on the accessibility bus. */
export interface BusSignal {
  sender: string;
  path: string;
  iface: string;
  member: string;
  body: unknown[];
}

/** dbus-next's MessageType.SIGNAL. */
const SIGNAL_TYPE = 4;

interface Link {
  bus: MessageBus;
  /** The socket, corked while one tick's calls are written (one writev instead of a syscall per message). */
  stream?: { cork(): void; uncork(): void; writableCorked?: number };
  corked: boolean;
  address: string;
  dead: boolean;
  /** Rejects when the connection errors or closes (raced only while connecting). */
  closed: Promise<never>;
  /** Fail callbacks of the calls in flight, told when the connection dies. */
  waiters: Set<(err: unknown) => void>;
}

let dbusModule: Promise<DbusModule> | undefined;
function loadDbus(): Promise<DbusModule> {
  dbusModule ??= import('dbus-next').then((m) => ((m as unknown as { default?: DbusModule }).default ?? m) as DbusModule);
  return dbusModule;
}

/**
 * The two connections of the accessibility backend: the session bus (only to
 * ask `org.a11y.Bus` for the accessibility bus address) and the accessibility
 * bus itself. Both are kept open and re-created when they die.
 */
export class AtspiBus {
  private session: Promise<Link> | undefined;
  private a11y: Promise<Link> | undefined;
  private dbus: DbusModule | undefined;
  /** How the accessibility bus address was found (for describe()). */
  addressSource = '';
  /** Method calls sent on the accessibility bus so far (a debug counter: tests and benchmarks count round trips). */
  calls = 0;
  /** Signals received on the accessibility bus so far (a debug counter: tests see what still reaches us). */
  signals = 0;
  private readonly signalListeners = new Set<(signal: BusSignal) => void>();
  private readonly lostListeners = new Set<() => void>();

  constructor(private readonly env: NodeJS.ProcessEnv, private readonly logger?: Logger) {}

  /** The session bus address: DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus. */
  sessionAddress(): string {
    const a = this.env.DBUS_SESSION_BUS_ADDRESS;
    if (a) return a;
    if (this.env.XDG_RUNTIME_DIR) return `unix:path=${this.env.XDG_RUNTIME_DIR}/bus`;
    throw new HypruseError('error.a11y', 'no D-Bus session bus: neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set', {
      hint: 'Run hypruse inside the desktop session, or pass DBUS_SESSION_BUS_ADDRESS (and XDG_RUNTIME_DIR) in its environment.',
    });
  }

  /** Call a method on the accessibility bus; returns the reply body. */
  async call(spec: CallSpec, deadline: Deadline): Promise<unknown[]> {
    this.calls++;
    const link = await this.a11yLink(deadline);
    return this.callOn(link, spec, deadline);
  }

  /**
   * Told every signal arriving on the accessibility bus (only what a match rule lets through
   * arrives, see addMatch). Returns the unsubscribe function.
   */
  onSignal(listener: (signal: BusSignal) => void): () => void {
    this.signalListeners.add(listener);
    return () => this.signalListeners.delete(listener);
  }

  /** Told when the accessibility bus connection closes or is replaced (its match rules are gone with it). */
  onLost(listener: () => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  /** Remove a match rule added with addMatch (one copy of it: the bus counts the same rule added twice). */
  async removeMatch(rule: string, deadline: Deadline): Promise<void> {
    await this.call({ dest: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', iface: 'org.freedesktop.DBus', member: 'RemoveMatch', signature: 's', body: [rule] }, deadline);
  }

  /** Add a match rule on the accessibility bus connection (until removeMatch, or the connection ends). */
  async addMatch(rule: string, deadline: Deadline): Promise<void> {
    await this.call({ dest: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', iface: 'org.freedesktop.DBus', member: 'AddMatch', signature: 's', body: [rule] }, deadline);
  }

  /**
   * The session's accessibility switches (`org.a11y.Status` on `org.a11y.Bus`): `IsEnabled` is
   * what toolkits read at start to decide whether to load their AT-SPI bridge (Chromium, Qt);
   * `ScreenReaderEnabled` says a screen reader runs.
   */
  async a11yStatus(deadline: Deadline): Promise<{ isEnabled: boolean; screenReaderEnabled: boolean }> {
    const session = await this.sessionLink(deadline);
    const get = async (prop: string) => {
      const b = await this.callOn(session, { dest: 'org.a11y.Bus', path: '/org/a11y/bus', iface: 'org.freedesktop.DBus.Properties', member: 'Get', signature: 'ss', body: ['org.a11y.Status', prop] }, deadline);
      return (b[0] as { value?: unknown } | undefined)?.value === true;
    };
    // a bus whose org.a11y.Status lacks a property answers "No such property" (seen for ScreenReaderEnabled
    // on Debian sid's at-spi2-core): a switch it does not have reads as off
    const [isEnabled, screenReaderEnabled] = await Promise.all([get('IsEnabled').catch(() => false), get('ScreenReaderEnabled').catch(() => false)]);
    return { isEnabled, screenReaderEnabled };
  }

  /** Set `org.a11y.Status.IsEnabled` on the session (what a screen reader or the desktop's accessibility setting does). */
  async setA11yEnabled(on: boolean, deadline: Deadline): Promise<void> {
    const session = await this.sessionLink(deadline);
    const dbus = this.dbus as DbusModule;
    await this.callOn(
      session,
      { dest: 'org.a11y.Bus', path: '/org/a11y/bus', iface: 'org.freedesktop.DBus.Properties', member: 'Set', signature: 'ssv', body: ['org.a11y.Status', 'IsEnabled', new dbus.Variant('b', on)] },
      deadline,
    );
  }

  /** The accessibility bus address in use (connecting if needed). */
  async address(deadline: Deadline): Promise<string> {
    const link = await this.a11yLink(deadline);
    return link.address;
  }

  async dispose(): Promise<void> {
    const links = [this.session, this.a11y];
    this.session = undefined;
    this.a11y = undefined;
    for (const p of links) {
      const link = await p?.catch(() => undefined);
      if (link && !link.dead) {
        link.dead = true;
        try {
          link.bus.disconnect();
        } catch {
          // already closed
        }
      }
    }
  }

  private a11yLink(deadline: Deadline): Promise<Link> {
    const current = this.a11y;
    if (current) {
      return current.then((l) => {
        if (!l.dead) return l;
        if (this.a11y === current) this.a11y = undefined;
        return this.a11yLink(deadline);
      });
    }
    const p = this.openA11y(deadline).then((link) => this.watchLink(link));
    this.a11y = p;
    p.catch(() => {
      if (this.a11y === p) this.a11y = undefined;
    });
    return p;
  }

  /** Signals of a new accessibility bus connection go to the listeners; its end tells them it is lost. */
  private watchLink(link: Link): Link {
    for (const f of [...this.lostListeners]) f();
    link.bus.on('message', (m: DbusMessage) => {
      if (m.type !== SIGNAL_TYPE || !m.sender) return;
      this.signals++;
      const sig: BusSignal = { sender: m.sender, path: m.path ?? '', iface: m.interface ?? '', member: m.member ?? '', body: (m.body ?? []) as unknown[] };
      for (const f of [...this.signalListeners]) f(sig);
    });
    link.closed.catch(() => {
      for (const f of [...this.lostListeners]) f();
    });
    return link;
  }

  private async openA11y(deadline: Deadline): Promise<Link> {
    const override = this.env.AT_SPI_BUS_ADDRESS;
    if (override) {
      this.addressSource = 'AT_SPI_BUS_ADDRESS';
      return this.open(override, 'the accessibility bus', deadline);
    }
    let sessionErr: unknown;
    try {
      const session = await this.sessionLink(deadline);
      const body = await this.callOn(
        session,
        { dest: 'org.a11y.Bus', path: '/org/a11y/bus', iface: 'org.a11y.Bus', member: 'GetAddress' },
        deadline,
      );
      const address = String(body[0] ?? '');
      if (!address) {
        throw new HypruseError('error.a11y', 'org.a11y.Bus returned no accessibility bus address', {
          hint: 'Start the accessibility bus (at-spi-bus-launcher) in the session; apps then register on it.',
        });
      }
      this.addressSource = 'org.a11y.Bus.GetAddress';
      return await this.open(address, 'the accessibility bus', deadline);
    } catch (err) {
      if (deadline.fired) throw err;
      sessionErr = err;
    }
    // The session bus may refuse us (D-Bus authenticates by uid) while the
    // accessibility bus, which allows root, listens at its well-known path.
    const dir = this.env.XDG_RUNTIME_DIR;
    if (dir) {
      try {
        const link = await this.open(`unix:path=${dir}/at-spi/bus`, 'the accessibility bus', deadline);
        this.addressSource = '$XDG_RUNTIME_DIR/at-spi/bus';
        this.logger?.debug(`a11y: session bus unusable (${(sessionErr as Error).message}); using ${dir}/at-spi/bus`);
        return link;
      } catch (err) {
        if (deadline.fired) throw err;
      }
    }
    throw sessionErr;
  }

  private sessionLink(deadline: Deadline): Promise<Link> {
    const current = this.session;
    if (current) {
      return current.then((l) => {
        if (!l.dead) return l;
        if (this.session === current) this.session = undefined;
        return this.sessionLink(deadline);
      });
    }
    const p = this.open(this.sessionAddress(), 'the D-Bus session bus', deadline);
    this.session = p;
    p.catch(() => {
      if (this.session === p) this.session = undefined;
    });
    return p;
  }

  private async open(address: string, label: string, deadline: Deadline): Promise<Link> {
    const dbus = (this.dbus ??= await loadDbus());
    let bus: MessageBus;
    try {
      bus = dbus.sessionBus({ busAddress: address });
    } catch (err) {
      throw new HypruseError('error.a11y', `cannot connect to ${label} at ${address}: ${(err as Error).message}`, {
        hint: 'Check that the desktop session is running and the address is right.',
        cause: err,
      });
    }
    let markClosed!: (e: unknown) => void;
    const link: Link = {
      bus,
      address,
      dead: false,
      corked: false,
      waiters: new Set(),
      closed: new Promise<never>((_, rej) => {
        markClosed = rej;
      }),
    };
    link.closed.catch(() => undefined);
    const die = (why: string) => {
      if (link.dead) return;
      link.dead = true;
      this.logger?.debug(`a11y: connection to ${label} closed (${why})`);
      const err = new HypruseError('error.a11y', `the connection to ${label} closed: ${why}`, {
        hint: 'The bus restarted or refused hypruse (D-Bus checks the user id: run hypruse as the desktop user).',
        data: { connection: 'closed' },
      });
      markClosed(err);
      for (const w of [...link.waiters]) w(err);
      link.waiters.clear();
      try {
        bus.disconnect();
      } catch {
        // stream already gone
      }
    };
    bus.on('error', (err: unknown) => die(err instanceof Error ? err.message : String(err)));
    const conn = (bus as unknown as { _connection?: { on(ev: string, f: () => void): void; stream?: { on(ev: string, f: () => void): void } } })
      ._connection;
    link.stream = conn?.stream as Link['stream'];
    conn?.on('end', () => die('end of stream'));
    conn?.stream?.on('close', () => die('socket closed'));

    const connected = new Promise<void>((resolve) => bus.once('connect', () => resolve()));
    try {
      await deadline.race(Promise.race([connected, link.closed]));
    } catch (err) {
      die('connect failed');
      if (err instanceof HypruseError && err.code === 'error.a11y' && !deadline.fired) {
        const why = err.message.replace(/^.*closed: /, '');
        throw new HypruseError('error.a11y', `cannot connect to ${label} at ${address}: ${why}`, {
          hint: /ENOENT|ECONNREFUSED/.test(why)
            ? 'No bus listens there: run hypruse inside the desktop session, or pass its DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR.'
            : 'The bus refused the connection; D-Bus authenticates by user id: run hypruse as the desktop user.',
          cause: err,
        });
      }
      throw err;
    }
    return link;
  }

  private callOn(link: Link, spec: CallSpec, deadline: Deadline): Promise<unknown[]> {
    if (deadline.fired) return Promise.reject(deadline.error);
    if (link.dead) return Promise.reject(new HypruseError('error.a11y', 'the accessibility bus connection is closed', { data: { connection: 'closed' } }));
    const dbus = this.dbus as DbusModule;
    const serial = link.bus.newSerial();
    if (link.stream && !link.corked) {
      link.corked = true;
      link.stream.cork();
      process.nextTick(() => {
        link.corked = false;
        link.stream?.uncork();
      });
    }
    return new Promise<unknown[]>((resolve, reject) => {
      let done = false;
      const finish = () => {
        done = true;
        link.waiters.delete(fail);
        deadline.waiters.delete(fail);
      };
      // Deadline fired or connection died: answer now and drop the reply handler, so a
      // hung peer does not pin it until the bus's reply timeout (300 s on the a11y bus).
      const fail = (err: unknown) => {
        if (done) return;
        finish();
        const handlers = (link.bus as unknown as { _methodReturnHandlers?: Record<number, unknown> })._methodReturnHandlers;
        if (handlers) delete handlers[serial];
        reject(err);
      };
      link.waiters.add(fail);
      deadline.waiters.add(fail);
      this.send(link, dbus, serial, spec).then(
        (reply) => {
          if (done) return;
          finish();
          deadline.progress();
          resolve((reply?.body ?? []) as unknown[]);
        },
        (err: unknown) => {
          if (done) return;
          finish();
          reject(toA11yError(err, spec));
        },
      );
    });
  }

  /**
   * Send one call and resolve with its reply: encoded here and written to the socket (with the
   * reply handler in dbus-next's table) where encodeMethodCall handles the signature, else by
   * dbus-next's own marshaller.
   */
  private send(link: Link, dbus: DbusModule, serial: number, spec: CallSpec): Promise<DbusMessage | null> {
    const wire = encodeMethodCall(serial, { destination: spec.dest, path: spec.path, iface: spec.iface, member: spec.member, signature: spec.signature, body: spec.body });
    const handlers = (link.bus as unknown as { _methodReturnHandlers?: Record<number, (reply: DbusMessage) => void> })._methodReturnHandlers;
    const stream = link.stream as (Link['stream'] & { writable?: boolean; write?(b: Buffer): boolean }) | undefined;
    if (wire && handlers && stream?.write && stream.writable) {
      return new Promise<DbusMessage | null>((resolve, reject) => {
        handlers[serial] = (reply) => {
          if ((reply.type as number) === ERROR_TYPE) reject(new dbus.DBusError(reply.errorName ?? '', String(reply.body?.[0] ?? ''), reply));
          else resolve(reply);
        };
        stream.write?.(wire);
      });
    }
    const msg: DbusMessage = new dbus.Message({
      destination: spec.dest,
      path: spec.path,
      interface: spec.iface,
      member: spec.member,
      signature: spec.signature ?? '',
      body: spec.body ?? [],
    });
    msg.serial = serial;
    return link.bus.call(msg);
  }
}

/** dbus-next's MessageType.ERROR. */
const ERROR_TYPE = 3;

function toA11yError(err: unknown, spec: CallSpec): unknown {
  if (err instanceof HypruseError) return err;
  const e = err as { type?: string; text?: string; message?: string };
  if (typeof e?.type === 'string') {
    return new HypruseError('error.a11y', `${spec.iface}.${spec.member} on ${spec.dest}${spec.path} failed: ${e.text ?? e.type}`, {
      data: { dbusError: e.type },
      cause: err,
    });
  }
  return new HypruseError('error.a11y', `${spec.iface}.${spec.member} on ${spec.dest} failed: ${e?.message ?? String(err)}`, { cause: err });
}
