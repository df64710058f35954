import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FrameDecoder } from '@hypruse/compositor-sway';

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
  subscribed: boolean;
  requests: number;
}

/**
 * A transparent i3-ipc proxy in front of a real sway socket, so a test can
 * act as "the server": drop the event connections (those that sent
 * SUBSCRIBE), drop everything, or go away entirely.
 */
export class SwayProxy {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'sway-proxy-'));
  readonly socketPath = path.join(this.dir, 'sway-ipc.proxy.sock');
  private server: net.Server | null = null;
  private pairs = new Set<Pair>();
  /** When set, client->sway frames of these types are swallowed (the reply never comes). */
  holdTypes = new Set<number>();

  constructor(readonly upstreamPath: string) {}

  async listen(): Promise<this> {
    this.server = net.createServer((client) => {
      const upstream = net.createConnection({ path: this.upstreamPath });
      const pair: Pair = { client, upstream, subscribed: false, requests: 0 };
      this.pairs.add(pair);
      const decoder = new FrameDecoder();
      client.on('data', (chunk: Buffer) => {
        let pass = true;
        for (const f of decoder.push(chunk)) {
          pair.requests++;
          if (f.type === 2) pair.subscribed = true;
          if (this.holdTypes.has(f.type)) pass = false;
        }
        if (pass) upstream.write(chunk);
      });
      upstream.on('data', (chunk) => client.write(chunk));
      const end = () => {
        this.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('close', end);
      upstream.on('close', end);
      client.on('error', () => {});
      upstream.on('error', () => {});
    });
    await new Promise<void>((resolve) => this.server!.listen(this.socketPath, resolve));
    return this;
  }

  get connections(): number {
    return this.pairs.size;
  }

  get eventConnections(): number {
    return [...this.pairs].filter((p) => p.subscribed).length;
  }

  /** Close every connection that subscribed to events. Returns how many were closed. */
  dropEventConnections(): number {
    let n = 0;
    for (const p of [...this.pairs]) {
      if (!p.subscribed) continue;
      p.client.destroy();
      p.upstream.destroy();
      n++;
    }
    return n;
  }

  dropAll(): void {
    for (const p of [...this.pairs]) {
      p.client.destroy();
      p.upstream.destroy();
    }
  }

  /** Stop listening and drop every connection: the socket "goes away". */
  async unlisten(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.dropAll();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async close(): Promise<void> {
    await this.unlisten();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
