/**
 * A minimal Wayland client connection: object ids, the registry, the
 * `wl_display.sync` barrier, `wl_display.error` and `delete_id`. Requests are
 * written in order; every round trip has a timeout and honours an AbortSignal.
 */
import { CancelledError, HypruseError } from '@hypruse/core';
import { ArgReader, MessageSplitter, arg, encodeMessage, type WireArg } from './codec.js';
import { connectTransport, type WireTransport } from './transport.js';

export const DISPLAY_ID = 1;

export interface GlobalInfo {
  name: number;
  interface: string;
  version: number;
}

export interface ConnectOptions {
  /** Socket path (`$XDG_RUNTIME_DIR/$WAYLAND_DISPLAY`, or WAYLAND_DISPLAY when absolute). */
  path: string;
  /** Ask for an fd-capable transport (sendmsg through koffi); falls back to `net` when koffi cannot load. */
  wantFds: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
}

type EventHandler = (opcode: number, args: ArgReader) => void;

/** `$XDG_RUNTIME_DIR/$WAYLAND_DISPLAY` (display default `wayland-0`); absolute WAYLAND_DISPLAY accepted. */
export function waylandSocketPath(env: NodeJS.ProcessEnv, runtimeDir: string | null): string {
  const display = env.WAYLAND_DISPLAY || 'wayland-0';
  if (display.startsWith('/')) return display;
  if (!runtimeDir) {
    throw new HypruseError('error.wayland', 'cannot find the Wayland socket: XDG_RUNTIME_DIR is not set', {
      hint: 'Set XDG_RUNTIME_DIR (usually /run/user/<uid>) and WAYLAND_DISPLAY, or give WAYLAND_DISPLAY as an absolute path.',
    });
  }
  return `${runtimeDir}/${display}`;
}

export class WaylandConnection {
  /** One global per interface: the first the registry announced (of several seats, the default one). */
  readonly globals = new Map<string, GlobalInfo>();
  /** Every global the registry announced and has not removed, in announce order. */
  announced: GlobalInfo[] = [];
  private readonly handlers = new Map<number, EventHandler>();
  private readonly interfaces = new Map<number, string>();
  private readonly freeIds: number[] = [];
  private nextId = 2;
  private readonly splitter = new MessageSplitter();
  private readonly failWaiters = new Set<(err: HypruseError) => void>();
  private fatal: HypruseError | null = null;
  private registryId = 0;
  readonly timeoutMs: number;

  private constructor(private readonly transport: WireTransport, readonly path: string, timeoutMs: number) {
    this.timeoutMs = timeoutMs;
    this.interfaces.set(DISPLAY_ID, 'wl_display');
    this.handlers.set(DISPLAY_ID, (opcode, a) => this.onDisplayEvent(opcode, a));
    transport.onData((chunk) => this.onData(chunk));
    transport.onClose((err) =>
      this.fail(
        new HypruseError('error.wayland', `the Wayland connection closed${err ? `: ${err.message}` : ''}`, {
          hint: 'The compositor went away or dropped this client; the next call reconnects.',
          cause: err,
        }),
      ),
    );
  }

  /** Connect, read the registry (one sync round trip), and return the ready connection. */
  static async connect(opts: ConnectOptions): Promise<WaylandConnection> {
    const timeoutMs = opts.timeoutMs ?? 3000;
    const transport = await connectTransport(opts.path, { wantFds: opts.wantFds, timeoutMs, signal: opts.signal });
    const conn = new WaylandConnection(transport, opts.path, timeoutMs);
    try {
      conn.registryId = conn.allocId('wl_registry', (opcode, a) => {
        if (opcode === 0) {
          const name = a.uint();
          const iface = a.string() ?? '';
          const version = a.uint();
          conn.announced.push({ name, interface: iface, version });
          // the first announced of an interface is the one bound: with several seats (sway's `seat NAME`
          // adds a wl_seat of that name) the first is the compositor's default seat, the person's
          if (!conn.globals.has(iface)) conn.globals.set(iface, { name, interface: iface, version });
        } else if (opcode === 1) {
          const name = a.uint();
          conn.announced = conn.announced.filter((g) => g.name !== name);
          for (const [k, g] of conn.globals) {
            if (g.name !== name) continue;
            const next = conn.announced.find((x) => x.interface === k);
            if (next) conn.globals.set(k, next);
            else conn.globals.delete(k);
          }
        }
      });
      conn.send(DISPLAY_ID, 1, [arg.newId(conn.registryId)]);
      await conn.roundtrip(opts.signal);
      return conn;
    } catch (err) {
      conn.close();
      throw err;
    }
  }

  get fdPassing(): boolean {
    return this.transport.fdPassing;
  }

  get transportKind(): 'sendmsg' | 'net' {
    return this.transport.kind;
  }

  /** Null while usable; the error that ended the connection otherwise. */
  get failure(): HypruseError | null {
    return this.fatal;
  }

  allocId(iface: string, handler?: EventHandler): number {
    const id = this.freeIds.shift() ?? this.nextId++;
    this.interfaces.set(id, iface);
    if (handler) this.handlers.set(id, handler);
    return id;
  }

