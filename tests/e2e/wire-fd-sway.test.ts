// The fd-passing Wayland transport under churn against the real headless
// sway: wl_shm pools created from passed fds (sway maps each one), clients
// destroyed before their fd went out or in the middle of a burst, and sway
// itself hanging up on a client after a protocol error. Afterwards no fd of
// ours is left open, sway still answers over IPC, and the in-process keyboard
// still types into a GTK entry (read back from zenity's stdout).
import { closeSync, openSync, readdirSync, rmSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCombo, scaledMs } from '@hypruse/core';
import { WaylandConnection, WaylandInput, arg, waylandSocketPath } from '@hypruse/wayland';
import { zenityAnswer } from '../support/tools.js';
import { launchFixture, requireDesktop, swayNodes, swaymsg, waitFor } from '../support/desktop.js';

const desk = await requireDesktop();
const CYCLES = 400;
const POOL = 4096;

describe.skipIf(!desk)('fd passing against the real sway', () => {
  const env = { ...desk?.env };
  const path = desk ? waylandSocketPath(env, env.XDG_RUNTIME_DIR ?? null) : '';
  const shmFile = desk ? join(env.XDG_RUNTIME_DIR!, `hypruse-fdtest-${process.pid}`) : '';
  let shmFd = -1;

  beforeAll(() => {
    shmFd = openSync(shmFile, 'w+', 0o600);
    rmSync(shmFile);
    ftruncateSync(shmFd, POOL);
  });
  afterAll(() => {
    if (shmFd >= 0) closeSync(shmFd);
  });

  const connect = () => WaylandConnection.connect({ path, wantFds: true, timeoutMs: scaledMs(5000) });

  async function cycle(i: number): Promise<void> {
    const conn = await connect();
    expect(conn.fdPassing).toBe(true);
    const shm = conn.bind('wl_shm', 1).id;
    const pool = conn.allocId('wl_shm_pool');
    switch (i % 4) {
      case 0: {
        // sway receives the fd and maps it: a wrong or missing fd would be a protocol error here.
        await conn.sendAndFlush(shm, 0, [arg.newId(pool), arg.fd(), arg.int(POOL)], [shmFd]);
        conn.send(pool, 1);
        await conn.roundtrip();
        expect(conn.failure).toBeNull();
        conn.close();
        break;
      }
      case 1: {
        // Destroyed in the same tick as the write that carries the fd.
        conn.send(shm, 0, [arg.newId(pool), arg.fd(), arg.int(POOL)], [shmFd]).catch(() => {});
        conn.close();
        break;
      }
      case 2: {
        // A burst of requests, destroyed while it is still going out. sway may hang up first: its
        // buffer of events for us overflows while we do not read, and then send() throws the failure.
        const writes = [conn.send(shm, 0, [arg.newId(pool), arg.fd(), arg.int(POOL)], [shmFd])];
        try {
          for (let k = 0; k < 2000; k++) writes.push(conn.send(1, 0, [arg.newId(conn.allocId('wl_callback'))]));
        } catch (err) {
          expect(String(err)).toMatch(/connection closed/);
        }
        await new Promise((r) => setImmediate(r));
        conn.close();
        await Promise.allSettled(writes);
        break;
      }
      default: {
        // sway hangs up on us: a pool of size 0 is a protocol error (wl_shm.error), then the connection ends.
        await conn.sendAndFlush(shm, 0, [arg.newId(pool), arg.fd(), arg.int(0)], [shmFd]);
        await expect(conn.roundtrip()).rejects.toThrow(/protocol error on wl_shm#\d+|connection closed/);
        expect(() => conn.send(shm, 0, [arg.newId(conn.allocId('wl_shm_pool')), arg.fd(), arg.int(POOL)], [shmFd])).toThrow();
        conn.close();
      }
    }
  }

  it(`${CYCLES} cycles of pools from passed fds, destroy mid-write and sway hanging up: no fd left open, sway alive`, async () => {
    await cycle(0); // warm-up: koffi and the connection code are loaded before the baseline
    const before = readdirSync('/proc/self/fd').length;
    const t0 = performance.now();
    for (let i = 0; i < CYCLES; i++) await cycle(i);
    const ms = performance.now() - t0;
    await waitFor(() => readdirSync('/proc/self/fd').length <= before, scaledMs(5000), 'every socket of the cycles closed');
    expect(readdirSync('/proc/self/fd').length).toBe(before);
    const version = await swaymsg<{ human_readable: string }>('-t', 'get_version');
    expect(version.human_readable).toMatch(/^1\./);
    process.stderr.write(`fd passing vs sway: ${CYCLES} cycles in ${ms.toFixed(0)} ms, ${before} fds before and after\n`);
  }, scaledMs(90_000));

  it('after the churn the in-process keyboard uploads its keymap and types into a GTK entry', async () => {
    const input = new WaylandInput({ env, keyboard: 'wire' });
    try {
      const app = await launchFixture('zenity-entry', { workspace: '1' });
      await waitFor(async () => (await swayNodes()).find((n) => n.id === app.conId)?.focused, scaledMs(5000), 'zenity focused');
      await input.type('fd ✓ passé');
      await input.key(parseCombo('Return'));
      expect(await zenityAnswer(app)).toBe('fd ✓ passé\n');
      expect((await input.describe()).keyboard).toBe('zwp_virtual_keyboard_v1 (in-process)');
    } finally {
      await input.dispose();
    }
  });
});
