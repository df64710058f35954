import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Pipeline, Tokens, ToolRegistry, defineTool, newSession, stderrLogger, type HypruseConfig, type Input } from '@hypruse/core';
import { ALL_LAYERS, createLockLayer } from '../src/index.js';
import { config, desktop, fakeCompositor, win, type FakeCompositor } from './fakes.js';

/** A pointer-like tool: intent from args, delivery through the Input backend. */
function tools(delivered: string[]) {
  const click = defineTool({
    name: 'pointer', title: 'Pointer', description: 'click', kind: 'act',
    input: z.object({ x: z.number(), y: z.number(), name: z.string().optional(), window: z.string().optional() }),
    intent: (a) => ({ summary: `click left at (${a.x}, ${a.y})`, input: 'pointer', points: [{ x: a.x, y: a.y }], ...(a.name ? { control: { role: 'push button', name: a.name } } : {}), ...(a.window ? { windows: [a.window] } : {}) }),
    async handle(a, ctx) {
      await ctx.services.get(Tokens.Input).click('left', 1);
      delivered.push(`click ${a.x},${a.y}`);
      return { text: [`clicked at (${a.x}, ${a.y})`] };
    },
  });
  const type = defineTool({
    name: 'keyboard', title: 'Keyboard', description: 'type', kind: 'act',
    input: z.object({ text: z.string() }),
    intent: (a) => ({ summary: `type ${a.text.length} characters`, input: 'keyboard', text: a.text, focusedWindow: true }),
    async handle(a, ctx) {
      await ctx.services.get(Tokens.Input).type(a.text);
      delivered.push(`type ${a.text}`);
      return { text: [`typed ${a.text.length} characters`] };
    },
  });
  const look = defineTool({
    name: 'desktop', title: 'Desktop', description: 'look', kind: 'observe', input: z.object({}),
    async handle() { return { text: ['1 window'] }; },
  });
  return [click, type, look];
}

function pipeline(over: Partial<HypruseConfig>, comp: FakeCompositor, delivered: string[]) {
  const input = { click: async () => undefined, type: async () => undefined, releaseAll: async () => undefined } as unknown as Input;
  const svc = new Map<symbol, unknown>([[Tokens.Compositor, comp], [Tokens.Input, input], [Tokens.Logger, stderrLogger('error')]]);
  const session = newSession();
  const layers = ALL_LAYERS.map((l) => (l.name === 'lock' ? createLockLayer({ logind: async () => null, locker: async () => null }, {}) : l))
    .filter((l) => l.name !== 'beacon');
  return {
    session,
    p: new Pipeline({
      config: config(over), session, registry: new ToolRegistry(tools(delivered), { id: 'fake' }), layers, source: 'cli', logger: stderrLogger('error'),
      services: { get: <T,>(t: symbol) => svc.get(t) as T, has: (t) => svc.has(t) },
    }),
  };
}

const mine = win('0xa', 'zenity', 0, 0, 400, 300, { focused: true });
const other = win('0xb', 'firefox', 500, 0, 400, 300);

describe('the whole onion through the pipeline', () => {
  it('dry run: every guard runs first (an out-of-scope click is refused), an in-scope one is rehearsed and nothing delivered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hypruse-onion-'));
    const journal = { path: join(dir, 'j.ndjson'), text: false, maxBytes: 0 };
    const delivered: string[] = [];
    const { p, session } = pipeline({ dryRun: true, confine: ['launched'], journal }, fakeCompositor(desktop([mine, other])), delivered);
    session.launched.add('0xa');
    const e = await p.call('pointer', { x: 600, y: 100 }).catch((x) => x);
    expect(e.code).toBe('refused.confine');
    const r = await p.call('pointer', { x: 100, y: 100 });
    expect(r.text[0]).toBe('DRY RUN, nothing was delivered: would click left at (100, 100)');
    expect(delivered).toEqual([]);
    const recs = readFileSync(journal.path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(recs.map((x) => [x.outcome, x.dry, x.source])).toEqual([['refused', true, 'cli'], ['ok', true, 'cli']]);
  });

  it('delivers exactly once through every layer when nothing objects', async () => {
    const delivered: string[] = [];
    const { p } = pipeline({ strict: true, policy: { zenity: 'full' } }, fakeCompositor(desktop([mine, other])), delivered);
    await p.call('desktop', {});
    await p.call('keyboard', { text: 'hello' });
    expect(delivered).toEqual(['type hello']);
  });

  it('fails closed: a guard whose compositor read throws a plain error refuses (guard_failed), nothing delivered', async () => {
    const comp = fakeCompositor(desktop([mine]));
    comp.snapshotError = new TypeError('cannot read properties of undefined');
    const delivered: string[] = [];
    const { p } = pipeline({ confine: ['class:zenity'], authGuard: 'off' }, comp, delivered);
    const e = await p.call('pointer', { x: 1, y: 1 }).catch((x) => x);
    expect(e.category).toBe('refused');
    expect(e.code).toBe('refused.guard_failed');
    expect(e.message).toMatch(/^confine:/);
    expect(delivered).toEqual([]);
  });

  it('a dangerous control refuses over the CLI (no elicitation) and goes through with confirm', async () => {
    const delivered: string[] = [];
    const { p } = pipeline({}, fakeCompositor(desktop([mine])), delivered);
    const e = await p.call('pointer', { x: 5, y: 5, name: 'Delete forever' }).catch((x) => x);
    expect(e.code).toBe('refused.dangerous');
    expect(delivered).toEqual([]);
    const asked: string[] = [];
    await p.call('pointer', { x: 5, y: 5, name: 'Delete forever' }, { confirm: async (m) => (asked.push(m), true) });
    expect(asked).toHaveLength(1);
    expect(delivered).toEqual(['click 5,5']);
  });

  it('notes from layers reach the result headline', async () => {
    const comp = fakeCompositor(desktop([mine], { layers: [{ namespace: 'wofi', kind: 'launcher', level: 'overlay', monitor: null, geometry: { x: 0, y: 0, width: 800, height: 600 }, keyboardInteractive: true }] }));
    const delivered: string[] = [];
    const { p } = pipeline({}, comp, delivered);
    const r = await p.call('keyboard', { text: 'fire' });
    expect(r.text[0]).toBe("typed 4 characters; NOTE: the launcher layer 'wofi' holds the keyboard grab, so the keys went to it, not to the focused window");
  });
});
