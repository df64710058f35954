// Both protocol eras from the one built server over stdio: a 2025-era host (SDK 1.32: initialize,
// a session, elicitation pushed by the server) and a 2026-07-28 host (SDK v2 client pinned to that
// revision: no handshake, every request carries its version and capabilities, a confirmation comes
// back as input_required and the client calls again with the answer). Each lists the same tools in
// the same order, calls every observing tool (the v2 client checks each structuredContent against
// the listed output schema), is asked before a dangerous click (declined: the dialog stays; allowed:
// it closes, read from sway's own tree), sees progress of a wait and cancels it. A host that declared
// no elicitation is refused with the way on. The sealed requestState, driven by raw JSON-RPC lines:
// altered, issued for another tool or other arguments, answered twice: refused, nothing clicked.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { scaledMs } from '@hypruse/core';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killFixture, launchFixture, requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import { BIN, startServer, type PersonAtHost, type Server, type TextBlock } from '../support/server.js';

const desk = await requireDesktop();
const MODERN = '2026-07-28';

function serverEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/root',
    LANG: 'C.UTF-8',
    ...(process.env.HYPRUSE_TIME_SCALE ? { HYPRUSE_TIME_SCALE: process.env.HYPRUSE_TIME_SCALE } : {}),
    ...desk!.env,
    ...extra,
  };
}

type Called = { isError: boolean; text: string[]; data: Record<string, unknown>; raw: Record<string, unknown> };

/** The 2026-07-28 host: the v2 client pinned to the revision, answering questions as `person` says. */
async function startModern(extra: Record<string, string>, person?: PersonAtHost) {
  const transport = new ModernStdio({ command: process.execPath, args: [BIN], env: serverEnv(extra), stderr: 'pipe' });
  const client = new ModernClient({ name: 'hypruse-e2e-2026', version: '1' }, { capabilities: person ? { elicitation: { form: {} } } : {}, versionNegotiation: { mode: { pin: MODERN } } });
  if (person) {
    client.setRequestHandler('elicitation/create', async (req) => {
      const message = String((req.params as { message?: unknown }).message);
      person.asked?.push(message);
      return person.answer(message) ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
    });
  }
  await client.connect(transport);
  return {
    client,
    pid: transport.pid,
    async call(name: string, args: Record<string, unknown> = {}): Promise<Called> {
      const r = (await client.callTool({ name, arguments: args }, { timeout: scaledMs(60000) })) as Record<string, unknown>;
      const text = ((r.content ?? []) as TextBlock[]).filter((c) => c.type === 'text').map((c) => c.text);
      return { isError: Boolean(r.isError), text, data: (r.structuredContent ?? {}) as Record<string, unknown>, raw: r };
    },
    close: () => client.close(),
  };
}
type Modern = Awaited<ReturnType<typeof startModern>>;

/** Raw JSON-RPC lines to the built server as a 2026-07-28 client that declares elicitation. */
function startRaw(extra: Record<string, string>) {
  const child = spawn(process.execPath, [BIN], { env: serverEnv(extra), stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr.resume();
  const waiting = new Map<number, (m: Record<string, unknown>) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const m = JSON.parse(line) as Record<string, unknown>;
    waiting.get(m.id as number)?.(m);
  });
  let id = 100;
  const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } }, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' } };
  return {
    call(name: string, args: Record<string, unknown>, retry: { requestState?: string; inputResponses?: Record<string, unknown> } = {}): Promise<Record<string, unknown>> {
      const n = ++id;
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no answer to ${name}`)), scaledMs(60000));
        waiting.set(n, (m) => {
          clearTimeout(t);
          resolve(m);
        });
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name, arguments: args, ...retry, _meta: meta } })}\n`);
      });
    },
    async close() {
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin.end();
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    },
  };
}

const config = () => {
  const file = join(mkdtempSync(join(tmpdir(), 'hypruse-eras-')), 'hypruse.json');
  // "Yes" and "OK" count as dangerous here, so a zenity question's Yes and an entry's OK need the person
  writeFileSync(file, JSON.stringify({ dangerous: { extra: ['Yes', 'OK'] }, takeoverMs: 0, a11y: { timeoutMs: 10000 } }));
  return { HYPRUSE_CONFIG: file };
};

/** The server process's open sockets (a wait holds one more: its compositor event stream). */
function sockets(pid: number): number {
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) n++;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

