// A long wait over the built server: a 10-minute wait_for reports progress at least every 10 s (real
// time: hosts' idle clocks are not scaled), naming what it awaits and what it saw, and a cancellation
// ends it: its compositor event connection is closed (counted in the server's own file descriptors).
import { readdirSync, readlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireDesktop, waitFor } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';

const desk = await requireDesktop();

/** The server process's open sockets. */
function sockets(pid: number): number {
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) n++;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

describe.skipIf(!desk)('long waits report progress and end on cancel (the built server)', () => {
  let server: Server;
  beforeAll(async () => {
    server = await startServer(desk!.env);
  });
  afterAll(async () => server?.close());

  it('a 10-minute wait_for: progress every <= 10 s naming what it awaits and saw; cancelled, it lets go of the event stream', async () => {
    const pid = server.pid!;
    expect((await server.call('desktop')).isError).toBe(false);
    await new Promise((r) => setTimeout(r, 500));
    const base = sockets(pid);
    const seen: Array<{ at: number; message: string }> = [];
    const ac = new AbortController();
    const t0 = Date.now();
    const pending = server.client
      .callTool({ name: 'wait_for', arguments: { event: 'window_open', match: 'never-opens-progress', timeout_s: 600 } }, undefined, {
        signal: ac.signal,
        timeout: 700_000,
        onprogress: (p) => seen.push({ at: Date.now() - t0, message: String(p.message ?? '') }),
      })
      .then(
        () => 'answered',
        (e: unknown) => `rejected: ${String(e)}`,
      );
    // while it waits: one more connection (its event stream), and a desktop event it is not waiting for
    await waitFor(() => sockets(pid) > base, 10_000, 'the wait to open its event stream');
    await new Promise((r) => setTimeout(r, 11_000));
    expect((await server.call('wm', { action: 'workspace', workspace: '7' })).isError).toBe(false);
    expect((await server.call('wm', { action: 'workspace', workspace: '1' })).isError).toBe(false);
    await new Promise((r) => setTimeout(r, 21_000));
    const during = sockets(pid);
    const cancelledAt = Date.now() - t0;
    ac.abort();
    expect(await pending).toMatch(/^rejected: .*abort/i);

    // the cadence: the first report within 10 s, then never 10 s without one, until the cancel
    expect(seen.length, JSON.stringify(seen)).toBeGreaterThanOrEqual(5);
    const times = [0, ...seen.map((s) => s.at), cancelledAt];
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1], JSON.stringify(seen)).toBeLessThanOrEqual(10_000);
    for (const s of seen) expect(s.message).toMatch(/^waiting for window_open matching "never-opens-progress": \d+ s of 600 s; /);
    expect(seen[0].message).toMatch(/no event seen yet/);
    expect(seen.at(-1)!.message).toMatch(/other event\(s\) seen, the last: .*workspace/);

    // ended: its event stream closed, and the server answers at once
    await waitFor(() => sockets(pid) < during, 10_000, 'the cancelled wait to close its event stream');
    const t1 = Date.now();
    expect((await server.call('desktop')).isError).toBe(false);
    expect(Date.now() - t1).toBeLessThan(5000);
  }, 120_000);
});
