// The HTTP seat's guard (pure) and the seat itself over the SDK's HTTP client on a fake session: the
// trust layers hold as on stdio (read-only refuses acting, nothing is delivered), a confirmation asks
// the person through elicitation on the HTTP session, and every refusal comes before the SDK.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { checkSeatRequest, createMcpServer, RateLimit, serveHttpSeat } from '@hypruse/core/mcp';
import type { HypruseConfig } from '@hypruse/core';
import { fakeSession, type FakeSession } from '../support/fake-session.js';

process.env.XDG_RUNTIME_DIR = mkdtempSync(join(tmpdir(), 'hypruse-seat-'));

const opts = { port: 8765, token: 'tok_ABC-123', allowedHosts: ['seat.local:9000'], maxBodyBytes: 1000 };
const req = (over: Record<string, string | undefined> = {}) => ({ method: 'POST', url: '/mcp', host: '127.0.0.1:8765', authorization: 'Bearer tok_ABC-123', ...over });

describe('HTTP seat guard', () => {
  it('lets through a well-formed request on the seat\'s own names', () => {
    for (const host of ['127.0.0.1:8765', 'localhost:8765', '[::1]:8765', 'SEAT.local:9000']) expect(checkSeatRequest(req({ host }), opts)).toEqual({ ok: true });
    expect(checkSeatRequest(req({ origin: 'http://localhost:8765' }), opts)).toEqual({ ok: true });
  });

  it('refuses in order: Host, Origin, path, token, method, size', () => {
    const status = (over: Record<string, string | undefined>) => {
      const v = checkSeatRequest(req(over), opts);
      return v.ok ? 200 : v.status;
    };
    expect(status({ host: 'evil.example:8765' })).toBe(403);
    expect(status({ host: '127.0.0.1:8766' })).toBe(403);
    expect(status({ host: undefined })).toBe(403);
    expect(status({ origin: 'http://evil.example' })).toBe(403);
    expect(status({ origin: 'null' })).toBe(403);
    expect(status({ url: '/' })).toBe(404);
    expect(status({ authorization: undefined })).toBe(401);
    expect(status({ authorization: 'Bearer tok_ABC-124' })).toBe(401);
    expect(status({ authorization: 'Bearer tok_ABC-1234' })).toBe(401);
    expect(status({ authorization: 'bearer tok_ABC-123' })).toBe(401);
    expect(status({ method: 'PUT' })).toBe(405);
    expect(status({ contentLength: '1001' })).toBe(413);
    // a foreign Host is refused even with the token (DNS rebinding carries no token, but never mind)
    expect(status({ host: 'evil.example:8765', authorization: 'Bearer tok_ABC-123' })).toBe(403);
  });

  it('a rate over a sliding minute', () => {
    const r = new RateLimit(3);
    expect([r.take(0), r.take(1), r.take(2), r.take(3)]).toEqual([true, true, true, false]);
    expect(r.take(60_001)).toBe(true);
  });
});

describe('HTTP seat over the SDK client (fake session)', () => {
  let session: FakeSession | null = null;
  let close: (() => Promise<void>) | null = null;
  afterEach(async () => {
    await close?.();
    close = null;
    await session?.dispose();
    session = null;
  });

  async function seat(overrides: Partial<HypruseConfig>, answer?: (message: string) => boolean) {
    session = await fakeSession(overrides);
    const s = session;
    const served = await serveHttpSeat({
      host: '127.0.0.1',
      port: 0,
      token: 'seat-token',
      allowedHosts: [],
      maxBodyBytes: 100_000,
      requestsPerMinute: 1000,
      makeServer: () => createMcpServer({ name: 'hypruse', version: 'test', pipeline: s.pipeline, config: s.config, compositor: 'fake' }),
    });
    close = served.close;
    const transport = new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { Authorization: 'Bearer seat-token' } } });
    const client = new Client({ name: 'seat-test', version: '1' }, answer ? { capabilities: { elicitation: {} } } : undefined);
    if (answer) client.setRequestHandler(ElicitRequestSchema, async (r) => (answer(r.params.message) ? { action: 'accept', content: { confirm: true } } : { action: 'decline' }));
    await client.connect(transport);
    return { client, session: s, url: served.url };
  }

  it('read-only holds over HTTP: acting tools are not listed and refused, nothing delivered', async () => {
    const { client, session } = await seat({ readonly: true });
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('keyboard');
    const r = await client.callTool({ name: 'keyboard', arguments: { action: 'type', text: 'x' } });
    expect(r.isError).toBe(true);
    expect(session.fake.input.delivered).toEqual([]);
    await client.close();
  });

  it('a dangerous control asks the person through elicitation on the HTTP session: no refuses, yes clicks', async () => {
    const no = await seat({}, () => false);
    const r = await no.client.callTool({ name: 'click_ui', arguments: { name: 'Delete', window: '11' } });
    expect(r.isError).toBe(true);
    expect(no.session.fake.input.delivered).toEqual([]);
    await no.client.close();
    await close?.();
    await session?.dispose();
    const yes = await seat({}, () => true);
    const ok = await yes.client.callTool({ name: 'click_ui', arguments: { name: 'Delete', window: '11' } });
    expect(ok.isError, JSON.stringify(ok.content)).toBeFalsy();
    expect(yes.session.fake.input.delivered).toEqual(['click left x1']);
    await yes.client.close();
  });

  it('a client without the token cannot connect', async () => {
    const { url } = await seat({});
    const client = new Client({ name: 'seat-test', version: '1' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(url)))).rejects.toThrow(/401|bearer token/i);
  });
});
