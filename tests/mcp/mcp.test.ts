import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer } from '@hypruse/core/mcp';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const asked: string[] = [];
import type { HypruseConfig } from '@hypruse/core';
import { fakeSession, type FakeSession } from '../support/fake-session.js';
import { ANNOTATIONS, hints } from '../support/annotations.js';

process.env.XDG_RUNTIME_DIR = mkdtempSync(join(tmpdir(), 'hypruse-mcp-'));

const EXPECTED_TOOLS = ['desktop', 'screenshot', 'zoom', 'ui', 'marks', 'get_text', 'binds', 'wait_for', 'click_ui', 'act', 'menu', 'file_dialog', 'pointer', 'keyboard', 'wm', 'launch', 'use_bind', 'sequence', 'resume'];
const OBSERVE = ['desktop', 'screenshot', 'zoom', 'ui', 'marks', 'get_text', 'binds', 'wait_for'];


let session: FakeSession | null = null;
afterEach(async () => { await session?.dispose(); session = null; });

async function connect(overrides: Partial<HypruseConfig> = {}, answer?: (message: string) => boolean) {
  session = await fakeSession(overrides);
  const server = await createMcpServer({ name: 'hypruse', version: 'test', pipeline: session.pipeline, config: session.config, compositor: 'fake' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test', version: '1' }, answer ? { capabilities: { elicitation: {} } } : undefined);
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params.message);
      return answer(req.params.message) ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
    });
  }
  await Promise.all([server.connect(a), client.connect(b)]);
  return { client, session };
}

type Text = { type: string; text: string };

