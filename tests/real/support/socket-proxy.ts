import net from 'node:net';

/** A byte-transparent Unix socket proxy that can drop its connections "from the server side". */
export class UnixProxy {
  private server: net.Server | null = null;
  private pairs = new Set<[net.Socket, net.Socket]>();

  constructor(
    readonly upstreamPath: string,
    readonly socketPath: string,
  ) {}

  async listen(): Promise<this> {
    this.server = net.createServer((client) => {
      const upstream = net.createConnection({ path: this.upstreamPath });
      const pair: [net.Socket, net.Socket] = [client, upstream];
      this.pairs.add(pair);
      client.pipe(upstream);
      upstream.pipe(client);
      const end = () => {
        this.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('close', end).on('error', end);
      upstream.on('close', end).on('error', end);
    });
    await new Promise<void>((res, rej) => this.server!.once('error', rej).listen(this.socketPath, () => res()));
    return this;
  }

  /** Close every open connection; returns how many there were. */
  drop(): number {
    const n = this.pairs.size;
    for (const [c, u] of this.pairs) {
      c.destroy();
      u.destroy();
    }
    this.pairs.clear();
    return n;
  }

  async close(): Promise<void> {
    this.drop();
    await new Promise<void>((res) => (this.server ? this.server.close(() => res()) : res()));
    this.server = null;
  }
}
