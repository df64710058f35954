// Remote seats: `hypruse serve --http` (the built server) over Streamable HTTP, driven by the SDK's own
// HTTP client. Two seats, one client each from this one process; the token printed once equals the
// 0600 file; requests without the token, with a wrong one or another seat's, from a foreign Host or
// Origin, or larger than the seat takes are refused, and sway (asked directly) shows nothing acted;
// past its rate a seat answers 429.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { scaledMs } from '@hypruse/core';
import { requireDesktop, swaymsg } from '../support/desktop.js';
import { BIN } from '../support/server.js';

const desk = await requireDesktop();

interface Seat {
  proc: ChildProcess;
  url: string;
  port: number;
  token: string;
  file: string;
  client: Client;
  transport: StreamableHTTPClientTransport;
}

async function startSeat(config: Record<string, unknown>): Promise<Seat> {
  const cfg = join(mkdtempSync(join(tmpdir(), 'hypruse-http-')), 'hypruse.json');
  writeFileSync(cfg, JSON.stringify({ takeoverMs: 0, ...config }));
  const proc = spawn(process.execPath, [BIN, 'serve', '--http', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', LANG: 'C.UTF-8', ...(process.env.HYPRUSE_TIME_SCALE ? { HYPRUSE_TIME_SCALE: process.env.HYPRUSE_TIME_SCALE } : {}), ...desk!.env, HYPRUSE_CONFIG: cfg },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const line = await new Promise<RegExpExecArray>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no address within the time: ${err}`)), scaledMs(20000));
    proc.stderr!.on('data', (d) => {
      err += String(d);
      const m = /MCP over HTTP at (http:\/\/127\.0\.0\.1:(\d+)\/mcp) \(Authorization: Bearer ([A-Za-z0-9_-]+)\); the token is also in (\S+)\n/.exec(err);
      if (m) {
        clearTimeout(t);
        resolve(m);
      }
    });
    proc.on('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
  const [, url, port, token, file] = line;
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'hypruse-e2e-http', version: '1' });
  await client.connect(transport);
  return { proc, url, port: Number(port), token, file, client, transport };
}

/** One raw request to a seat, headers as given (Host included). */
function raw(port: number, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += String(d)));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'EPIPE' || (e as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve({ status: 413, text: 'connection closed' }) : reject(e)));
    req.end(body);
  });
}

const focused = async () => (await swaymsg<Array<{ name: string; focused: boolean }>>('-t', 'get_workspaces')).find((w) => w.focused)?.name;
const workspaces = async () => (await swaymsg<Array<{ name: string }>>('-t', 'get_workspaces')).map((w) => w.name);

describe.skipIf(!desk)('remote seats over Streamable HTTP (the built server)', () => {
  let a: Seat;
  let b: Seat;
  beforeAll(async () => {
    [a, b] = await Promise.all([startSeat({}), startSeat({ mcp: { http: { requestsPerMinute: 40 } } })]);
  });
  afterAll(async () => {
    for (const s of [a, b]) {
      await s?.client.close().catch(() => undefined);
      s?.proc.kill('SIGTERM');
    }
  });

  it('prints the token once and keeps it 0600 in a private folder; each start has its own', () => {
    for (const s of [a, b]) {
      expect(readFileSync(s.file, 'utf8').trim()).toBe(s.token);
      expect(statSync(s.file).mode & 0o777).toBe(0o600);
      expect(statSync(dirname(s.file)).mode & 0o777).toBe(0o700);
    }
    expect(a.token).not.toBe(b.token);
    expect(a.token.length).toBeGreaterThanOrEqual(40);
  });

  it('one process drives both seats: lists, observes and acts on each', async () => {
    const [la, lb] = await Promise.all([a.client.listTools(), b.client.listTools()]);
    expect(la.tools.map((t) => t.name)).toContain('desktop');
    expect(lb.tools.map((t) => t.name)).toEqual(la.tools.map((t) => t.name));
    const acted = await a.client.callTool({ name: 'wm', arguments: { action: 'workspace', workspace: '5' } });
    expect(acted.isError, JSON.stringify(acted.content)).toBeFalsy();
    expect(await focused()).toBe('5');
    const seen = await b.client.callTool({ name: 'desktop', arguments: {} });
    expect(seen.isError, JSON.stringify(seen.content)).toBeFalsy();
    expect(JSON.stringify(seen.structuredContent)).toContain('"5"');
    const back = await b.client.callTool({ name: 'wm', arguments: { action: 'workspace', workspace: '4' } });
    expect(back.isError, JSON.stringify(back.content)).toBeFalsy();
    expect(await focused()).toBe('4');
  });

  it('refuses a missing, wrong or another seat\'s token, a foreign Host or Origin and an oversized body; nothing acts', async () => {
    const sid = a.transport.sessionId!;
    expect(sid).toBeTruthy();
    const call = (workspace: string, pad = '') =>
      JSON.stringify({ jsonrpc: '2.0', id: 77, method: 'tools/call', params: { name: 'wm', arguments: { action: 'workspace', workspace, ...(pad ? { pad } : {}) } } });
    const base = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25', host: `127.0.0.1:${a.port}` };
    const good = { ...base, authorization: `Bearer ${a.token}` };
    // the same request with everything right acts (so the refusals below refuse a working request)
    const ok = await raw(a.port, good, call('6'));
    expect(ok.status, ok.text).toBe(200);
    expect(await focused()).toBe('6');
    const refusals: Array<[string, Record<string, string>, string, number]> = [
      ['no token', base, call('9'), 401],
      ['a wrong token', { ...base, authorization: `Bearer ${a.token.slice(0, -2)}xx` }, call('9'), 401],
      ["the other seat's token", { ...base, authorization: `Bearer ${b.token}` }, call('9'), 401],
      ['not a bearer token', { ...base, authorization: `Basic ${Buffer.from(`x:${a.token}`).toString('base64')}` }, call('9'), 401],
      ['a foreign Host', { ...good, host: `evil.example:${a.port}` }, call('9'), 403],
      ['a foreign Origin', { ...good, origin: 'http://evil.example' }, call('9'), 403],
      ['an oversized body', good, call('9', 'x'.repeat(2_000_000)), 413],
    ];
    for (const [what, headers, body, status] of refusals) {
      const r = await raw(a.port, headers, body);
      expect(r.status, `${what}: ${r.text}`).toBe(status);
    }
    // sway, asked directly: still on 6, and no workspace 9 was ever made
    expect(await focused()).toBe('6');
    expect(await workspaces()).not.toContain('9');
    // the refusals name what to do
    const noToken = await raw(a.port, base, call('9'));
    expect(noToken.text).toMatch(/bearer token/);
    const host = await raw(a.port, { ...good, host: `evil.example:${a.port}` }, call('9'));
    expect(host.text).toMatch(/foreign Host/);
    expect((await a.client.callTool({ name: 'wm', arguments: { action: 'workspace', workspace: '1' } })).isError).toBeFalsy();
  });

  it('past its rate a seat answers 429, refused requests counted', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 45; i++) statuses.push((await raw(b.port, { host: `127.0.0.1:${b.port}` }, '{}')).status);
    expect(statuses.filter((s) => s === 429).length, statuses.join(',')).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 429 && s !== 401)).toEqual([]);
    // the seat's own client is held back too, with a clear word
    await expect(b.client.listTools()).rejects.toThrow(/429|requests in a minute/);
  });
});
