// The fd-passing transport under churn, against a real peer in this process
// (a Unix socket server receiving the fds with recvmsg): connect, write with
// fds, peer hang-up, destroy during a pending write, hang-up during a pending
// write, refused connects. No cycle may abort the process or leave an fd
// open: /proc/self/fd is counted before and after.
import { closeSync, fstatSync, mkdtempSync, openSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { connectTransport, type WireTransport } from '../src/input/index.js';
import { FdServer, type FdConnection } from './input-support/fd-server.js';

const CYCLES = 2000;
const BIG = 1 << 20; // far more than a Unix socket buffer holds: the write stays pending

const dir = mkdtempSync(join(tmpdir(), 'hypruse-fdstress-'));
const path = join(dir, 'sock');
const payloadFile = join(dir, 'payload');
let server: FdServer;
let payloadFd = -1;
let payloadIno = 0;

type Mode = 'echo' | 'hangup' | 'stall' | 'stall-hangup';
/** What the server does with the next connection, and what it saw. */
const plan: Mode[] = [];
const seen = { conns: 0, fdsReceived: 0, fdsOfPayload: 0 };

function openFds(): number {
  return readdirSync('/proc/self/fd').length;
}

beforeAll(() => {
  writeFileSync(payloadFile, 'passed by fd');
  payloadFd = openSync(payloadFile, 'r');
  payloadIno = fstatSync(payloadFd).ino;
  server = new FdServer(path);
  server.onConnection = (c: FdConnection) => {
    seen.conns++;
    const mode = plan.shift() ?? 'echo';
    c.paused = mode === 'stall' || mode === 'stall-hangup';
    c.onData = (chunk, fds) => {
      for (const fd of fds) {
        seen.fdsReceived++;
        if (fstatSync(fd).ino === payloadIno) seen.fdsOfPayload++;
        closeSync(fd);
      }
      if (!chunk.length) return;
      if (mode === 'echo') c.write(Buffer.from('ok'));
      else if (mode === 'hangup') c.destroy();
    };
    if (mode === 'stall-hangup') setTimeout(() => c.destroy(), 1);
  };
  server.listen();
});

afterAll(async () => {
  await server?.stop();
  if (payloadFd >= 0) closeSync(payloadFd);
  rmSync(dir, { recursive: true, force: true });
});

const connect = () => connectTransport(path, { wantFds: true, timeoutMs: scaledMs(5000) });
const closed = (t: WireTransport) => new Promise<Error | undefined>((r) => t.onClose(r));
const settled = (p: Promise<void>) => p.then(() => 'resolved' as const, (e: Error) => e);

async function cycle(mode: Mode): Promise<void> {
  plan.push(mode);
  const t = await connect();
  expect(t.fdPassing).toBe(true);
  const gone = closed(t);
  if (mode === 'echo') {
    const answer = new Promise<string>((r) => t.onData((b) => r(b.toString())));
    await t.write(Buffer.from('hello fd'), [payloadFd]);
    expect(await answer).toBe('ok');
    t.destroy();
  } else if (mode === 'hangup') {
    await t.write(Buffer.from('bye'), [payloadFd]);
    await gone;
    // Writing after the peer left is an error, never a crash.
    expect(await settled(t.write(Buffer.from('late'), [payloadFd]))).toBeInstanceOf(Error);
    t.destroy();
  } else if (mode === 'stall') {
    const pending = settled(t.write(Buffer.alloc(BIG, 1), [payloadFd]));
    const queued = settled(t.write(Buffer.from('queued'), [payloadFd, payloadFd]));
    await new Promise((r) => setImmediate(r));
    t.destroy(); // while the first write is half out and the second waits
    expect(await pending).toBeInstanceOf(Error);
    expect(await queued).toBeInstanceOf(Error);
  } else {
    const pending = settled(t.write(Buffer.alloc(BIG, 2), [payloadFd]));
    await gone; // EOF or EPIPE, whichever the client notices first
    expect(await pending).toBeInstanceOf(Error);
    t.destroy();
  }
  await gone;
}

it(`survives ${CYCLES} connect / write-with-fds / hang-up / destroy-mid-write cycles without an abort or an fd leak`, async () => {
  // Warm up once so lazily opened fds (koffi, the worker pool) are counted in the baseline.
  await cycle('echo');
  while (server.open) await new Promise((r) => setTimeout(r, 5));
  const before = openFds();
  const t0 = performance.now();
  const modes: Mode[] = ['echo', 'hangup', 'stall', 'stall-hangup'];
  let refused = 0;
  for (let i = 0; i < CYCLES; i++) {
    await cycle(modes[i % modes.length]!);
    if (i % 100 === 0) {
      // Nobody listens here: the connect fails cleanly and closes its socket.
      await expect(connectTransport(join(dir, 'nobody'), { wantFds: true, timeoutMs: scaledMs(5000) })).rejects.toThrow(/cannot connect to the Wayland socket .*ENOENT/);
      refused++;
    }
  }
  const deadline = Date.now() + scaledMs(5000);
  while (server.open && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const ms = performance.now() - t0;
  expect(server.open).toBe(0);
  expect(openFds()).toBe(before);
  expect(seen.conns).toBe(CYCLES + 1);
  // Every fd that reached the server is the payload file (duplicates of it, never a stray or reused number).
  expect(seen.fdsOfPayload).toBe(seen.fdsReceived);
  // echo and hangup cycles always deliver theirs; stalled ones may or may not before the hang-up.
  expect(seen.fdsReceived).toBeGreaterThanOrEqual(CYCLES / 2 + 1);
  expect(refused).toBe(CYCLES / 100);
  console.info(`fd stress: ${CYCLES} cycles in ${ms.toFixed(0)} ms, ${seen.fdsReceived} fds received, ${before} fds open before and after`);
}, scaledMs(90_000));

it('refuses bad fds and oversized paths with clear errors', async () => {
  plan.push('echo');
  const t = await connect();
  try {
    await expect(t.write(Buffer.from('x'), [123456])).rejects.toThrow(/cannot pass file descriptor 123456: EBADF/);
    await expect(t.write(Buffer.from('x'), [-1])).rejects.toThrow(/cannot pass file descriptor -1/);
    await expect(t.write(Buffer.from('x'), new Array(29).fill(payloadFd))).rejects.toThrow(/at most 28 file descriptors/);
    await expect(t.write(Buffer.alloc(0), [payloadFd])).rejects.toThrow(/at least one byte/);
  } finally {
    t.destroy();
  }
  await expect(connectTransport(`/tmp/${'x'.repeat(120)}`, { wantFds: true, timeoutMs: scaledMs(1000) })).rejects.toThrow(/at most 107/);
});
