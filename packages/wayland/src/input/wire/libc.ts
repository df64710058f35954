/**
 * The few libc calls that file-descriptor passing over a Unix socket needs
 * (socket, connect, sendmsg with SCM_RIGHTS, recvmsg, fcntl, poll, close),
 * through koffi: an N-API FFI whose prebuilt binaries ship inside its npm
 * packages, so nothing is compiled at install and one build loads on every
 * Node version. Every call here is synchronous and non-blocking except
 * `poll`, which the test server runs on a worker thread (`pollAsync`). No
 * native code holds an event-loop handle, so nothing can outlive or race a
 * libuv close.
 *
 * Layouts are those of Linux LP64 (x86_64, aarch64, riscv64, ppc64le):
 * msghdr 56 bytes, cmsghdr header 16, sockaddr_un 110, pollfd 8.
 */
import { createRequire } from 'node:module';
import { constants as osConstants } from 'node:os';

export const AF_UNIX = 1;
export const SOCK_STREAM = 1;
export const SOCK_NONBLOCK = 0o4000;
export const SOCK_CLOEXEC = 0o2000000;
export const MSG_DONTWAIT = 0x40;
export const MSG_NOSIGNAL = 0x4000;
export const MSG_CTRUNC = 0x8;
export const MSG_CMSG_CLOEXEC = 0x40000000;
export const SOL_SOCKET = 1;
export const SCM_RIGHTS = 1;
export const F_DUPFD_CLOEXEC = 1030;
export const SHUT_RDWR = 2;
export const MFD_CLOEXEC = 1;
export const POLLIN = 0x1;
export const POLLOUT = 0x4;
export const POLLERR = 0x8;
export const POLLHUP = 0x10;
export const POLLNVAL = 0x20;
/** Most fds one Wayland message may carry (libwayland's limit, well under the kernel's 253). */
export const MAX_FDS = 28;
const SUN_PATH_MAX = 107;

const E = osConstants.errno;
export const EAGAIN = E.EAGAIN;
export const EINTR = E.EINTR;
export const EINPROGRESS = E.EINPROGRESS;
const errnoNames = new Map<number, string>(Object.entries(E).map(([k, v]) => [v, k]));

/** `ECONNREFUSED (errno 111)`-style text for an errno value. */
export function errnoText(errno: number): string {
  return `${errnoNames.get(errno) ?? 'errno'} (errno ${errno})`;
}

type Fn = (...args: unknown[]) => number;
interface AsyncFn {
  async(...args: unknown[]): void;
}

export interface Libc {
  socket(domain: number, type: number, protocol: number): number;
  connect(fd: number, addr: Buffer, len: number): number;
  bind(fd: number, addr: Buffer, len: number): number;
  listen(fd: number, backlog: number): number;
  accept4(fd: number, addr: null, len: null, flags: number): number;
  close(fd: number): number;
  shutdown(fd: number, how: number): number;
  fcntl(fd: number, cmd: number, arg: number): number;
  poll(fds: Buffer, n: number, timeoutMs: number): number;
  /** memfd_create(2) (close-on-exec): an anonymous file with no path; fd or -errno. */
  memfd(name: string): number;
  /** The calling thread's errno right after the last call through koffi. */
  errno(): number;
  /** poll(2) on a worker thread; the callback gets the result (or -errno). */
  pollAsync(fds: Buffer, n: number, timeoutMs: number, cb: (result: number) => void): void;
  /** sendmsg(2) of `data` with `fds` attached (SCM_RIGHTS); bytes written or -errno. Never blocks, never raises SIGPIPE. */
  send(fd: number, data: Buffer, fds?: readonly number[]): number;
  /** recvmsg(2) into `buf`; bytes read (0 at end of stream) or -errno, and the fds that came with them (close-on-exec). */
  recv(fd: number, buf: Buffer): { n: number; fds: number[]; truncated: boolean };
}

let cache: { libc: Libc | null; error?: string } | undefined;
let version: string | undefined;

/** The loaded koffi's version (null until fd passing has loaded). */
export function koffiVersion(): string | null {
  return loadLibc().libc ? (version ?? null) : null;
}

/** Load the bindings once; null (with the reason) when koffi or libc cannot be loaded here. */
export function loadLibc(): { libc: Libc | null; error?: string } {
  if (cache) return cache;
  try {
    cache = { libc: bind() };
  } catch (err) {
    cache = { libc: null, error: err instanceof Error ? err.message.split('\n')[0] : String(err) };
  }
  return cache;
}

/** sockaddr_un for `path`, or a reason it cannot be one. */
export function unixAddress(path: string): Buffer | string {
  const bytes = Buffer.from(path, 'utf8');
  if (bytes.length === 0) return 'the socket path is empty';
  if (bytes.length > SUN_PATH_MAX) return `the socket path is ${bytes.length} bytes long; a Unix socket path holds at most ${SUN_PATH_MAX}`;
  if (bytes.includes(0)) return 'the socket path contains a NUL byte';
  const addr = Buffer.alloc(110);
  addr.writeUInt16LE(AF_UNIX, 0);
  bytes.copy(addr, 2);
  return addr;
}

