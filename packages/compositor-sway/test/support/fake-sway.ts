import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encodeFrame, FrameDecoder, type Frame } from '../../src/ipc/codec.js';

export interface FakeConn {
  socket: net.Socket;
  /** frames received on this connection */
  received: Frame[];
  send(type: number, payload: unknown): void;
}

/**
 * A test-local i3-ipc server on a temp Unix socket. `handler` answers each
 * request frame (return undefined to stay silent).
 */
export class FakeSway {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'fake-sway-'));
  readonly socketPath = path.join(this.dir, `sway-ipc.${process.getuid?.() ?? 0}.${process.pid}.sock`);
  readonly conns: FakeConn[] = [];
  private server: net.Server | null = null;

  constructor(public handler: (frame: Frame, conn: FakeConn) => unknown | undefined) {}

  async start(): Promise<this> {
    this.server = net.createServer((socket) => {
      const decoder = new FrameDecoder();
      const conn: FakeConn = {
        socket,
        received: [],
        send: (type, payload) => socket.write(encodeFrame(type, typeof payload === 'string' ? payload : JSON.stringify(payload))),
      };
      this.conns.push(conn);
      socket.on('data', (chunk) => {
        for (const frame of decoder.push(chunk)) {
          conn.received.push(frame);
          const reply = this.handler(frame, conn);
          if (reply !== undefined) conn.send(frame.type, reply);
        }
      });
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => this.server!.listen(this.socketPath, resolve));
    return this;
  }

  /** Every command string received via RUN_COMMAND, across connections. */
  commands(): string[] {
    return this.conns.flatMap((c) => c.received.filter((f) => f.type === 0).map((f) => f.payload.toString('utf8')));
  }

  dropAll(): void {
    for (const c of this.conns) c.socket.destroy();
  }

  async stop(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = null;
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Stop listening (the socket file disappears) but keep the temp dir. */
  async unlisten(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = null;
  }
}