describe('MCP adapter over a real client', () => {
  it('lists exactly the documented tools with schemas and derived annotations', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(EXPECTED_TOOLS);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
      // a real schema, not an open object: declared fields, nothing undeclared
      expect(JSON.stringify(t.outputSchema), t.name).toMatch(/"properties":\{"[a-z_]+"/);
      expect(JSON.stringify(t.outputSchema), t.name).toMatch(/"additionalProperties":(false|\{"type":\[)/);
      expect(JSON.stringify(t.outputSchema), t.name).not.toContain('"additionalProperties":true');
      expect(hints(t.annotations), t.name).toEqual(ANNOTATIONS[t.name]);
    }
    // acting tools also list the dry-run shape
    expect(JSON.stringify(tools.find((t) => t.name === 'keyboard')!.outputSchema)).toContain('"dry_run"');
    const pointer = tools.find((t) => t.name === 'pointer')!;
    expect(Object.keys(pointer.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['action', 'x', 'y', 'button', 'then', 'allow_auth']));
    expect(client.getInstructions()).toContain('desktop');
  });

  it('answers initialize before the session exists and builds it once, on the first request that needs it', async () => {
    session = await fakeSession({ readonly: true });
    const built = session;
    let calls = 0;
    let finish!: () => void;
    const gate = new Promise<void>((r) => (finish = r));
    const server = await createMcpServer({
      name: 'hypruse',
      version: 'test',
      config: built.config,
      compositor: null,
      session: async () => {
        calls++;
        await gate;
        return { pipeline: built.pipeline, config: built.config };
      },
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test', version: '1' });
    await Promise.all([server.connect(a), client.connect(b)]);
    // initialize is done and nothing was built; the read-only text holds without a session
    expect(calls).toBe(0);
    expect(client.getInstructions() ?? '').toMatch(/read-only/);
    // tools/list and a call arrive before the session is ready: both wait for the one build
    const listing = client.listTools();
    const calling = client.callTool({ name: 'desktop', arguments: {} });
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toBe(1);
    finish();
    expect((await listing).tools.map((t) => t.name)).toEqual(OBSERVE);
    const r = await calling;
    expect(r.isError).toBeFalsy();
    expect((r.content as Text[])[0].text).toMatch(/2 monitor\(s\), 2 window\(s\)/);
    expect(calls).toBe(1);
  });

  it('a session that fails to build is an error for that request, and the next one tries again', async () => {
    session = await fakeSession();
    const built = session;
    let calls = 0;
    const server = await createMcpServer({
      name: 'hypruse',
      version: 'test',
      config: built.config,
      compositor: null,
      session: async () => {
        if (++calls === 1) throw new Error('plugin "x" failed to register');
        return { pipeline: built.pipeline, config: built.config };
      },
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test', version: '1' });
    await Promise.all([server.connect(a), client.connect(b)]);
    await expect(client.listTools()).rejects.toThrow(/failed to register/);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(EXPECTED_TOOLS);
    expect(calls).toBe(2);
  });

  it('read-only lists only observation tools, and its texts never mention acting tools', async () => {
    const { client } = await connect({ readonly: true, clipboard: true });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(OBSERVE);
    const acting = /\b(click_ui|file_dialog|pointer|keyboard|use_bind|sequence|launch|clipboard)\b/;
    for (const t of tools) expect(t.description ?? '').not.toMatch(acting);
    expect(client.getInstructions() ?? '').not.toMatch(acting);
  });

  it('opt-in clipboard is listed only when enabled', async () => {
    const { client } = await connect({ clipboard: true });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('clipboard');
  });

  it('a result that does not match its output schema is an error, never shipped as structuredContent', async () => {
    const { client, session } = await connect();
    const real = session.pipeline.call.bind(session.pipeline);
    session.pipeline.call = async (name, args, o) => {
      const r = await real(name, args, o);
      return name === 'desktop' ? { ...r, data: { ...r.data, surprise: 'undeclared' } } : r;
    };
    const r = await client.callTool({ name: 'desktop', arguments: {} });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect((r.content as Text[])[0].text).toMatch(/^error: hypruse bug: the desktop result does not match its output schema \(.*surprise/);
  });

  it('returns compact text plus structuredContent', async () => {
    const { client } = await connect();
    const r = await client.callTool({ name: 'desktop', arguments: {} });
    expect(r.isError).toBeFalsy();
    expect((r.content as Text[])[0].text).toMatch(/2 monitor\(s\), 2 window\(s\)/);
    const sc = r.structuredContent as { windows: Array<{ address: string }>; monitors: Array<{ scale: number }> };
    expect(sc.windows.map((w) => w.address)).toEqual(['11', '22']);
    expect(sc.monitors[1].scale).toBe(1.5);
  });

  it('renders bad arguments as an isError usage result, with no side effect', async () => {
    const { client, session } = await connect();
    const r = await client.callTool({ name: 'pointer', arguments: { action: 'click', x: 10 } });
    expect(r.isError).toBe(true);
    expect((r.content as Text[])[0].text).toMatch(/^usage: .*x and y must be given together/);
    const r2 = await client.callTool({ name: 'pointer', arguments: { action: 'explode' } });
    expect((r2.content as Text[])[0].text).toMatch(/^usage: pointer: action/);
    expect(session.fake.input.delivered).toEqual([]);
    expect(session.fake.compositor.actions).toEqual([]);
  });

  it('keeps category, code and hint of typed errors', async () => {
    const { client } = await connect();
    const r = await client.callTool({ name: 'wm', arguments: { action: 'focus_window', target: '999' } });
    expect(r.isError).toBe(true);
    expect((r.content as Text[])[0].text).toMatch(/^not_found: no window with address 999/);
    expect((r._meta as Record<string, { code: string }>)['hypruse/error'].code).toBe('not_found.window');
  });

  it('refuses acting tools in read-only mode with category refused', async () => {
    const { client, session } = await connect({ readonly: true });
    const r = await client.callTool({ name: 'keyboard', arguments: { action: 'type', text: 'x' } });
    expect(r.isError).toBe(true);
    expect((r.content as Text[])[0].text).toMatch(/^refused: /);
    expect(session.fake.input.delivered).toEqual([]);
  });

  it('answers desktop while a wait_for is pending (observations are not blocked)', async () => {
    const { client, session } = await connect();
    const wait = client.callTool({ name: 'wait_for', arguments: { event: 'window_open', match: 'gedit', timeout_s: 5 } });
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    const d = await client.callTool({ name: 'desktop', arguments: {} });
    expect(d.isError).toBeFalsy();
    expect(Date.now() - t0).toBeLessThan(1000);
    session.fake.compositor.emit({ type: 'window_open', address: '33', class: 'gedit', title: 'doc' });
    const w = await wait;
    expect(w.isError).toBeFalsy();
    expect((w.structuredContent as { address: string }).address).toBe('33');
  });

  it('a wait that times out is a result saying what it saw, not an error (and within a sequence, a reported step)', async () => {
    const { client, session } = await connect();
    const wait = client.callTool({ name: 'wait_for', arguments: { event: 'window_open', match: 'gedit', timeout_s: 1 } });
    await new Promise((r) => setTimeout(r, 100));
    session.fake.compositor.emit({ type: 'window_open', address: '34', class: 'foot', title: 'shell' });
    const w = await wait;
    expect(w.isError, JSON.stringify(w.content)).toBeFalsy();
    expect(w.structuredContent).toMatchObject({ event: 'window_open', timed_out: true, match: 'gedit', waited_s: 1, seen: 1 });
    expect((w.content as Text[])[0].text).toMatch(/^timeout: no matching window_open event within 1s; 1 other event\(s\) seen, the last: .*foot/);
  });

  it('then=desktop attaches a fresh snapshot to an acting result', async () => {
    const { client, session } = await connect();
    const r = await client.callTool({ name: 'wm', arguments: { action: 'close_window', target: '22', then: 'desktop' } });
    expect(r.isError).toBeFalsy();
    const texts = (r.content as Text[]).map((c) => c.text);
    expect(texts[0]).toBe('closed 22');
    expect(texts.some((t) => t.startsWith('then: fake: 2 monitor(s), 1 window(s)'))).toBe(true);
    expect(session.fake.compositor.actions).toEqual(['close 22']);
  });

  it('a dangerous control asks the human through elicitation: yes clicks, no refuses', async () => {
    asked.length = 0;
    const yes = await connect({}, () => true);
    const r = await yes.client.callTool({ name: 'click_ui', arguments: { name: 'Delete', window: '11' } });
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    expect(asked.length).toBe(1);
    expect(asked[0]).toMatch(/Delete/);
    expect(yes.session.fake.input.delivered).toEqual(['click left x1']);
    await yes.session.dispose();

    const no = await connect({}, () => false);
    const r2 = await no.client.callTool({ name: 'click_ui', arguments: { name: 'Delete', window: '11' } });
    expect(r2.isError).toBe(true);
    expect((r2.content as Text[])[0].text).toMatch(/^refused: dangerous/);
    expect(no.session.fake.input.delivered).toEqual([]);
  });

  it('without elicitation a dangerous control is refused with the confirm path', async () => {
    const { client, session } = await connect();
    const r = await client.callTool({ name: 'click_ui', arguments: { name: 'Delete', window: '11' } });
    expect(r.isError).toBe(true);
    expect((r.content as Text[]).map((c) => c.text).join('\n')).toMatch(/confirm/);
    expect(session.fake.input.delivered).toEqual([]);
    const ok = await client.callTool({ name: 'click_ui', arguments: { name: 'Delete', window: '11', confirm: true } });
    expect(ok.isError, JSON.stringify(ok.content)).toBeFalsy();
    expect(session.fake.input.delivered).toEqual(['click left x1']);
  });

  it('an ambiguous name returns the candidates and clicks nothing', async () => {
    const { client, session } = await connect();
    const r = await client.callTool({ name: 'click_ui', arguments: { name: 'a', window: '11' } });
    expect(r.isError).toBe(true);
    const text = (r.content as Text[])[0].text;
    expect(text).toMatch(/^not_found: 'a' is ambiguous \(2 candidates\)/);
    expect(text).toContain('"name":"Cancel"');
    expect(text).toContain('"name":"Okay then"');
    expect(session.fake.input.delivered).toEqual([]);
    const exact = await client.callTool({ name: 'click_ui', arguments: { name: 'ok', window: '11' } });
    expect((exact.content as Text[])[0].text).toMatch(/^clicked push button 'OK'/);
    const picked = await client.callTool({ name: 'click_ui', arguments: { name: 'a', window: '11', index: 1 } });
    expect((picked.content as Text[])[0].text).toMatch(/^clicked push button 'Okay then'/);
  });

  it('refuses to pass off a screen crop as a hidden window, and captures a shown one', async () => {
    const { client, session } = await connect();
    session.fake.compositor.desktop.windows[1].visible = false;
    const hidden = await client.callTool({ name: 'screenshot', arguments: { window: '22' } });
    expect(hidden.isError).toBe(true);
    expect((hidden.content as Text[])[0].text).toMatch(/^unsupported: window 22 is not shown on any monitor/);
    const shown = await client.callTool({ name: 'screenshot', arguments: { window: '11' } });
    expect(shown.isError, JSON.stringify(shown.content)).toBeFalsy();
    expect((shown.structuredContent as { source: string; geometry: number[] }).source).toBe('crop');
    expect((shown.structuredContent as { geometry: number[] }).geometry).toEqual([100, 100, 400, 200]);
  });
});
