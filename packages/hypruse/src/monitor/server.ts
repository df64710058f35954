import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Capture, Imaging, Logger, Presence, PresenceVerdict } from '@hypruse/core';
import { readBeacons, type JournalRecord } from '@hypruse/trust';
import { JournalTail } from './feed.js';
import { FrameLoop, type OutputInfo } from './frames.js';
import { checkRequest, parseControl, type GuardVerdict } from './guard.js';
import { PAGE_HTML, PAGE_JS } from './page.js';

/** What the page shows and acts through, built once on the first request (the MCP server builds its session lazily). */
export interface MonitorBackends {
  presence: Presence;
  /** The desktop image; null with `problem` saying why (no compositor). */
  frames: { capture: Capture; imaging: Imaging; outputs: () => Promise<OutputInfo[]> } | null;
  problem?: string;
  /** The journal file, or null when the journal is off. */
  journalPath: string | null;
  /** The session environment (its runtime dir holds the beacons). */
  env: NodeJS.ProcessEnv;
}

export interface MonitorOptions {
  backends: () => Promise<MonitorBackends>;
  /** Most capture rounds per second. */
  fps: number;
  logger: Logger;
  /** Who presses the buttons, as recorded in the shared state. */
  by?: string;
}

export interface MonitorState {
  state: PresenceVerdict['state'];
  by: string;
  at: number | null;
  /** hypruse processes of the session other than monitors: what the agent is doing. */
  activity: Array<{ pid: number; source: string; state: 'active' | 'idle'; tool: string; action: string }>;
  note?: string;
}

const MAX_BODY = 1024;
const BEACON_POLL_MS = 500;
const JOURNAL_POLL_MS = 200;
const HEARTBEAT_MS = 15000;

const CSP = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The monitor page: on 127.0.0.1 only, at a random port, under a random
 * token; the live desktop (changed frames only), the journal feed, the
 * stop/pause state and the Pause, Resume and Stop buttons, which set the
 * same shared state as the stop chord. Nothing on the page sends input.
 */
export class MonitorServer {
  readonly token = randomBytes(32).toString('base64url');
  private server: Server | null = null;
  private port = 0;
  private backendsP: Promise<MonitorBackends> | null = null;
  private frames: FrameLoop | null = null;
  private tail: JournalTail | null = null;
  private readonly clients = new Set<ServerResponse>();
  private unsubscribe: (() => void) | null = null;
  private beaconTimer: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private lastState = '';
  private problem: string | null = null;
  private closed = false;

  constructor(private readonly opts: MonitorOptions) {}

