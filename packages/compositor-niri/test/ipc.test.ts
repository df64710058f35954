import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NiriIpcClient } from '../src/ipc/niri-ipc-client.js';
import { NiriSimulator } from '../../../tests/simulators/niri/niri-simulator.js';

let sim: NiriSimulator;
let ipc: NiriIpcClient;
beforeEach(async () => {
  sim = await NiriSimulator.start();
  ipc = new NiriIpcClient(sim.socketPath, 500);
});
afterEach(async () => {
  await sim.stop();
});

describe('NiriIpcClient', () => {
  it('sends one JSON line and unwraps the Ok payload', async () => {
    expect(await ipc.version()).toBe('26.04 (niri-simulator)');
    const windows = await ipc.windows();
    expect(windows.map((w) => w.id)).toEqual([10, 11]);
    expect(sim.requests).toEqual(['Version', 'Windows']);
  });

  it("carries niri's Err text in a typed compositor error", async () => {
    await expect(ipc.request('ReturnError')).rejects.toMatchObject({ code: 'error.compositor', message: expect.stringContaining('example compositor error'), data: { niri: 'example compositor error' } });
    await expect(ipc.action({ NoSuchAction: {} })).rejects.toMatchObject({ code: 'error.compositor', message: expect.stringContaining('NoSuchAction') });
  });

  it('times out on a hung niri instead of waiting forever', async () => {
    sim.hang = true;
    const t0 = Date.now();
    await expect(ipc.windows({ timeoutMs: 200 })).rejects.toMatchObject({ code: 'error.compositor', message: expect.stringContaining('within 200 ms') });
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('answers a slow reply within the deadline', async () => {
    sim.replyDelayMs = 100;
    expect(await ipc.version({ timeoutMs: 1000 })).toContain('niri');
  });

  it('rejects a garbage reply as unparsable', async () => {
    sim.garbageReplies = 1;
    await expect(ipc.windows()).rejects.toMatchObject({ code: 'error.compositor', message: expect.stringContaining('unparsable reply to Windows') });
    expect((await ipc.windows()).length).toBe(2);
  });

  it('is cancelled by an AbortSignal', async () => {
    sim.hang = true;
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    await expect(ipc.windows({ signal: ac.signal, timeoutMs: 5000 })).rejects.toMatchObject({ code: 'cancelled.request' });
  });

  it('explains a missing socket', async () => {
    const gone = new NiriIpcClient(`${sim.dir}/niri.nothing.1.sock`);
    await expect(gone.version()).rejects.toMatchObject({ code: 'error.compositor', hint: expect.stringContaining('NIRI_SOCKET') });
  });

  it('opens an event stream: Handled, then the initial burst', async () => {
    const events: string[] = [];
    const stream = await ipc.openEventStream({ onEvent: (e) => events.push(Object.keys(e)[0]), onClose: () => undefined });
    await new Promise((r) => setTimeout(r, 50));
    expect(events.slice(0, 2)).toEqual(['WorkspacesChanged', 'WindowsChanged']);
    stream.close();
  });

  it('reports an event stream that dies with the reason', async () => {
    const closed = new Promise<unknown>((resolve) => {
      void ipc.openEventStream({ onEvent: () => undefined, onClose: resolve }).then(() => sim.sendGarbageEvent());
    });
    await expect(closed).resolves.toMatchObject({ code: 'error.events', message: expect.stringContaining('unparsable event') });
  });
});
