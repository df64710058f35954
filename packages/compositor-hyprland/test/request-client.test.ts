// The request client against a Unix server that behaves as Hyprland's
// request socket does on a loaded machine: it accepts a connection and closes
// it, either before reading the request (the kernel then reports ECONNRESET to
// the client: its bytes were never read) or after reading it without a reply.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HyprlandRequestClient } from '../src/ipc/request-client.js';

type Mode = 'unread' | 'read-no-reply' | 'ok';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const fn of cleanups.splice(0)) fn();
});

/** A server answering connection n as modes[n] (the last mode repeats); records what it read. */
async function server(modes: Mode[]): Promise<{ path: string; received: string[]; connections: () => number }> {
  const dir = mkdtempSync(join(tmpdir(), 'hypr-reqclient-'));
  const path = join(dir, '.socket.sock');
  const received: string[] = [];
  let n = 0;
  const srv: Server = createServer({ pauseOnConnect: true }, (sock: Socket) => {
    const mode = modes[Math.min(n++, modes.length - 1)];
    if (mode === 'unread') {
      // wait until the request is in our queue, then close without reading it
      setTimeout(() => sock.destroy(), 100);
      return;
    }
    sock.resume();
    sock.once('data', (d: Buffer) => {
      received.push(d.toString('utf8'));
      if (mode === 'ok') sock.end('ok');
      else sock.destroy();
    });
  });
  await new Promise<void>((res) => srv.listen(path, () => res()));
  cleanups.push(() => {
    srv.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { path, received, connections: () => n };
}

describe('HyprlandRequestClient: a connection closed before any reply', () => {
  it('a dispatch Hyprland closed unread (ECONNRESET) is sent once more and answered', async () => {
    const s = await server(['unread', 'ok']);
    const c = new HyprlandRequestClient(s.path, 3000);
    expect(await c.request('dispatch hl.dsp.exec_cmd("foot")')).toBe('ok');
    expect(s.connections()).toBe(2);
    // read exactly once: by the second connection
    expect(s.received).toEqual(['dispatch hl.dsp.exec_cmd("foot")']);
  });

  it('a dispatch that was read and got no reply is never repeated (it may have run)', async () => {
    const s = await server(['read-no-reply', 'ok']);
    const c = new HyprlandRequestClient(s.path, 3000);
    await expect(c.request('dispatch hl.dsp.exec_cmd("foot")')).rejects.toMatchObject({ code: 'error.ipc_closed' });
    expect(s.connections()).toBe(1);
    expect(s.received).toHaveLength(1);
  });

  it('a dispatch closed unread twice fails typed after two connections, never more', async () => {
    const s = await server(['unread']);
    const c = new HyprlandRequestClient(s.path, 3000);
    await expect(c.request('dispatch hl.dsp.focus({ workspace = 2 })')).rejects.toMatchObject({ code: 'error.ipc_closed', data: { unread: true } });
    expect(s.connections()).toBe(2);
    expect(s.received).toEqual([]);
  });

  it('a read-only query is sent once more even when it was read', async () => {
    const s = await server(['read-no-reply', 'ok']);
    const c = new HyprlandRequestClient(s.path, 3000);
    expect(await c.request('j/clients')).toBe('ok');
    expect(s.received).toEqual(['j/clients', 'j/clients']);
  });
});
