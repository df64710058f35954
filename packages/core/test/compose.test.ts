import { describe, expect, it } from 'vitest';
import { HypruseError, TrustError, composeLayers, defaultConfig, newSession, type TrustCall, type TrustLayer, type ToolResult } from '../src/index.js';

function call(): TrustCall {
  return {
    id: 1, tool: 't', kind: 'act', args: {}, rawArgs: {}, intent: async () => null, config: defaultConfig(), session: newSession(),
    services: { get: () => { throw new Error('none'); }, has: () => false }, signal: new AbortController().signal, dryRun: false,
    env: {}, parent: null, source: 'cli', allowAuth: false, confirmed: false, notes: [],
  };
}

const ok: ToolResult = { text: ['done'] };

describe('trust-layer onion', () => {
  it('runs layers outermost first by order, then the handler, and unwinds in reverse', async () => {
    const seen: string[] = [];
    const layer = (name: string, order: number): TrustLayer => ({
      name, order,
      async handle(_c, next) { seen.push(`>${name}`); const r = await next(); seen.push(`<${name}`); return r; },
    });
    const run = composeLayers([layer('b', 20), layer('a', 10), layer('c', 30)], async () => { seen.push('handler'); return ok; });
    await run(call());
    expect(seen).toEqual(['>a', '>b', '>c', 'handler', '<c', '<b', '<a']);
  });

  it('refuses a second next() call', async () => {
    const twice: TrustLayer = { name: 'twice', order: 1, async handle(_c, next) { await next(); return next(); } };
    let n = 0;
    const run = composeLayers([twice], async () => { n++; return ok; });
    await expect(run(call())).rejects.toThrow(/more than once/);
    expect(n).toBe(1);
  });

  it('fails closed: a guard that throws unexpectedly refuses and the handler never runs', async () => {
    const broken: TrustLayer = { name: 'broken', order: 1, async handle() { throw new TypeError('cannot read x of undefined'); } };
    let ran = false;
    const err = await composeLayers([broken], async () => { ran = true; return ok; })(call()).catch((e) => e);
    expect(ran).toBe(false);
    expect(err).toBeInstanceOf(TrustError);
    expect(err.category).toBe('refused');
    expect(err.code).toBe('refused.guard_failed');
    expect(err.message).toContain('broken');
  });

  it('lets refusals travel outward unchanged so outer layers (the journal) see them', async () => {
    const seen: unknown[] = [];
    const journal: TrustLayer = { name: 'journal', order: 1, async handle(_c, next) { try { return await next(); } catch (e) { seen.push(e); throw e; } } };
    const guard: TrustLayer = { name: 'guard', order: 2, async handle() { throw new TrustError({ layer: 'guard', reason: 'no', code: 'refused.confine' }); } };
    const err = await composeLayers([guard, journal], async () => ok)(call()).catch((e) => e);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBe(err);
    expect((err as HypruseError).code).toBe('refused.confine');
  });

  it('skips layers whose appliesTo is false, and runs them when appliesTo throws (fail closed)', async () => {
    const refuse: TrustLayer = { name: 'r', order: 1, appliesTo: () => false, async handle() { throw new TrustError({ layer: 'r', reason: 'x' }); } };
    expect(await composeLayers([refuse], async () => ok)(call())).toBe(ok);
    const weird: TrustLayer = { name: 'w', order: 1, appliesTo: () => { throw new Error('?'); }, async handle() { throw new TrustError({ layer: 'w', reason: 'x' }); } };
    await expect(composeLayers([weird], async () => ok)(call())).rejects.toThrow(/w: x/);
  });

  it('a plain error from the handler passes through layers unchanged (it is not a refusal)', async () => {
    const wrap: TrustLayer = { name: 'wrap', order: 1, async handle(_c, next) { return next(); } };
    const boom = new RangeError('handler broke');
    const err = await composeLayers([wrap], async () => { throw boom; })(call()).catch((e) => e);
    expect(err).toBe(boom);
  });
});
