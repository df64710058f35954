// Schema fuzz over the in-memory fake session (breadth): every tool and every
// verb fed malformed arguments gives one clear usage error (MCP: isError text
// starting "usage:"; CLI: exit 2), never a crash or a hang, and never a side
// effect (nothing delivered to the input fake, no compositor action).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer } from '@hypruse/core/mcp';
import { HypruseError, runVerb, scaledMs } from '@hypruse/core';
import { ALL_TOOLS } from '@hypruse/tools';
import { fakeSession, type FakeSession } from '../support/fake-session.js';
import { BAD_VERBS, schemaCases, semanticCases, type FuzzCase } from './fuzz-cases.js';

process.env.XDG_RUNTIME_DIR ??= mkdtempSync(join(tmpdir(), 'hypruse-fuzz-'));

let s: FakeSession;
let client: Client;
let names: string[];

beforeAll(async () => {
  s = await fakeSession({ clipboard: true });
  const server = await createMcpServer({ name: 'hypruse', version: 'fuzz', pipeline: s.pipeline, config: s.config, compositor: 'fake' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'fuzz', version: '1' });
  await Promise.all([server.connect(a), client.connect(b)]);
  names = ALL_TOOLS.map((t) => s.pipeline.registry.nameOf(t));
});
afterAll(async () => {
  await client?.close();
  await s?.dispose();
});

function noSideEffects(what: string): void {
  expect(s.fake.input.delivered, `${what}: input was delivered`).toEqual([]);
  expect(s.fake.compositor.actions, `${what}: the compositor was asked to act`).toEqual([]);
}

async function expectUsage(c: FuzzCase): Promise<void> {
  const what = `${c.tool} with ${c.why}`;
  const t0 = Date.now();
  const err = await s.pipeline.call(c.tool, c.args as Record<string, unknown>).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, `${what}: accepted`).toBeInstanceOf(HypruseError);
  const e = err as HypruseError;
  expect(e.category, `${what}: ${e.code} ${e.message}`).toBe('usage');
  expect(e.message.length, `${what}: no message`).toBeGreaterThan(10);
  expect(e.message.length, `${what}: the message echoes a huge value`).toBeLessThan(2000);
  expect(Date.now() - t0, `${what}: slow`).toBeLessThan(scaledMs(2000));
  noSideEffects(what);
}

describe('schema fuzz, in-memory fake session', () => {
  it('covers every tool in ALL_TOOLS', () => {
    expect(names.length).toBe(ALL_TOOLS.length);
    const cases = ALL_TOOLS.flatMap((t) => schemaCases(t, s.pipeline.registry.nameOf(t)));
    for (const n of names) expect(cases.filter((c) => c.tool === n).length, n).toBeGreaterThanOrEqual(3);
  });

  it('wrong types, unknown fields, unknown enums, over-long and 1 MB strings, NaN and Infinity: usage errors for every tool', async () => {
    let n = 0;
    for (const tool of ALL_TOOLS) {
      for (const c of schemaCases(tool, s.pipeline.registry.nameOf(tool))) {
        await expectUsage(c);
        n++;
      }
    }
    expect(n).toBeGreaterThan(300);
  });

  it('off-screen and non-finite coordinates, unsafe workspace names and addresses, bad regions, combos and steps: usage errors', async () => {
    for (const c of semanticCases()) await expectUsage({ ...c, tool: c.tool === 'hypr' ? names.find((x) => x === 'wm' || x === 'hypr')! : c.tool });
  });

  it('over MCP the same cases are isError results whose text starts with "usage:"', async () => {
    const all = [...ALL_TOOLS.flatMap((t) => schemaCases(t, s.pipeline.registry.nameOf(t))), ...semanticCases()].filter(
      (c) => c.args !== null && typeof c.args === 'object' && !Array.isArray(c.args),
    );
    for (const c of all) {
      const r = await client.callTool({ name: c.tool, arguments: c.args as Record<string, unknown> });
      const text = (r.content as Array<{ type: string; text: string }>)[0]?.text ?? '';
      expect(r.isError, `${c.tool} with ${c.why}: ${text}`).toBe(true);
      expect(text, `${c.tool} with ${c.why}`).toMatch(/^usage: /);
      const meta = (r._meta as Record<string, { category: string }> | undefined)?.['hypruse/error'];
      expect(meta?.category).toBe('usage');
    }
    noSideEffects('MCP fuzz');
  });

  it('an unknown tool name is a usage error over MCP, and the server answers the next call', async () => {
    for (const name of ['frobnicate', '', 'desktop; exec foot', 'x'.repeat(10000), '__proto__', 'constructor']) {
      const r = await client.callTool({ name, arguments: {} });
      expect(r.isError, name.slice(0, 40)).toBe(true);
      expect((r.content as Array<{ text: string }>)[0].text, name.slice(0, 40)).toMatch(/^usage: /);
    }
    const ok = await client.callTool({ name: 'desktop', arguments: {} });
    expect(ok.isError).toBeFalsy();
  });

  it('every malformed verb is exit 2 with the reason on stderr and nothing on stdout', async () => {
    for (const v of BAD_VERBS) {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runVerb(s.pipeline, v.argv[0], v.argv.slice(1), { out: (x) => out.push(x), err: (x) => err.push(x), stdin: () => '' });
      expect(code, `${v.argv.join(' ')} (${v.why}): ${err.join(' ')}`).toBe(2);
      expect(err.join('\n'), v.why).toMatch(/^hypruse: usage: /);
      expect(out, v.why).toEqual([]);
    }
    noSideEffects('verbs');
  });
});
