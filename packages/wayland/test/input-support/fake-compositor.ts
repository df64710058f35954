// A test-local Wayland "compositor" on a temporary Unix socket: advertises
// chosen globals, answers wl_display.sync (unless muted), records every
// request with the fds that came with it, and can answer a request with
// wl_display.error. fd passing is real (recvmsg with SCM_RIGHTS, fd-server.ts).
import { closeSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArgReader, MessageSplitter, encodeMessage, arg } from '../../src/input/index.js';
import { FdServer, type FdConnection } from './fd-server.js';

export interface Recorded {
  conn: number;
  iface: string;
  objectId: number;
  opcode: number;
  body: Buffer;
  fds: number[];
  at: number;
}

export interface FakeOptions {
  globals?: Array<{ iface: string; version: number }>;
}

export class FakeCompositor {
  readonly dir = mkdtempSync(join(tmpdir(), 'hypruse-fakewl-'));
  readonly path = join(this.dir, 'wayland-test');
  readonly requests: Recorded[] = [];
  connections = 0;
  /** When set, wl_seat.capabilities sent on every wl_seat bind (1 pointer, 2 keyboard); unset: never sent. */
  seatCaps: number | null = null;
  /** When true, sync callbacks are never answered. */
  muteSync = false;
  /** Return a [code, message] to answer this request with wl_display.error (and close). */
  errorOn: ((r: Recorded) => [number, string] | null) | null = null;
  private server = new FdServer(this.path);
  private readonly globals: Array<{ iface: string; version: number }>;
  private waiters: Array<() => void> = [];

  constructor(opts: FakeOptions = {}) {
    this.globals = opts.globals ?? [
      { iface: 'wl_seat', version: 7 },
      { iface: 'zwlr_virtual_pointer_manager_v1', version: 2 },
      { iface: 'zwp_virtual_keyboard_manager_v1', version: 1 },
    ];
  }

  async start(): Promise<void> {
    this.server.onConnection = (s) => this.accept(s);
    this.server.listen();
  }

  /** Close every connection and the socket, and every passed fd nobody consumed. */
  async stop(): Promise<void> {
    await this.server.stop();
    for (const r of this.requests) for (const fd of r.fds.splice(0)) closeSync(fd);
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Drop every client connection (the compositor "went away" for them). */
  dropClients(): void {
    this.server.dropClients();
  }

  /** Requests of one interface (optionally one opcode), in order. */
  of(iface: string, opcode?: number): Recorded[] {
    return this.requests.filter((r) => r.iface === iface && (opcode === undefined || r.opcode === opcode));
  }

  /** Resolve once `pred` holds for the recorded requests. */
  async until(pred: () => boolean, timeoutMs = 2000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pred()) {
      if (Date.now() > deadline) throw new Error('fake compositor: condition not met in time');
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 20);
      });
    }
  }

  private accept(sock: FdConnection): void {
    const conn = ++this.connections;
    const objects = new Map<number, string>([[1, 'wl_display']]);
    const splitter = new MessageSplitter();
    const pendingFds: number[] = [];
    const send = (id: number, op: number, args: Parameters<typeof encodeMessage>[2]) => sock.write(encodeMessage(id, op, args));
    sock.onClose = () => {
      for (const fd of pendingFds.splice(0)) closeSync(fd);
    };
    sock.onData = (chunk: Buffer, fds: number[]) => {
      pendingFds.push(...fds);
      for (const m of splitter.push(chunk)) {
        const iface = objects.get(m.objectId) ?? `unknown#${m.objectId}`;
        const rec: Recorded = { conn, iface, objectId: m.objectId, opcode: m.opcode, body: m.body, fds: [], at: performance.now() };
        if (iface === 'zwp_virtual_keyboard_v1' && m.opcode === 0) rec.fds = pendingFds.splice(0, 1);
        this.requests.push(rec);
        const err = this.errorOn?.(rec);
        if (err) {
          send(1, 0, [arg.object(m.objectId), arg.uint(err[0]), arg.string(err[1])]);
          setTimeout(() => sock.destroy(), 5);
          continue;
        }
        const a = new ArgReader(m.body);
        if (iface === 'wl_display' && m.opcode === 1) {
          const reg = a.newId();
          objects.set(reg, 'wl_registry');
          this.globals.forEach((g, i) => send(reg, 0, [arg.uint(i + 1), arg.string(g.iface), arg.uint(g.version)]));
        } else if (iface === 'wl_display' && m.opcode === 0) {
          const cb = a.newId();
          if (!this.muteSync) {
            send(cb, 0, [arg.uint(conn)]);
            send(1, 1, [arg.uint(cb)]);
          }
        } else if (iface === 'wl_registry' && m.opcode === 0) {
          a.uint();
          const name = a.string()!;
          a.uint();
          const id = a.newId();
          objects.set(id, name);
          if (name === 'wl_seat' && this.seatCaps !== null) send(id, 0, [arg.uint(this.seatCaps)]);
        } else if (iface === 'zwlr_virtual_pointer_manager_v1' && m.opcode === 0) {
          a.object();
          objects.set(a.newId(), 'zwlr_virtual_pointer_v1');
        } else if (iface === 'zwp_virtual_keyboard_manager_v1' && m.opcode === 0) {
          a.object();
          objects.set(a.newId(), 'zwp_virtual_keyboard_v1');
        }
      }
      for (const w of this.waiters.splice(0)) w();
    };
  }
}