function bind(): Libc {
  if (process.platform !== 'linux') throw new Error(`fd passing is implemented for Linux only (this is ${process.platform})`);
  // koffi is an optional dependency: loaded lazily so a missing one only turns fd passing off.
  const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
  version = (koffi as unknown as { version?: string }).version;
  let lib: ReturnType<typeof koffi.load>;
  try {
    lib = koffi.load('libc.so.6');
  } catch {
    lib = koffi.load(null); // musl and others: libc is already mapped into the node process
  }
  const iovec = koffi.struct('hypruse_iovec', { iov_base: 'void *', iov_len: 'size_t' });
  const msghdr = koffi.struct('hypruse_msghdr', {
    msg_name: 'void *',
    msg_namelen: 'uint32_t',
    msg_iov: koffi.pointer(iovec),
    msg_iovlen: 'size_t',
    msg_control: 'void *',
    msg_controllen: 'size_t',
    msg_flags: 'int',
  });
  if (koffi.sizeof(msghdr) !== 56) throw new Error(`unexpected struct msghdr layout (${koffi.sizeof(msghdr)} bytes)`);
  const f = (proto: string) => lib.func(proto) as unknown as Fn & AsyncFn;
  const socket = f('int socket(int, int, int)');
  const connect = f('int connect(int, const void *, uint32_t)');
  const bindFn = f('int bind(int, const void *, uint32_t)');
  const listen = f('int listen(int, int)');
  const accept4 = f('int accept4(int, void *, void *, int)');
  const close = f('int close(int)');
  const shutdown = f('int shutdown(int, int)');
  const fcntl = f('int fcntl(int, int, int)');
  const poll = f('int poll(void *, uint64_t, int)');
  let memfdCreate: Fn | null = null;
  try {
    memfdCreate = f('int memfd_create(const char *, unsigned int)');
  } catch {
    /* a libc without it (glibc < 2.27): callers fall back to a private file */
  }
  const sendmsg = lib.func('intptr_t sendmsg(int, const hypruse_msghdr *, int)') as unknown as Fn;
  const recvmsg = lib.func('intptr_t recvmsg(int, _Inout_ hypruse_msghdr *, int)') as unknown as Fn;
  const errno = () => koffi.errno();
  const ret = (r: number) => (r < 0 ? -errno() : r);

  const cmsgSpace = (n: number) => (16 + 4 * n + 7) & ~7;
  const libc: Libc = {
    socket: (d, t, p) => ret(socket(d, t, p)),
    connect: (fd, a, l) => ret(connect(fd, a, l)),
    bind: (fd, a, l) => ret(bindFn(fd, a, l)),
    listen: (fd, b) => ret(listen(fd, b)),
    accept4: (fd, a, l, fl) => ret(accept4(fd, a, l, fl)),
    close: (fd) => ret(close(fd)),
    shutdown: (fd, how) => ret(shutdown(fd, how)),
    fcntl: (fd, cmd, arg) => ret(fcntl(fd, cmd, arg)),
    poll: (fds, n, t) => ret(poll(fds, n, t)),
    memfd: (name) => (memfdCreate ? ret(memfdCreate(name, MFD_CLOEXEC)) : -E.ENOSYS),
    errno,
    pollAsync(fds, n, t, cb) {
      // errno of a worker thread is not readable afterwards; a failed poll is reported as -1.
      poll.async(fds, n, t, (err: unknown, r: number) => cb(err ? -1 : r));
    },
    send(fd, data, fds = []) {
      if (fds.length > MAX_FDS) throw new Error(`at most ${MAX_FDS} fds per message (got ${fds.length})`);
      let control: Buffer | null = null;
      if (fds.length) {
        control = Buffer.alloc(cmsgSpace(fds.length));
        control.writeBigUInt64LE(BigInt(16 + 4 * fds.length), 0);
        control.writeInt32LE(SOL_SOCKET, 8);
        control.writeInt32LE(SCM_RIGHTS, 12);
        fds.forEach((x, i) => control!.writeInt32LE(x, 16 + 4 * i));
      }
      const msg = {
        msg_name: null,
        msg_namelen: 0,
        msg_iov: [{ iov_base: data, iov_len: data.length }],
        msg_iovlen: 1,
        msg_control: control,
        msg_controllen: control ? control.length : 0,
        msg_flags: 0,
      };
      const r = Number(sendmsg(fd, msg, MSG_NOSIGNAL | MSG_DONTWAIT));
      return r < 0 ? -errno() : r;
    },
    recv(fd, buf) {
      const control = Buffer.alloc(cmsgSpace(MAX_FDS));
      const msg = {
        msg_name: null,
        msg_namelen: 0,
        msg_iov: [{ iov_base: buf, iov_len: buf.length }],
        msg_iovlen: 1,
        msg_control: control,
        msg_controllen: control.length,
        msg_flags: 0,
      };
      const r = Number(recvmsg(fd, msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC));
      if (r < 0) return { n: -errno(), fds: [], truncated: false };
      const fds: number[] = [];
      const used = Number(msg.msg_controllen);
      for (let off = 0; off + 16 <= used; ) {
        const len = Number(control.readBigUInt64LE(off));
        if (len < 16) break;
        if (control.readInt32LE(off + 8) === SOL_SOCKET && control.readInt32LE(off + 12) === SCM_RIGHTS) {
          for (let p = off + 16; p + 4 <= off + len; p += 4) fds.push(control.readInt32LE(p));
        }
        off += (len + 7) & ~7;
      }
      return { n: r, fds, truncated: (msg.msg_flags & MSG_CTRUNC) !== 0 };
    },
  };
  return libc;
}