const windowOpen = async (addr: string) => (await swayNodes()).some((n) => String(n.id) === addr);

describe.skipIf(!desk)('both MCP protocol eras from the one built server (stdio)', () => {
  const cfg = desk ? config() : {};
  const legacyAsked: string[] = [];
  const modernAsked: string[] = [];
  let legacyAnswer = false;
  let modernAnswer = false;
  let legacy: Server;
  let modern: Modern;
  let mute: Modern;
  const opened: string[] = [];

  beforeAll(async () => {
    legacy = await startServer(desk!.env, cfg, { answer: () => legacyAnswer, asked: legacyAsked });
    modern = await startModern(cfg, { answer: () => modernAnswer, asked: modernAsked });
    mute = await startModern(cfg);
  }, 60000);
  afterAll(async () => {
    for (const a of opened) if (await windowOpen(a)) await legacy?.call('wm', { action: 'close_window', target: a }).catch(() => undefined);
    await legacy?.close();
    await modern?.close();
    await mute?.close();
  });

  /** A zenity question started as an agent starts it; its address. */
  const question = async (via: { call: (n: string, a: Record<string, unknown>) => Promise<{ isError: boolean; text: string[]; data: Record<string, unknown> }> }, tag: string) => {
    const l = await via.call('launch', { command: `zenity --question --title=eras-${tag} --text=eras-${tag}`, wait_s: 20 });
    expect(l.isError, l.text.join('\n')).toBe(false);
    const addr = String(l.data.address);
    opened.push(addr);
    expect(await windowOpen(addr)).toBe(true);
    return addr;
  };

  it('each era: the 2026 client is served 2026-07-28, the same tools in the same order, alwaysLoad on the same ones', async () => {
    expect(modern.client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const a = (await legacy.client.listTools()).tools;
    const b = (await modern.client.listTools()).tools;
    expect(b.map((t) => t.name)).toEqual(a.map((t) => t.name));
    expect(b.filter((t) => t._meta?.['anthropic/alwaysLoad'] === true).map((t) => t.name)).toEqual(a.filter((t) => t._meta?.['anthropic/alwaysLoad'] === true).map((t) => t.name));
    expect(b.map((t) => t.annotations)).toEqual(a.map((t) => t.annotations));
    expect(b.map((t) => t.outputSchema)).toEqual(a.map((t) => t.outputSchema));
    // invalid arguments are tool errors on both
    const bad = [await legacy.call('keyboard', { action: 'zz' }), await modern.call('keyboard', { action: 'zz' })];
    for (const r of bad) {
      expect(r.isError).toBe(true);
      expect(r.text[0]).toMatch(/^usage: keyboard: action:/);
    }
  }, 60000);

  it('every observing tool answers on both eras (results checked against their output schemas)', async () => {
    const d = await modern.call('desktop');
    expect(d.isError, d.text.join('\n')).toBe(false);
    const addr = await question(modern, 'observe');
    const observing: Array<[string, Record<string, unknown>]> = [
      ['desktop', {}],
      ['screenshot', {}],
      ['zoom', { x: 100, y: 100 }],
      ['ui', { window: addr }],
      ['get_text', { window: addr }],
      ['marks', {}],
      ['binds', {}],
      ['wait_for', { event: 'window_open', match: 'eras-never', timeout_s: 1 }],
    ];
    const listed = (await modern.client.listTools()).tools.filter((t) => t.annotations?.readOnlyHint === true).map((t) => t.name);
    expect(observing.map(([n]) => n).sort()).toEqual([...listed].sort());
    for (const [name, args] of observing) {
      for (const s of [legacy, modern] as const) {
        const r = await s.call(name, args);
        expect(r.isError, `${name}: ${r.text.join('\n')}`).toBe(false);
        expect(Object.keys(r.data).length, name).toBeGreaterThan(0);
      }
    }
    expect((await modern.call('wm', { action: 'close_window', target: addr })).isError).toBe(false);
    await waitFor(async () => !(await windowOpen(addr)), scaledMs(10000), 'the observed dialog to close');
  }, 180000);

  it('a dangerous click asks the person on each era: declined, the dialog stays; allowed, it is clicked', async () => {
    for (const [name, s, asked, set] of [
      ['2025', legacy, legacyAsked, (v: boolean) => (legacyAnswer = v)],
      ['2026', modern, modernAsked, (v: boolean) => (modernAnswer = v)],
    ] as const) {
      const addr = await question(s, `confirm-${name}`);
      set(false);
      const before = asked.length;
      const no = await s.call('click_ui', { name: 'Yes', window: addr });
      expect(no.isError, name).toBe(true);
      expect(no.text[0], name).toMatch(/^refused: dangerous: the person declined/);
      expect(asked.length, name).toBe(before + 1);
      expect(asked.at(-1), name).toMatch(/"Yes" actions can be hard to undo/);
      expect(await windowOpen(addr), name).toBe(true);
      set(true);
      const yes = await s.call('click_ui', { name: 'Yes', window: addr });
      expect(yes.isError, `${name}: ${yes.text.join('\n')}`).toBe(false);
      expect(asked.length, name).toBe(before + 2);
      await waitFor(async () => !(await windowOpen(addr)), scaledMs(10000), `${name}: the dialog to close after Yes`);
    }
  }, 120000);

  it('2026: a sequence whose last step needs the person waits for the answer and runs once (the typing is not repeated)', async () => {
    const app = await launchFixture('zenity-entry', { workspace: '4' });
    try {
      const addr = String(app.conId);
      modernAnswer = true;
      const before = modernAsked.length;
      const r = await modern.call('sequence', {
        steps: [
          { op: 'click_ui', name: 'Name?', window: addr },
          { op: 'keyboard', action: 'type', text: 'eras', window: addr },
          { op: 'click_ui', name: 'OK', window: addr },
        ],
        then: 'none',
      });
      expect(r.isError, r.text.join('\n')).toBe(false);
      expect(modernAsked.length).toBe(before + 1);
      expect(modernAsked.at(-1)).toMatch(/"OK" actions can be hard to undo/);
      // zenity prints what the field held when OK was pressed: typed once
      await waitFor(async () => !(await windowOpen(addr)), scaledMs(10000), 'the entry to close after OK');
      expect(readFileSync(app.stdout, 'utf8')).toBe('eras\n');
    } finally {
      await killFixture(app.pid).catch(() => undefined);
    }
  }, 90000);

  it('a 2026 host that declared no elicitation is refused with the way on, nothing clicked', async () => {
    const addr = await question(mute, 'mute');
    const r = await mute.call('click_ui', { name: 'Yes', window: addr });
    expect(r.isError).toBe(true);
    expect(r.text.join('\n')).toMatch(/needs the person's confirmation[\s\S]*confirm: true/);
    await new Promise((res) => setTimeout(res, 500));
    expect(await windowOpen(addr)).toBe(true);
    expect((await mute.call('wm', { action: 'close_window', target: addr })).isError).toBe(false);
  }, 60000);

  it('progress and cancellation of a wait on each era: the server lets go of the wait and answers at once after', async () => {
    for (const [name, s, pid] of [
      ['2025', legacy, legacy.pid!],
      ['2026', modern, modern.pid!],
    ] as const) {
      expect((await s.call('desktop')).isError, name).toBe(false);
      await new Promise((r) => setTimeout(r, 500));
      const base = sockets(pid);
      const seen: string[] = [];
      const ac = new AbortController();
      const args = { name: 'wait_for', arguments: { event: 'window_open', match: `eras-cancel-${name}`, timeout_s: 600 } };
      const onprogress = (p: { message?: string }) => seen.push(String(p.message ?? ''));
      const pending = (name === '2025'
        ? legacy.client.callTool(args, undefined, { signal: ac.signal, timeout: 700_000, onprogress })
        : modern.client.callTool(args, { signal: ac.signal, timeout: 700_000, onprogress })
      ).then(
        () => 'answered',
        (e: unknown) => `rejected: ${String(e)}`,
      );
      await waitFor(() => seen.length >= 1, scaledMs(12000), `${name}: a progress report`);
      expect(seen[0], name).toMatch(/^waiting for window_open matching "eras-cancel-/);
      await waitFor(() => sockets(pid) > base, scaledMs(10000), `${name}: the wait to open its event stream`);
      const during = sockets(pid);
      ac.abort();
      expect(await pending, name).toMatch(/^rejected: .*abort/i);
      await waitFor(() => sockets(pid) < during, scaledMs(10000), `${name}: the cancelled wait to close its event stream`);
      const t = Date.now();
      expect((await s.call('desktop')).isError, name).toBe(false);
      expect(Date.now() - t, name).toBeLessThan(5000);
    }
  }, 60000);

  it('the requestState is sealed: altered, for another tool, for other arguments, or answered twice, it is refused and nothing is clicked', async () => {
    const raw = startRaw(cfg);
    try {
      const addr = await question(modern, 'sealed');
      const args = { name: 'Yes', window: addr };
      const first = (await raw.call('click_ui', args)).result as Record<string, unknown>;
      expect(first.resultType, JSON.stringify(first)).toBe('input_required');
      const ask = (first.inputRequests as Record<string, { method: string; params: { message: string } }>).confirm;
      expect(ask.method).toBe('elicitation/create');
      expect(ask.params.message).toMatch(/"Yes" actions can be hard to undo/);
      const state = String(first.requestState);
      const yes = { confirm: { action: 'accept', content: { confirm: true } } };
      const refused = async (name: string, a: Record<string, unknown>, st: string, why: RegExp) => {
        const r = (await raw.call(name, a, { requestState: st, inputResponses: yes })).result as Record<string, unknown>;
        expect(r.isError, JSON.stringify(r)).toBe(true);
        const text = (r.content as TextBlock[])[0].text;
        expect(text).toMatch(/^refused: the confirmation state sent back is refused: /);
        expect(text).toMatch(why);
        expect((r._meta as Record<string, { code: string }>)['hypruse/error'].code).toBe('refused.request_state');
        expect(await windowOpen(addr)).toBe(true);
      };
      // one character of the payload changed
      const altered = `${state.slice(0, 10)}${state[10] === 'A' ? 'B' : 'A'}${state.slice(11)}`;
      await refused('click_ui', args, altered, /altered or not issued by this server/);
      await refused('click_ui', args, 'forged.state', /altered or not issued by this server/);
      await refused('act', { action: 'click', name: 'Yes', window: addr }, state, /issued for "click_ui", not "act"/);
      await refused('click_ui', { name: 'No', window: addr }, state, /other arguments/);
      // an answer without a state approves nothing: the question is asked again
      const unsealed = (await raw.call('click_ui', args, { inputResponses: yes })).result as Record<string, unknown>;
      expect(unsealed.resultType).toBe('input_required');
      expect(await windowOpen(addr)).toBe(true);
      // the real answer clicks
      const done = (await raw.call('click_ui', args, { requestState: state, inputResponses: yes })).result as Record<string, unknown>;
      expect(done.isError, JSON.stringify(done)).toBeFalsy();
      await waitFor(async () => !(await windowOpen(addr)), scaledMs(10000), 'the dialog to close after the sealed Yes');
      // the same state again: refused
      const again = (await raw.call('click_ui', args, { requestState: state, inputResponses: yes })).result as Record<string, unknown>;
      expect(again.isError).toBe(true);
      expect((again.content as TextBlock[])[0].text).toMatch(/already answered once/);
    } finally {
      await raw.close();
    }
  }, 90000);

  it('the requestState expires with the confirmation time (mcp.confirmTimeoutS): answered after it, refused as expired and nothing is clicked', async () => {
    const raw = startRaw({ ...cfg, HYPRUSE_CONFIRM_TIMEOUT_S: '2' });
    try {
      const addr = await question(modern, 'expired');
      const args = { name: 'Yes', window: addr };
      const first = (await raw.call('click_ui', args)).result as Record<string, unknown>;
      expect(first.resultType, JSON.stringify(first)).toBe('input_required');
      // the server's own clock decides: 3 s of wall time is past a 2 s confirmation however loaded the machine is
      await new Promise((r) => setTimeout(r, 3000));
      const late = (await raw.call('click_ui', args, { requestState: String(first.requestState), inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } })).result as Record<string, unknown>;
      expect(late.isError, JSON.stringify(late)).toBe(true);
      expect((late.content as TextBlock[])[0].text).toMatch(/the requestState expired \d+ s ago \(a confirmation is good for 2 s\)/);
      expect((late._meta as Record<string, { code: string }>)['hypruse/error'].code).toBe('refused.request_state');
      expect(await windowOpen(addr)).toBe(true);
    } finally {
      await raw.close();
    }
  }, 90000);
});
