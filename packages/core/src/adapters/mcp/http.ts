/**
 * A remote seat: the MCP server over Streamable HTTP (the SDK's transport, one per MCP session, all
 * sharing the one hypruse session and so every trust layer, as on stdio). Each request is decided
 * before anything is read or done: the rate first, then `Host` (DNS rebinding) and `Origin`, the path,
 * the bearer token, then the body's size; only then does the SDK see it.
 */
import { timingSafeEqual, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/server';

export interface HttpSeatOptions {
  /** Address to listen on (127.0.0.1 unless configured). */
  host: string;
  /** Port; 0 = any free one. */
  port: number;
  /** The bearer token every request must carry. */
  token: string;
  /** More `host[:port]` values the Host header may name (a tunnel's local name). */
  allowedHosts: string[];
  /** Largest request body, in bytes. */
  maxBodyBytes: number;
  /** Requests one seat takes per minute (refused ones too). */
  requestsPerMinute: number;
  /** Most MCP sessions open at once. */
  maxSessions?: number;
  /** A new MCP server for a new MCP session (they share the hypruse session). */
  makeServer: () => Promise<Server>;
}

export interface RequestFacts {
  method: string;
  url: string;
  host?: string;
  origin?: string;
  authorization?: string;
  contentLength?: string;
}

export type Verdict = { ok: true } | { ok: false; status: number; reason: string };

/** The Host values a seat answers to: its loopback names on its port, and what was configured. */
export function seatHosts(port: number, extra: string[]): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, ...extra.map((h) => h.toLowerCase())];
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(token, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Decides one request before its body is read (pure: the server only carries out the verdict). */
export function checkSeatRequest(req: RequestFacts, opts: { port: number; token: string; allowedHosts: string[]; maxBodyBytes: number }): Verdict {
  const hosts = seatHosts(opts.port, opts.allowedHosts);
  const host = (req.host ?? '').toLowerCase();
  if (!hosts.includes(host)) return { ok: false, status: 403, reason: `foreign Host ${JSON.stringify(req.host ?? '')}: this seat answers only to ${hosts.join(', ')} (mcp.http.allowedHosts adds names)` };
  if (req.origin !== undefined && req.origin !== 'null') {
    const allowed = hosts.flatMap((h) => [`http://${h}`, `https://${h}`]);
    if (!allowed.includes(req.origin.toLowerCase())) return { ok: false, status: 403, reason: `foreign Origin ${JSON.stringify(req.origin)}: web pages may not call this seat` };
  } else if (req.origin === 'null') {
    return { ok: false, status: 403, reason: 'an opaque Origin: web pages may not call this seat' };
  }
  let path: string;
  try {
    path = new URL(req.url, 'http://seat.invalid').pathname;
  } catch {
    return { ok: false, status: 400, reason: 'the request target is not a path' };
  }
  if (path !== '/mcp') return { ok: false, status: 404, reason: 'the MCP endpoint is /mcp' };
  const m = /^Bearer ([A-Za-z0-9_-]+)$/.exec(req.authorization ?? '');
  if (!m || !sameToken(m[1], opts.token)) return { ok: false, status: 401, reason: 'this seat needs its bearer token (Authorization: Bearer TOKEN), printed when it started and kept in its token file' };
  const method = req.method.toUpperCase();
  if (!['POST', 'GET', 'DELETE'].includes(method)) return { ok: false, status: 405, reason: `${method} is not an MCP request` };
  if (req.contentLength !== undefined && Number(req.contentLength) > opts.maxBodyBytes) {
    return { ok: false, status: 413, reason: `the body (${req.contentLength} bytes) is larger than this seat takes (${opts.maxBodyBytes})` };
  }
  return { ok: true };
}

/** A request budget over a sliding minute. */
export class RateLimit {
  private readonly times: number[] = [];
  constructor(private readonly perMinute: number) {}
  take(now = Date.now()): boolean {
    while (this.times.length && now - this.times[0] >= 60_000) this.times.shift();
    if (this.times.length >= this.perMinute) return false;
    this.times.push(now);
    return true;
  }
}

function refuse(res: ServerResponse, status: number, reason: string): void {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'cache-control': 'no-store' };
  if (status === 401) headers['www-authenticate'] = 'Bearer realm="hypruse"';
  if (status === 429) headers['retry-after'] = '60';
  res.writeHead(status, headers).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: reason } }));
}

/** The body, at most `max` bytes (null when it is larger). */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        over = true;
        chunks.length = 0;
        return;
      }
      if (!over) chunks.push(c);
    });
    req.on('end', () => resolve(over ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** Listen; resolves with the endpoint's URL once listening. */
export async function serveHttpSeat(opts: HttpSeatOptions): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { isInitializeRequest } = await import('@modelcontextprotocol/sdk/types.js');
  type Transport = InstanceType<typeof StreamableHTTPServerTransport>;
  const sessions = new Map<string, { transport: Transport; server: Server }>();
  const rate = new RateLimit(opts.requestsPerMinute);
  let port = opts.port;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!rate.take()) return refuse(res, 429, `more than ${opts.requestsPerMinute} requests in a minute`);
    const verdict = checkSeatRequest(
      { method: req.method ?? 'GET', url: req.url ?? '/', host: header(req, 'host'), origin: header(req, 'origin'), authorization: header(req, 'authorization'), contentLength: header(req, 'content-length') },
      { port, token: opts.token, allowedHosts: opts.allowedHosts, maxBodyBytes: opts.maxBodyBytes },
    );
    if (!verdict.ok) {
      req.resume();
      return refuse(res, verdict.status, verdict.reason);
    }
    let body: unknown;
    if ((req.method ?? '').toUpperCase() === 'POST') {
      const raw = await readBody(req, opts.maxBodyBytes);
      if (raw === null) return refuse(res, 413, `the body is larger than this seat takes (${opts.maxBodyBytes} bytes)`);
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return refuse(res, 400, 'the body is not JSON');
      }
    }
    const id = header(req, 'mcp-session-id');
    const open = id ? sessions.get(id) : undefined;
    if (open) return open.transport.handleRequest(req, res, body);
    if (id) return refuse(res, 404, 'no such MCP session (it ended, or the seat restarted): initialize again');
    if (!body || !isInitializeRequest(body)) return refuse(res, 400, 'no MCP session: the first request is initialize');
    if (sessions.size >= (opts.maxSessions ?? 16)) return refuse(res, 503, `this seat already serves ${sessions.size} MCP sessions`);
    const server = await opts.makeServer();
    const transport: Transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, { transport, server }),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    // the v1 SDK's sessionful Streamable HTTP transport, served by the v2 server (a 2025-era session: same
    // Transport shape, JSON-RPC messages alike)
    await server.connect(transport as unknown as Parameters<Server['connect']>[0]);
    await transport.handleRequest(req, res, body);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) refuse(res, 500, `hypruse: ${err instanceof Error ? err.message : String(err)}`);
      else res.end();
    });
  });
  http.requestTimeout = 0; // a wait may take 30 minutes; progress flows on its stream
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port, opts.host, () => resolve());
  });
  const addr = http.address();
  port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const shown = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${shown}:${port}/mcp`,
    port,
    async close() {
      for (const s of sessions.values()) await s.transport.close().catch(() => undefined);
      sessions.clear();
      await new Promise<void>((r) => http.close(() => r()));
      http.closeAllConnections?.();
    },
  };
}
