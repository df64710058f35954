// 2026-07-28 requests on a fake session (no desktop): the questions that wait for the person are
// bounded, and an answered one resumes its call, which acts once.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpServer } from '@hypruse/core/mcp';
import { fakeSession, type FakeSession } from '../support/fake-session.js';

process.env.XDG_RUNTIME_DIR = mkdtempSync(join(tmpdir(), 'hypruse-mcp-modern-'));

let session: FakeSession | null = null;
afterEach(async () => {
  await session?.dispose();
  session = null;
});

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } }, 'io.modelcontextprotocol/clientInfo': { name: 'modern-test', version: '1' } };

async function start() {
  session = await fakeSession({});
  const s = session;
  const [a, b] = InMemoryTransport.createLinkedPair();
  const waiting = new Map<number, (m: Record<string, unknown>) => void>();
  b.onmessage = (m: JSONRPCMessage) => {
    const msg = m as unknown as Record<string, unknown>;
    waiting.get(msg.id as number)?.(msg);
  };
  await b.start();
  const handle = serveStdio(() => createMcpServer({ name: 'hypruse', version: 'test', pipeline: s.pipeline, config: s.config, compositor: 'fake' }), { transport: a });
  let id = 0;
  const call = (name: string, args: Record<string, unknown>, retry: Record<string, unknown> = {}) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const n = ++id;
      waiting.set(n, (m) => resolve(m.result as Record<string, unknown>));
      void b.send({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name, arguments: args, ...retry, _meta: META } } as JSONRPCMessage);
    });
  return { call, close: () => handle.close() };
}

describe('2026-07-28 confirmations (fake session)', () => {
  it('at most 16 questions wait at once: the 17th is refused with the confirm path, nothing clicked; an answered one clicks once', async () => {
    const m = await start();
    const args = { name: 'Delete', window: '11' };
    const states: string[] = [];
    for (let i = 0; i < 16; i++) {
      const r = await m.call('click_ui', args);
      expect(r.resultType, JSON.stringify(r)).toBe('input_required');
      states.push(String(r.requestState));
    }
    const over = await m.call('click_ui', args);
    expect(over.isError, JSON.stringify(over)).toBe(true);
    expect(JSON.stringify(over.content)).toMatch(/needs the person's confirmation[\s\S]*confirm: true/);
    expect(session!.fake.input.delivered).toEqual([]);
    const done = await m.call('click_ui', args, { requestState: states[3], inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } });
    expect(done.isError, JSON.stringify(done)).toBeFalsy();
    expect(session!.fake.input.delivered).toEqual(['click left x1']);
    // one waits less now: a new question is parked again
    expect((await m.call('click_ui', args)).resultType).toBe('input_required');
    await m.close();
  });
});