  /** Write one request. Throws the connection's failure if it is already dead. */
  send(objectId: number, opcode: number, args: WireArg[] = [], fds?: number[]): Promise<void> {
    if (this.fatal) throw this.fatal;
    const written = this.transport.write(encodeMessage(objectId, opcode, args), fds);
    // A write failure also closes the transport, which fails the waiters; keep it from being unhandled.
    written.catch(() => {});
    return written;
  }

  /** Write one request and wait until it left the socket (bounded by the timeout). */
  async sendAndFlush(objectId: number, opcode: number, args: WireArg[], fds?: number[]): Promise<void> {
    const written = this.send(objectId, opcode, args, fds);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new HypruseError('error.wayland', `could not write to the Wayland socket within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    try {
      await Promise.race([written, timeout]);
    } catch (err) {
      throw err instanceof HypruseError ? err : new HypruseError('error.wayland', `writing to the Wayland socket failed: ${(err as Error).message}`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  /** Bind a global advertised by the registry at min(advertised, wanted) version. */
  bind(iface: string, wanted: number, handler?: EventHandler): { id: number; version: number } {
    const g = this.globals.get(iface);
    if (!g) throw new HypruseError('error.wayland', `the compositor does not advertise ${iface}`);
    const version = Math.min(g.version, wanted);
    const id = this.allocId(iface, handler);
    this.send(this.registryId, 0, [arg.uint(g.name), arg.string(iface), arg.uint(version), arg.newId(id)]);
    return { id, version };
  }

  /**
   * Bind global `name` through a registry of the caller's own (needed where an
   * interface is advertised more than once, as wl_output is): the one request
   * every client here sends for that.
   */
  bindName(registry: number, name: number, iface: string, version: number, handler?: EventHandler): number {
    const id = this.allocId(iface, handler);
    this.send(registry, 0, [arg.uint(name), arg.string(iface), arg.uint(version), arg.newId(id)]);
    return id;
  }

  /** Listen to an object the compositor created (a `new_id` in an event, such as a foreign toplevel handle). */
  adopt(id: number, iface: string, handler: EventHandler): void {
    this.interfaces.set(id, iface);
    this.handlers.set(id, handler);
  }

  /** Forget a client-destroyed object locally (the server confirms with delete_id). */
  forget(id: number): void {
    this.handlers.delete(id);
  }

  /** `wl_display.sync` barrier: resolves once the compositor processed everything sent so far. */
  roundtrip(signal?: AbortSignal, timeoutMs = this.timeoutMs): Promise<void> {
    if (this.fatal) return Promise.reject(this.fatal);
    if (signal?.aborted) return Promise.reject(new CancelledError());
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.failWaiters.delete(onFail);
        signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const onFail = (err: HypruseError) => settle(() => reject(err));
      const onAbort = () => settle(() => reject(new CancelledError()));
      const callback = this.allocId('wl_callback', (opcode) => {
        if (opcode === 0) settle(resolve);
      });
      const timer = setTimeout(() => {
        settle(() =>
          reject(
            new HypruseError('error.wayland', `the compositor did not answer wl_display.sync within ${timeoutMs} ms`, {
              hint: 'The compositor is busy or hung; try again, or check that the session is alive.',
            }),
          ),
        );
      }, timeoutMs);
      this.failWaiters.add(onFail);
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        this.send(DISPLAY_ID, 0, [arg.newId(callback)]);
      } catch (err) {
        settle(() => reject(err));
      }
    });
  }

  close(): void {
    this.fail(new HypruseError('error.wayland', 'the Wayland connection was closed by hypruse'));
    this.transport.destroy();
  }

  /** Resolves with the error that ended the connection (at once when it already ended). */
  whenFailed(): Promise<HypruseError> {
    if (this.fatal) return Promise.resolve(this.fatal);
    return new Promise((resolve) => this.failWaiters.add(resolve));
  }

  private onData(chunk: Buffer): void {
    let messages;
    try {
      messages = this.splitter.push(chunk);
    } catch (err) {
      this.fail(new HypruseError('error.wayland', `malformed data from the compositor: ${(err as Error).message}`));
      this.transport.destroy();
      return;
    }
    for (const m of messages) {
      const h = this.handlers.get(m.objectId);
      if (!h) continue; // events for objects we never listen to (or already destroyed)
      try {
        h(m.opcode, new ArgReader(m.body));
      } catch (err) {
        this.fail(new HypruseError('error.wayland', `malformed event for object ${m.objectId}: ${(err as Error).message}`));
      }
    }
  }

  private onDisplayEvent(opcode: number, a: ArgReader): void {
    if (opcode === 0) {
      const objectId = a.object();
      const code = a.uint();
      const message = a.string() ?? '';
      const iface = this.interfaces.get(objectId) ?? 'unknown object';
      this.fail(
        new HypruseError('error.wayland', `the compositor reported a protocol error on ${iface}#${objectId} (code ${code}): ${message}`, {
          hint: 'The connection is closed; the next call reconnects. A repeated error is a bug in hypruse or the compositor.',
          data: { object: objectId, interface: iface, code, message },
        }),
      );
      this.transport.destroy();
    } else if (opcode === 1) {
      const id = a.uint();
      this.handlers.delete(id);
      this.interfaces.delete(id);
      this.freeIds.push(id);
    }
  }

  private fail(err: HypruseError): void {
    if (this.fatal) return;
    this.fatal = err;
    for (const w of [...this.failWaiters]) w(err);
  }
}
