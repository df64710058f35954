import { timingSafeEqual } from 'node:crypto';

/** What the monitor page serves under `/<token>/`. */
export type MonitorRoute =
  | { kind: 'page' }
  | { kind: 'script' }
  | { kind: 'events' }
  | { kind: 'state' }
  | { kind: 'frame'; output: string }
  | { kind: 'control' };

export interface RequestFacts {
  method: string;
  /** The request target as sent (`/TOKEN/frame/HEADLESS-1?v=3`). */
  url: string;
  host?: string;
  origin?: string;
  /** `Sec-Fetch-Site`, sent by browsers. */
  fetchSite?: string;
  contentType?: string;
}

export type GuardVerdict =
  | { ok: true; route: MonitorRoute }
  | { ok: false; status: number; reason: string; allow?: string; location?: string };

export interface GuardOptions {
  token: string;
  port: number;
}

/** The only places the page is served from: the loopback address it listens on, and `localhost` for a person who types it. */
export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

export function allowedOrigins(port: number): string[] {
  return allowedHosts(port).map((h) => `http://${h}`);
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(token, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Writes are POSTs to these paths only; a GET (or anything else) there is refused. */
const WRITES = new Set(['control', 'pause', 'resume', 'stop']);

/**
 * Decide one request to the monitor page, before anything is read or done:
 * a foreign `Host` (DNS rebinding) and a foreign `Origin` or cross-site fetch
 * are refused first (403), then a missing or wrong token (401), then an
 * unknown path (404), and a write by any method but POST, or a POST of
 * anything but JSON (which a cross-site form cannot send), is refused
 * (405, 415). Pure: the HTTP server only carries out the verdict.
 */
export function checkRequest(req: RequestFacts, opts: GuardOptions): GuardVerdict {
  const host = (req.host ?? '').toLowerCase();
  if (!allowedHosts(opts.port).includes(host)) {
    return { ok: false, status: 403, reason: `foreign Host ${JSON.stringify(req.host ?? '')}: the monitor page answers only to ${allowedHosts(opts.port).join(' and ')}` };
  }
  if (req.origin !== undefined && !allowedOrigins(opts.port).includes(req.origin.toLowerCase())) {
    return { ok: false, status: 403, reason: `foreign Origin ${JSON.stringify(req.origin)}: only the monitor page itself (${allowedOrigins(opts.port).join(', ')}) may call it` };
  }
  if (req.fetchSite !== undefined && !['same-origin', 'none'].includes(req.fetchSite.toLowerCase())) {
    return { ok: false, status: 403, reason: `a ${req.fetchSite} request: only the monitor page itself may call it` };
  }
  let path: string;
  try {
    path = new URL(req.url, 'http://monitor.invalid').pathname;
  } catch {
    return { ok: false, status: 400, reason: 'the request target is not a path' };
  }
  const parts = path.split('/').slice(1);
  const given = parts[0] ?? '';
  if (!given || !sameToken(given, opts.token)) {
    return { ok: false, status: 401, reason: 'the monitor page needs its token: open the whole address printed when the monitor started (http://127.0.0.1:PORT/TOKEN/)' };
  }
  const rest = parts.slice(1);
  const method = req.method.toUpperCase();
  if (rest.length === 0) {
    // `/TOKEN` without the slash: the page's relative addresses need it
    return method === 'GET' || method === 'HEAD' ? { ok: false, status: 308, reason: 'the page lives under its token folder', location: `/${given}/` } : { ok: false, status: 405, reason: 'the page is read with GET', allow: 'GET' };
  }
  const name = rest[0];
  if (WRITES.has(name) && rest.length === 1) {
    if (method !== 'POST') return { ok: false, status: 405, reason: `${method} cannot change anything: Pause, Resume and Stop are a POST of {"action": "pause" | "resume" | "stop"} to control`, allow: 'POST' };
    if (name !== 'control') return { ok: false, status: 404, reason: `no ${name} here: POST {"action": "${name}"} to control` };
    if (!/^application\/json\b/i.test(req.contentType ?? '')) return { ok: false, status: 415, reason: 'control takes a JSON body (Content-Type: application/json)' };
    return { ok: true, route: { kind: 'control' } };
  }
  let route: MonitorRoute | null = null;
  if (rest.length === 1 && name === '') route = { kind: 'page' };
  else if (rest.length === 1 && name === 'app.js') route = { kind: 'script' };
  else if (rest.length === 1 && name === 'events') route = { kind: 'events' };
  else if (rest.length === 1 && name === 'state') route = { kind: 'state' };
  else if (rest.length === 2 && name === 'frame' && rest[1]) {
    let output: string;
    try {
      output = decodeURIComponent(rest[1]);
    } catch {
      return { ok: false, status: 400, reason: 'the output name is not valid percent-encoding' };
    }
    route = { kind: 'frame', output };
  }
  if (!route) return { ok: false, status: 404, reason: `nothing at ${JSON.stringify(`/${rest.join('/')}`)}; the page is at the token folder itself` };
  if (method !== 'GET' && method !== 'HEAD') return { ok: false, status: 405, reason: `${method} is not accepted here: the page, its script, state, events and frames are read with GET`, allow: 'GET, HEAD' };
  return { ok: true, route };
}

/** The body of a control request: one action, nothing else. */
export function parseControl(body: string): { action: 'pause' | 'resume' | 'stop' } | { error: string } {
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch {
    return { error: 'the body is not JSON; send {"action": "pause" | "resume" | "stop"}' };
  }
  const action = (v as { action?: unknown } | null)?.action;
  if (typeof v !== 'object' || v === null || Array.isArray(v) || Object.keys(v).some((k) => k !== 'action')) {
    return { error: 'send exactly {"action": "pause" | "resume" | "stop"}' };
  }
  if (action !== 'pause' && action !== 'resume' && action !== 'stop') {
    return { error: `action ${JSON.stringify(action)} is not accepted; accepted: pause, resume, stop` };
  }
  return { action };
}