  /** Listen; resolves with the page's address (token included) and its origin. */
  async start(): Promise<{ url: string; origin: string; port: number }> {
    const server = createServer((req, res) => void this.handle(req, res).catch((err) => this.fail(res, err)));
    server.headersTimeout = 10000;
    server.requestTimeout = 10000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    const origin = `http://127.0.0.1:${this.port}`;
    return { url: `${origin}/${this.token}/`, origin: `${origin}/`, port: this.port };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of [this.beaconTimer, this.heartbeat]) if (t) clearInterval(t);
    this.unsubscribe?.();
    this.tail?.stop();
    for (const c of this.clients) c.end();
    this.clients.clear();
    await this.frames?.stop();
    const s = this.server;
    if (s) {
      await new Promise<void>((r) => {
        s.close(() => r());
        s.closeAllConnections();
      });
    }
  }

  private backends(): Promise<MonitorBackends> {
    this.backendsP ??= this.opts.backends().then(async (b) => {
      await this.wire(b);
      return b;
    });
    return this.backendsP;
  }

  private async wire(b: MonitorBackends): Promise<void> {
    if (b.frames) {
      this.frames = new FrameLoop({
        ...b.frames,
        intervalMs: Math.round(1000 / this.opts.fps),
        onFrame: (m) => this.broadcast('frame', m),
        onOutputs: (names) => this.broadcast('outputs', names),
        onAgent: (views) => this.broadcast('agent', views),
        onError: (msg) => {
          this.problem = msg && `desktop image: ${msg}`;
          if (msg) this.opts.logger.warn(`monitor: ${this.problem}`);
          this.broadcast('problem', this.problem);
        },
      });
    } else this.problem = b.problem ?? 'no desktop image';
    if (b.journalPath) {
      this.tail = new JournalTail({ path: b.journalPath, pollMs: JOURNAL_POLL_MS, onRecords: (r) => this.broadcast('journal', r) });
      await this.tail.start();
    }
    this.unsubscribe = b.presence.onChange(() => this.pushState(b));
    this.beaconTimer = setInterval(() => this.pushState(b), BEACON_POLL_MS);
    this.beaconTimer.unref();
    this.heartbeat = setInterval(() => {
      for (const c of this.clients) c.write(': keep-alive\n\n');
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** The shared state and the agent's activity now. */
  state(b: MonitorBackends): MonitorState {
    const v = b.presence.current();
    const activity = readBeacons(b.env)
      .live.filter((x) => x.mode?.source !== 'monitor')
      .map((x) => ({ pid: x.pid, source: x.mode?.source ?? 'unknown', state: x.state, tool: x.tool, action: x.action }));
    return {
      state: v.state,
      by: v.state === 'running' ? '' : v.by,
      at: v.state === 'stopped' ? v.at : null,
      activity,
    };
  }

  private pushState(b: MonitorBackends): void {
    const s = this.state(b);
    const text = JSON.stringify(s);
    if (text === this.lastState) return;
    this.lastState = text;
    this.broadcast('state', s);
  }

  private broadcast(event: string, data: unknown): void {
    if (!this.clients.size) return;
    const msg = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const c of this.clients) c.write(msg);
  }

  private headers(res: ServerResponse, type: string): void {
    res.setHeader('Content-Type', type);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  }

  private refuse(req: IncomingMessage, res: ServerResponse, v: Extract<GuardVerdict, { ok: false }>): void {
    this.headers(res, 'application/json; charset=utf-8');
    if (v.allow) res.setHeader('Allow', v.allow);
    if (v.location) res.setHeader('Location', v.location);
    res.statusCode = v.status;
    if (v.status === 403) this.opts.logger.warn(`monitor: refused ${req.method} (${v.reason})`);
    res.end(`${JSON.stringify({ error: v.reason })}\n`);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const one = (h: string | string[] | undefined) => (Array.isArray(h) ? h[0] : h);
    const v = checkRequest(
      { method: req.method ?? 'GET', url: req.url ?? '/', host: req.headers.host, origin: one(req.headers.origin), fetchSite: one(req.headers['sec-fetch-site']), contentType: req.headers['content-type'] },
      { token: this.token, port: this.port },
    );
    if (!v.ok) return this.refuse(req, res, v);
    const head = req.method === 'HEAD';
    switch (v.route.kind) {
      case 'page':
        this.headers(res, 'text/html; charset=utf-8');
        res.setHeader('Content-Security-Policy', CSP);
        res.end(head ? undefined : PAGE_HTML);
        void this.backends().catch(() => undefined); // start the desktop side while the script loads
        return;
      case 'script':
        this.headers(res, 'text/javascript; charset=utf-8');
        res.end(head ? undefined : PAGE_JS);
        return;
      case 'state': {
        const b = await this.backends();
        this.headers(res, 'application/json; charset=utf-8');
        res.end(head ? undefined : `${JSON.stringify(this.state(b))}\n`);
        return;
      }
      case 'frame': {
        await this.backends();
        const f = this.frames?.latest(v.route.output);
        if (!f) {
          this.headers(res, 'application/json; charset=utf-8');
          res.statusCode = 404;
          res.end(`${JSON.stringify({ error: `no frame of output ${JSON.stringify(v.route.output)} yet; outputs: ${(this.frames?.outputs() ?? []).join(', ') || 'none'}` })}\n`);
          return;
        }
        this.headers(res, 'image/png');
        res.setHeader('X-Hypruse-Frame', JSON.stringify({ version: f.version, geometry: f.geometry, scale: f.scale }));
        res.end(head ? undefined : f.png);
        return;
      }
      case 'events':
        return this.events(req, res);
      case 'control':
        return this.control(req, res);
    }
  }

  private async events(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const b = await this.backends();
    this.headers(res, 'text/event-stream; charset=utf-8');
    res.setHeader('Connection', 'keep-alive');
    res.flushHeaders();
    const records: JournalRecord[] = this.tail?.backlog() ?? [];
    const s = this.state(b);
    this.lastState = JSON.stringify(s);
    const hello = { journal: b.journalPath, records, outputs: this.frames?.outputs() ?? [], agent: this.frames?.agents() ?? [], frames: this.frames?.all() ?? [], state: s, problem: this.problem };
    res.write(`retry: 1000\nevent: hello\ndata: ${JSON.stringify(hello)}\n\n`);
    this.clients.add(res);
    this.frames?.start();
    res.on('close', () => {
      this.clients.delete(res);
      if (!this.clients.size) void this.frames?.stop();
    });
  }

  private async control(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = '';
    let tooBig = false;
    req.setEncoding('utf8');
    for await (const chunk of req as AsyncIterable<string>) {
      body += chunk;
      if (body.length > MAX_BODY) {
        tooBig = true;
        break;
      }
    }
    this.headers(res, 'application/json; charset=utf-8');
    if (tooBig) {
      res.statusCode = 413;
      res.end(`${JSON.stringify({ error: `the body is larger than ${MAX_BODY} bytes; send {"action": "pause" | "resume" | "stop"}` })}\n`);
      return;
    }
    const parsed = parseControl(body);
    if ('error' in parsed) {
      res.statusCode = 400;
      res.end(`${JSON.stringify({ error: parsed.error })}\n`);
      return;
    }
    const b = await this.backends();
    const by = this.opts.by ?? 'the monitor page';
    let note: string | undefined;
    if (parsed.action === 'stop') b.presence.stop(by);
    else if (parsed.action === 'resume') b.presence.resume(by);
    else if (b.presence.current().state === 'stopped') note = 'still stopped: a stop outranks a pause (Resume lifts it)';
    else b.presence.pause(by);
    this.opts.logger.warn(`monitor: ${parsed.action} pressed on the monitor page`);
    const s = this.state(b);
    this.pushState(b);
    res.end(`${JSON.stringify({ ...s, ...(note ? { note } : {}) })}\n`);
  }

  private fail(res: ServerResponse, err: unknown): void {
    this.opts.logger.warn(`monitor: ${(err as Error)?.message ?? String(err)}`);
    if (res.headersSent) {
      res.end();
      return;
    }
    this.headers(res, 'application/json; charset=utf-8');
    res.statusCode = 500;
    res.end(`${JSON.stringify({ error: (err as Error)?.message ?? String(err) })}\n`);
  }
}
