import { afterEach, describe, expect, it } from 'vitest';
import { HypruseError } from '@hypruse/core';
import { SwayIpcClient } from '../src/ipc/sway-ipc-client.js';
import { openSwayEvents, swayEventSource } from '../src/ipc/sway-event-stream.js';
import { EventHub } from '@hypruse/core';
import { FakeSway } from './support/fake-sway.js';

let fake: FakeSway | null = null;
afterEach(async () => {
  await fake?.stop();
  fake = null;
});

const reply = (o: unknown) => JSON.stringify(o);

describe('SwayIpcClient', () => {
  it('pipelines requests on one connection and matches replies in order', async () => {
    fake = await new FakeSway((f) => reply({ echo: f.payload.toString(), type: f.type })).start();
    const c = new SwayIpcClient({ socketPath: fake.socketPath });
    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => c.requestJson<{ echo: string; type: number }>(i === 2 ? 4 : 0, `cmd ${i}`)));
    expect(results.map((r) => r.echo)).toEqual(['cmd 1', 'cmd 2', 'cmd 3', 'cmd 4', 'cmd 5']);
    expect(results[1].type).toBe(4);
    expect(fake.conns).toHaveLength(1);
    c.close();
  });

  it('fails a call in flight with error.ipc_closed when the socket drops, then reconnects transparently', async () => {
    let drop = true;
    fake = await new FakeSway((f, conn) => {
      if (drop) {
        drop = false;
        conn.socket.destroy();
        return undefined;
      }
      return reply({ ok: f.payload.toString() });
    }).start();
    const c = new SwayIpcClient({ socketPath: fake.socketPath });
    const err = await c.request(4).catch((e) => e);
    expect(err).toBeInstanceOf(HypruseError);
    expect((err as HypruseError).code).toBe('error.ipc_closed');
    expect((err as HypruseError).message).toMatch(/GET_TREE/);
    expect(await c.requestJson(0, 'again')).toEqual({ ok: 'again' });
    expect(fake.conns).toHaveLength(2);
    c.close();
  });

  it('times out a request that gets no reply, quickly, and the next call works on a fresh connection', async () => {
    let silent = true;
    fake = await new FakeSway(() => {
      if (silent) {
        silent = false;
        return undefined;
      }
      return reply([{ success: true }]);
    }).start();
    const c = new SwayIpcClient({ socketPath: fake.socketPath, timeoutMs: 150 });
    const t0 = Date.now();
    const err = (await c.request(0, 'x').catch((e) => e)) as HypruseError;
    expect(err.code).toBe('error.compositor');
    expect(err.message).toMatch(/within 150 ms/);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(await c.requestJson(0, 'y')).toEqual([{ success: true }]);
    expect(fake.conns).toHaveLength(2);
    c.close();
  });

  it('an aborted call is cancelled but its late reply does not shift later replies', async () => {
    const held: Array<() => void> = [];
    fake = await new FakeSway((f, conn) => {
      const body = reply({ p: f.payload.toString() });
      if (f.payload.toString() === 'slow') held.push(() => conn.send(f.type, body));
      else if (held.length) {
        held.splice(0).forEach((h) => h());
        conn.send(f.type, body);
      } else return body;
      return undefined;
    }).start();
    const c = new SwayIpcClient({ socketPath: fake.socketPath });
    const ac = new AbortController();
    const slow = c.request(0, 'slow', { signal: ac.signal }).catch((e) => e);
    ac.abort();
    expect(((await slow) as HypruseError).category).toBe('cancelled');
    expect(await c.requestJson(0, 'fast')).toEqual({ p: 'fast' });
    c.close();
  });

  it('cannot-connect is a typed error.compositor naming the socket, with a hint', async () => {
    const c = new SwayIpcClient({ socketPath: '/nonexistent/sway-ipc.sock' });
    const err = (await c.request(7).catch((e) => e)) as HypruseError;
    expect(err.code).toBe('error.compositor');
    expect(err.message).toContain('/nonexistent/sway-ipc.sock');
    expect(err.hint).toMatch(/SWAYSOCK/);
  });

  it('rejects a reply of the wrong type', async () => {
    fake = await new FakeSway((f, conn) => {
      conn.send(f.type + 1, '{}');
      return undefined;
    }).start();
    const c = new SwayIpcClient({ socketPath: fake.socketPath });
    const err = (await c.request(1).catch((e) => e)) as HypruseError;
    expect(err.message).toMatch(/answered GET_WORKSPACES with a SUBSCRIBE reply/);
    c.close();
  });
});

describe('sway events through the kit', () => {
  const subscribeHandler = (f: { type: number; payload: Buffer }) => {
    if (f.type !== 2) return undefined;
    const names = JSON.parse(f.payload.toString()) as string[];
    return reply({ success: !names.includes('output') });
  };

  it('subscribes, tolerates a refused optional event and delivers events by name', async () => {
    fake = await new FakeSway(subscribeHandler).start();
    const got: Array<[string, unknown]> = [];
    const s = await openSwayEvents({ socketPath: fake.socketPath, events: ['window', 'workspace'], optionalEvents: ['output'] }, (n, p) => got.push([n, p]), () => {});
    expect(JSON.parse(fake.conns[0].received[0].payload.toString())).toEqual(['window', 'workspace']);
    fake.conns[0].send(0x80000003, { change: 'new', container: { id: 5 } });
    await new Promise((r) => setTimeout(r, 50));
    expect(got).toEqual([['window', { change: 'new', container: { id: 5 } }]]);
    expect([...s.optionalAccepted]).toEqual([]);
    s.close();
  });

  it('refused required subscription is error.events', async () => {
    fake = await new FakeSway(() => reply({ success: false })).start();
    await expect(openSwayEvents({ socketPath: fake.socketPath, events: ['window'] }, () => {}, () => {})).rejects.toMatchObject({ code: 'error.events' });
  });

  it('re-establishes a connection the server dropped, with the same subscription, and says resync', async () => {
    fake = await new FakeSway(subscribeHandler).start();
    const hub = new EventHub(swayEventSource({ socketPath: fake.socketPath, events: ['window'] }));
    const sub = await hub.subscribe();
    fake.conns[0].socket.destroy();
    expect(await sub.next(5000)).toMatchObject({ type: 'resync' });
    expect(hub.reconnects).toBe(1);
    expect(fake.conns).toHaveLength(2);
    expect(JSON.parse(fake.conns[1].received[0].payload.toString())).toEqual(['window']);
    fake.conns[1].send(0x80000003, { change: 'close', container: { id: 7, type: 'con', app_id: 'x' } });
    expect(await sub.next(5000)).toMatchObject({ type: 'window_close', address: '7' });
    sub.close();
  });

  it('fails the subscription when sway is gone for good', async () => {
    fake = await new FakeSway(subscribeHandler).start();
    const hub = new EventHub(swayEventSource({ socketPath: fake.socketPath, events: ['window'] }));
    const sub = await hub.subscribe();
    await fake.unlisten();
    await expect(sub.next(30000)).rejects.toMatchObject({ code: 'error.events' });
  });
});
