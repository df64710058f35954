// A Unix stream socket server for tests that receives the fds clients pass
// (recvmsg with SCM_RIGHTS), through the same libc bindings as the client.
// One poll(2) over the listening socket and every connection runs on a worker
// thread at a time; accept, recvmsg, send and close run on the main thread
// only between two polls, so no fd is closed while a poll is watching it.
import { unlinkSync } from 'node:fs';
import {
  AF_UNIX, EAGAIN, EINTR, POLLERR, POLLHUP, POLLIN, POLLNVAL, POLLOUT, SHUT_RDWR, SOCK_CLOEXEC, SOCK_NONBLOCK, SOCK_STREAM,
  errnoText, loadLibc, unixAddress, type Libc,
} from '../../src/input/wire/libc.js';

/** Poll timeout: bounds how long a change of interest (a queued write, stop) waits for the worker. */
const POLL_MS = 10;

export class FdConnection {
  closed = false;
  /** Set by destroy(): closed at the next gap between polls. */
  closing = false;
  /** While true the server does not read from this client (its writes back up). */
  paused = false;
  out: Buffer[] = [];
  onData: (chunk: Buffer, fds: number[]) => void = () => {};
  onClose: () => void = () => {};

  constructor(private readonly server: FdServer, readonly fd: number) {}

  /** Queue bytes to the client (written now if the socket has room). */
  write(data: Buffer): void {
    if (this.closed || this.closing) return;
    this.out.push(data);
    this.server.flushOut(this);
  }

  /** Hang up: the client sees the end of the stream at once; the fd is closed between two polls. */
  destroy(): void {
    if (this.closed || this.closing) return;
    this.closing = true;
    this.server.libc.shutdown(this.fd, SHUT_RDWR); // also wakes the poll in flight
  }
}

export class FdServer {
  readonly libc: Libc;
  private listenFd = -1;
  private readonly conns = new Set<FdConnection>();
  private polling = false;
  private stopped = false;
  private stopWaiters: Array<() => void> = [];
  onConnection: (c: FdConnection) => void = () => {};

  constructor(readonly path: string) {
    const { libc, error } = loadLibc();
    if (!libc) throw new Error(`fd server: koffi did not load: ${error}`);
    this.libc = libc;
  }

  listen(): void {
    const addr = unixAddress(this.path);
    if (typeof addr === 'string') throw new Error(addr);
    const fd = this.libc.socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) throw new Error(`socket: ${errnoText(-fd)}`);
    let r = this.libc.bind(fd, addr, addr.length);
    if (r === 0) r = this.libc.listen(fd, 512);
    if (r < 0) {
      this.libc.close(fd);
      throw new Error(`bind/listen ${this.path}: ${errnoText(-r)}`);
    }
    this.listenFd = fd;
    this.loop();
  }

  /** Number of client connections open right now. */
  get open(): number {
    return this.conns.size;
  }

  /** Hang up on every client. */
  dropClients(): void {
    for (const c of this.conns) c.destroy();
  }

  /** Close everything; resolves once no fd of the server is open any more. */
  stop(): Promise<void> {
    if (this.listenFd < 0 && this.conns.size === 0) return Promise.resolve();
    this.stopped = true;
    for (const c of this.conns) c.destroy();
    const done = new Promise<void>((r) => this.stopWaiters.push(r));
    if (!this.polling) this.finish();
    return done;
  }

  flushOut(c: FdConnection): void {
    while (c.out.length && !c.closed && !c.closing) {
      const buf = c.out[0]!;
      const n = this.libc.send(c.fd, buf);
      if (n === -EINTR) continue;
      if (n === -EAGAIN) return; // POLLOUT picks it up
      if (n < 0) {
        c.out = [];
        c.destroy();
        return;
      }
      if (n === buf.length) c.out.shift();
      else c.out[0] = buf.subarray(n);
    }
  }

  private finish(): void {
    for (const c of [...this.conns]) this.closeConn(c);
    if (this.listenFd >= 0) {
      this.libc.close(this.listenFd);
      this.listenFd = -1;
      try {
        unlinkSync(this.path);
      } catch {
        /* already gone */
      }
    }
    for (const w of this.stopWaiters.splice(0)) w();
  }

  private closeConn(c: FdConnection): void {
    if (c.closed) return;
    c.closed = true;
    this.conns.delete(c);
    this.libc.close(c.fd);
    c.onClose();
  }

  private loop(): void {
    if (this.stopped) return this.finish();
    // Close what was hung up since the last poll: no poll is in flight now.
    for (const c of [...this.conns]) if (c.closing) this.closeConn(c);
    const watched = [...this.conns];
    const fds = Buffer.alloc(8 * (watched.length + 1));
    fds.writeInt32LE(this.listenFd, 0);
    fds.writeInt16LE(POLLIN, 4);
    watched.forEach((c, i) => {
      fds.writeInt32LE(c.fd, 8 * (i + 1));
      fds.writeInt16LE((c.paused ? 0 : POLLIN) | (c.out.length ? POLLOUT : 0), 8 * (i + 1) + 4);
    });
    this.polling = true;
    this.libc.pollAsync(fds, watched.length + 1, POLL_MS, (r) => {
      this.polling = false;
      if (this.stopped) return this.finish();
      if (r > 0) {
        if (fds.readInt16LE(6) & POLLIN) this.acceptAll();
        watched.forEach((c, i) => {
          const ev = fds.readInt16LE(8 * (i + 1) + 6);
          if (c.closed) return;
          if (ev & POLLOUT) this.flushOut(c);
          if (ev & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) this.readAll(c);
        });
      }
      this.loop();
    });
  }

  private acceptAll(): void {
    for (;;) {
      const fd = this.libc.accept4(this.listenFd, null, null, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd === -EINTR) continue;
      if (fd < 0) return;
      const c = new FdConnection(this, fd);
      this.conns.add(c);
      this.onConnection(c);
    }
  }

  private readAll(c: FdConnection): void {
    const buf = Buffer.allocUnsafe(64 * 1024);
    while (!c.closed) {
      const { n, fds } = this.libc.recv(c.fd, buf);
      if (n === -EINTR) continue;
      if (n === -EAGAIN) return;
      if (n <= 0) {
        // End of stream or an error: the client is gone. Deliver stray fds so the owner can close them.
        if (fds.length) c.onData(Buffer.alloc(0), fds);
        this.closeConn(c);
        return;
      }
      if (c.closing) {
        for (const fd of fds) this.libc.close(fd);
        continue;
      }
      c.onData(Buffer.from(buf.subarray(0, n)), fds);
    }
  }
}
