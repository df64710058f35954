import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { LATEST_PROTOCOL_VERSION as SDK_LATEST, SUPPORTED_PROTOCOL_VERSIONS as SDK_SUPPORTED } from '@modelcontextprotocol/server';
import { createMcpServer, serveStdio } from '@hypruse/core/mcp';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, serverIdentity, startStdioFront } from '@hypruse/core/mcp/front';
import { fakeSession } from '../support/fake-session.js';

const initialize = (id: number | string, protocolVersion: string, capabilities: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities, clientInfo: { name: 'front-test', version: '1' } } });

/** Drives the front and then the real SDK server over in-memory stdio; returns every line the host read. */
async function drive(lines: string[], config: { readonly: boolean; dryRun: boolean }) {
  const session = await fakeSession(config);
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const out: string[] = [];
  let buf = '';
  stdout.on('data', (d) => {
    buf += String(d);
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      out.push(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
  });
  const stderr: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((s: string | Uint8Array) => (stderr.push(String(s)), true)) as typeof process.stderr.write;
  try {
    const front = startStdioFront(stdin, stdout);
    for (const l of lines) stdin.write(`${l}\n`);
    const identity = { name: 'hypruse', version: 'front-test', config: session.config, compositor: null };
    await front.answerInitialize(serverIdentity({ ...identity, wmName: null }));
    const early = [...out];
    let server: Awaited<ReturnType<typeof createMcpServer>> | null = null;
    const serving = serveStdio(async () => (server = await createMcpServer({ ...identity, session: async () => ({ pipeline: session.pipeline, config: session.config }) })), front.streams());
    const want = lines.filter((l) => 'id' in JSON.parse(l)).length;
    for (let i = 0; i < 200 && out.length < want; i++) await new Promise((r) => setTimeout(r, 10));
    stdin.end();
    await serving;
    await (server as Awaited<ReturnType<typeof createMcpServer>> | null)?.close();
    return { early, out: out.map((l) => JSON.parse(l) as Record<string, unknown>), stderr };
  } finally {
    process.stderr.write = write;
    await session.dispose();
  }
}

describe('MCP stdio front', () => {
  it('pins the protocol versions of the SDK it answers for', () => {
    expect(LATEST_PROTOCOL_VERSION).toBe(SDK_LATEST);
    expect([...SUPPORTED_PROTOCOL_VERSIONS]).toEqual([...SDK_SUPPORTED]);
  });

  for (const [version, expected] of [['2025-06-18', '2025-06-18'], ['2024-11-05', '2024-11-05'], ['1999-01-01', SDK_LATEST]] as const) {
    it(`answers initialize (${version}) before the SDK, exactly as the SDK does, once`, async () => {
      const r = await drive([initialize(1, version, { elicitation: {} }), JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })], { readonly: false, dryRun: false });
      // the reply was written before the SDK server existed
      expect(r.early).toHaveLength(1);
      const init = r.out.filter((m) => m.id === 1);
      expect(init).toHaveLength(1);
      const result = init[0].result as Record<string, unknown>;
      expect(result.protocolVersion).toBe(expected);
      expect(result.serverInfo).toEqual({ name: 'hypruse', version: 'front-test' });
      expect(String(result.instructions)).toContain('native control');
      // the SDK saw the replayed request (it answered tools/list) and its own reply matched the early one
      const list = r.out.find((m) => m.id === 2)?.result as { tools: Array<{ name: string }> };
      expect(list.tools.map((t) => t.name)).toContain('desktop');
      expect(r.stderr.join('')).not.toContain('hypruse bug');
    });
  }

  it('read-only instructions come from the configuration', async () => {
    const r = await drive([initialize('a', '2025-06-18')], { readonly: true, dryRun: false });
    expect(String((r.out[0].result as Record<string, unknown>).instructions)).toContain('read-only');
  });

  it('leaves anything but a well-formed initialize first to the SDK', async () => {
    const r = await drive([JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }), initialize(8, '2025-06-18')], { readonly: false, dryRun: false });
    expect(r.early).toHaveLength(0);
    expect(r.out.find((m) => m.id === 7)).toMatchObject({ result: {} });
    expect((r.out.find((m) => m.id === 8)?.result as Record<string, unknown>).protocolVersion).toBe('2025-06-18');
    const bad = await drive([JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'initialize', params: { protocolVersion: 5 } })], { readonly: false, dryRun: false });
    expect(bad.early).toHaveLength(0);
    expect(bad.out.find((m) => m.id === 9)).toHaveProperty('error');
  });
});
