import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync, mkdirSync, chmodSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { HypruseError, TrustError, composeLayers, defineTool, fact, result, type TrustLayer } from '@hypruse/core';
import {
  Journal, JournalFile, defaultJournalPath, digestText, journalLayer, journalSessionStart, journalSessionStop, readJournal, redactArgs,
  resolveJournalPath, summarize, summaryLine, type JournalRecord,
} from '../src/index.js';
import { fakeCall, fakeNext } from './fakes.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hypruse-journal-'));
});

const lines = (p: string): JournalRecord[] => readFileSync(p, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

describe('redaction', () => {
  it('replaces every string text key at any depth with length and a 12-hex sha256 prefix', () => {
    const args = { action: 'type', text: 'héllo wörld', steps: [{ tool: 'keyboard', args: { text: 'secret' } }], nested: { deep: { text: '🙂' } }, title: 'keep' };
    const r = redactArgs(args) as any;
    expect(r.text).toEqual({ redacted: true, chars: 11, sha256: createHash('sha256').update('héllo wörld', 'utf8').digest('hex').slice(0, 12) });
    expect(r.text.sha256).toMatch(/^[0-9a-f]{12}$/);
    expect(r.steps[0].args.text).toMatchObject({ redacted: true, chars: 6 });
    expect(r.nested.deep.text).toMatchObject({ chars: 1 });
    expect(r.title).toBe('keep');
    expect(args.text).toBe('héllo wörld'); // the call's own args are untouched
    expect(JSON.stringify(r)).not.toContain('secret');
    // sha256("secret") = 2bb80d537b1da3e3...
    expect(r.steps[0].args.text.sha256).toBe('2bb80d537b1d');
  });
});

describe('paths', () => {
  it('defaults to $XDG_STATE_HOME/hypruse/journal.ndjson, else ~/.local/state', () => {
    expect(defaultJournalPath({ XDG_STATE_HOME: '/s', HOME: '/h' })).toBe('/s/hypruse/journal.ndjson');
    expect(defaultJournalPath({ HOME: '/h' })).toBe('/h/.local/state/hypruse/journal.ndjson');
    expect(resolveJournalPath(null, {})).toBeNull();
    expect(resolveJournalPath('default', { HOME: '/h' })).toBe('/h/.local/state/hypruse/journal.ndjson');
    expect(resolveJournalPath('~/j.ndjson', { HOME: '/h' })).toBe('/h/j.ndjson');
  });
});

describe('journal file', () => {
  it('creates the file 0600 in a directory it creates 0700', async () => {
    const d = join(dir, 'state', 'hypruse');
    const f = new JournalFile(join(d, 'journal.ndjson'), 0);
    await f.append({ v: 1, seq: await f.nextSeq(), ts: new Date().toISOString(), kind: 'observe' });
    expect(statSync(d).mode & 0o777).toBe(0o700);
    expect(statSync(f.path).mode & 0o777).toBe(0o600);
    expect(statSync(f.seqPath).mode & 0o777).toBe(0o600);
    expect(existsSync(f.lockPath)).toBe(false);
  });

  it('never changes the mode of a directory that already existed (HYPRUSE_JOURNAL=/tmp/j.ndjson must not close /tmp)', async () => {
    const shared = join(dir, 'shared');
    mkdirSync(shared, { recursive: true });
    chmodSync(shared, 0o1777);
    const f = new JournalFile(join(shared, 'journal.ndjson'), 0);
    await f.append({ v: 1, seq: await f.nextSeq(), ts: new Date().toISOString(), kind: 'observe' });
    expect(statSync(shared).mode & 0o7777).toBe(0o1777);
    expect(statSync(f.path).mode & 0o777).toBe(0o600);
  });

  it('issues unique seq numbers across independent writers (separate instances share only the files)', async () => {
    const p = join(dir, 'j.ndjson');
    const writers = Array.from({ length: 4 }, () => new JournalFile(p, 0));
    const seqs = await Promise.all(Array.from({ length: 60 }, (_, i) => writers[i % 4].nextSeq()));
    // and records appended concurrently by all of them land whole, one per line
    await Promise.all(seqs.map((seq, i) => writers[i % 4].append({ v: 1, seq, ts: 'x', kind: 'act', result: 'y'.repeat(500) })));
    expect(lines(p).map((r) => r.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(new Set(seqs).size).toBe(60);
    expect(Math.max(...seqs)).toBe(60);
  });

  it('resumes numbering from the journal tail when the counter is missing', async () => {
    const p = join(dir, 'j.ndjson');
    writeFileSync(p, `${JSON.stringify({ v: 1, seq: 41, ts: 'x', kind: 'act' })}\n${JSON.stringify({ v: 1, seq: 40, ts: 'x', kind: 'act' })}\n`);
    expect(await new JournalFile(p, 0).nextSeq()).toBe(42);
  });

  it('steals a lock left by a dead process', async () => {
    const p = join(dir, 'j.ndjson');
    const f = new JournalFile(p, 0);
    writeFileSync(f.lockPath, '2147483646');
    const t0 = Date.now();
    expect(await f.nextSeq()).toBe(1);
    expect(Date.now() - t0).toBeLessThan(500);
  });

  it('rotates at maxBytes keeping exactly one .1 generation', async () => {
    const p = join(dir, 'j.ndjson');
    const f = new JournalFile(p, 300);
    for (let i = 1; i <= 12; i++) await f.append({ v: 1, seq: i, ts: '2026-01-01T00:00:00.000Z', kind: 'act', tool: 'pointer', result: 'x'.repeat(40) });
    expect(statSync(p).size).toBeLessThanOrEqual(300);
    expect(existsSync(`${p}.1`)).toBe(true);
    expect(existsSync(`${p}.2`)).toBe(false);
    const all = [...lines(`${p}.1`), ...lines(p)].map((r) => r.seq);
    expect(all).toEqual(all.slice().sort((a, b) => a - b));
    expect(all.at(-1)).toBe(12);
  });
});

describe('journal layer', () => {
  const cfg = (text = false) => ({ journal: { path: join(dir, 'j.ndjson'), text, maxBytes: 0 } });
  const runJ = (layers: TrustLayer[], call: ReturnType<typeof fakeCall>, handler = async () => ({ text: ['typed 5 characters into 0xa'] })) =>
    composeLayers([journalLayer, ...layers], handler)(call);

  const typing = defineTool({
    name: 'keyboard', title: 'k', description: 'k', kind: 'act',
    input: z.object({ action: z.enum(['type', 'key']), text: z.string().default(''), window: fact(z.string()).default(''), steps: z.array(z.object({ op: z.enum(['keyboard']) }).catchall(z.unknown())).default([]) }).strict(),
    output: z.strictObject({ action: z.literal('type'), chars: z.number(), window: fact(z.string()), verified: z.boolean(), field: z.string().optional() }),
    async handle() { return result('x').build(); },
  });
  const mismatch = async () => ({ text: ['typed 5 characters into 0xa; WARNING: the field now holds "hello there"'], data: { action: 'type', chars: 5, window: '0xa', verified: false, field: 'hello there' } });

  it('text off: arguments and result data along their schemas (facts kept, text digested), no headline, notes kept', async () => {
    const call = fakeCall({ tool: 'keyboard', definition: typing, rawArgs: { action: 'type', text: 'hello', window: '0xa' }, config: cfg(), source: 'cli' });
    const noter: TrustLayer = { name: 'n', order: 50, async handle(c, next) { c.notes.push('NOTE: hi'); return next(); } };
    await runJ([noter], call, mismatch);
    const [r] = lines(join(dir, 'j.ndjson'));
    expect(r).toMatchObject({ v: 1, kind: 'act', tool: 'keyboard', outcome: 'ok', notes: ['NOTE: hi'], source: 'cli' });
    expect(r.result).toBeUndefined();
    expect(r.args).toEqual({ action: 'type', text: { redacted: true, chars: 5, sha256: digestText('hello').sha256 }, window: '0xa' });
    expect(r.facts).toEqual({ action: 'type', chars: 5, window: '0xa', verified: false, field: digestText('hello there') });
    expect(readFileSync(join(dir, 'j.ndjson'), 'utf8')).not.toMatch(/hello/);
    expect(r.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(typeof r.ms).toBe('number');
    expect(r.seq).toBe(1);
  });

  it('text off: a string outside a fact or a closed set is text, whatever its field (no schema, unknown keys, a value off the enum, step arguments)', async () => {
    await runJ([], fakeCall({ tool: 'keyboard', rawArgs: { action: 'type', text: 'hello' }, config: cfg() }));
    await runJ([], fakeCall({ tool: 'keyboard', definition: typing, rawArgs: { action: 'hello typed here', window: 'not an address? hello', extra: 'hello', steps: [{ op: 'keyboard', action: 'type', text: 'hello' }] }, config: cfg() }));
    const [a, b] = lines(join(dir, 'j.ndjson'));
    expect(a.args).toEqual({ action: digestText('type'), text: digestText('hello') });
    expect(b.args!.action).toEqual(digestText('hello typed here'));
    expect(b.args!.extra).toEqual(digestText('hello'));
    expect(b.args!.steps).toEqual([{ op: 'keyboard', action: digestText('type'), text: digestText('hello') }]);
    expect(b.args!.window).toEqual('not an address? hello'); // a fact field keeps any string that fits it
    expect(JSON.stringify(a)).not.toMatch(/hello/);
  });

  it('records text, the headline and notes verbatim with journal.text', async () => {
    await runJ([], fakeCall({ tool: 'keyboard', definition: typing, rawArgs: { text: 'hello' }, config: cfg(true) }), mismatch);
    const [r] = lines(join(dir, 'j.ndjson'));
    expect(r.args).toEqual({ text: 'hello' });
    expect(r.result).toBe('typed 5 characters into 0xa; WARNING: the field now holds "hello there"');
    expect(r.facts).toBeUndefined();
  });

  it('text off: error messages lose quoted spans and every text taken out of the record', async () => {
    const guard: TrustLayer = { name: 'x', order: 50, async handle() { throw new HypruseError('not_found.element', `typed hello, then no control named 'Save hello' in gedit "notes: hello"`); } };
    await runJ([guard], fakeCall({ tool: 'keyboard', definition: typing, rawArgs: { action: 'type', text: 'hello' }, config: cfg() })).catch(() => undefined);
    await runJ([guard], fakeCall({ tool: 'keyboard', definition: typing, rawArgs: { action: 'type', text: 'hello' }, config: cfg(true) })).catch(() => undefined);
    const [off, on] = lines(join(dir, 'j.ndjson'));
    expect(off.error).toBe(`HypruseError: typed <5 chars>, then no control named '<10 chars>' in gedit "<12 chars>"`);
    expect(on.error).toBe(`HypruseError: typed hello, then no control named 'Save hello' in gedit "notes: hello"`);
  });

  it('records refusals and errors, and lets them travel on unchanged', async () => {
    const guard: TrustLayer = { name: 'confine', order: 50, async handle() { throw new TrustError({ layer: 'confine', code: 'refused.confine', reason: 'out of scope' }); } };
    const e1 = await runJ([guard], fakeCall({ config: cfg() })).catch((e) => e);
    expect(e1.code).toBe('refused.confine');
    const e2 = await runJ([], fakeCall({ config: cfg() }), async () => { throw new HypruseError('error.input', 'wtype died'); }).catch((e) => e);
    expect(e2.code).toBe('error.input');
    const [a, b] = lines(join(dir, 'j.ndjson'));
    expect(a).toMatchObject({ outcome: 'refused', error: 'TrustError: confine: out of scope', code: 'refused.confine' });
    expect(a.result).toBeUndefined();
    expect(b).toMatchObject({ outcome: 'error', error: 'HypruseError: wtype died', code: 'error.input' });
  });

  it('never records what an observation saw, marks dry runs, replays and nested calls', async () => {
    const parent = fakeCall({ tool: 'sequence', config: cfg() });
    await runJ([], parent, async () => {
      await runJ([], fakeCall({ tool: 'pointer', parent, config: cfg(), dryRun: true, source: 'replay' }), async () => ({ text: ['DRY RUN'] }));
      return { text: ['2 steps'] };
    });
    await runJ([], fakeCall({ tool: 'screenshot', kind: 'observe', config: cfg() }), async () => ({ text: ['saved /run/x.jpg'], image: { data: Buffer.from('img'), mime: 'image/jpeg' } }));
    const rs = lines(join(dir, 'j.ndjson'));
    const step = rs.find((r) => r.tool === 'pointer')!;
    const seq = rs.find((r) => r.tool === 'sequence')!;
    expect(step).toMatchObject({ parent: seq.seq, dry: true, by: 'replay' });
    expect(seq.seq).toBeLessThan(step.seq); // issue order: the parent is numbered first, written last
    const obs = rs.find((r) => r.tool === 'screenshot')!;
    expect(obs).toMatchObject({ kind: 'observe', outcome: 'ok' });
    expect(obs.result).toBeUndefined();
    expect(JSON.stringify(obs)).not.toContain('run/x.jpg');
  });

  it('a failing recorder never blocks the action and warns once', async () => {
    writeFileSync(join(dir, 'file'), 'x');
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const bad = { journal: { path: join(dir, 'file', 'j.ndjson'), text: false, maxBytes: 0 } };
      const next = fakeNext({ text: ['clicked'] });
      for (let i = 0; i < 3; i++) expect((await journalLayer.handle(fakeCall({ config: bad }), next)).text).toEqual(['clicked']);
      expect(next.calls).toBe(3);
      const warnings = stderr.mock.calls.map((c) => String(c[0])).filter((s) => s.includes('journal'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/actions continue unrecorded/);
    } finally {
      stderr.mockRestore();
    }
  });

  it('is off when journal.path is null', () => {
    expect(journalLayer.appliesTo!(fakeCall())).toBe(false);
  });
});

describe('session records, reader', () => {
  it('writes start/stop records with the mode settings, and the reader summarizes and skips torn lines', async () => {
    const config = { ...fakeCall().config, confine: ['launched'], strict: true, journal: { path: join(dir, 'j.ndjson'), text: false, maxBytes: 0 } };
    await journalSessionStart(config, '0.1.0');
    await composeLayers([journalLayer], async () => ({ text: ['ok'] }))(fakeCall({ config, dryRun: true }));
    await composeLayers([journalLayer], async () => ({ text: ['ok'] }))(fakeCall({ config, kind: 'observe', tool: 'desktop' }));
    await journalSessionStop(config, '0.1.0');
    const p = join(dir, 'j.ndjson');
    writeFileSync(p, `${readFileSync(p, 'utf8')}{"v":1,"seq":9,"ts":"2026`, { flag: 'w' });
    const { records, skipped } = await readJournal(p);
    expect(skipped).toBe(1);
    expect(records[0]).toMatchObject({ kind: 'session', event: 'start', pid: process.pid, version: '0.1.0', mode: { confine: ['launched'], strict: true, auth_guard: 'on', text_recorded: false } });
    expect(records.at(-1)).toMatchObject({ kind: 'session', event: 'stop' });
    expect(summaryLine(summarize(records))).toBe('1 action (1 dry), 1 observation, 0 refusals, 0 errors');
  });

  it('a missing journal is a clear error with the hint to turn it on', async () => {
    const e = await readJournal(join(dir, 'none.ndjson')).catch((x) => x);
    expect(e.code).toBe('error.journal');
    expect(e.hint).toMatch(/HYPRUSE_JOURNAL=1/);
  });

  it('Journal.seq returns null instead of throwing on an unwritable path', async () => {
    writeFileSync(join(dir, 'f'), '');
    const j = new Journal(join(dir, 'f', 'x.ndjson'), 0, () => undefined);
    expect(await j.seq()).toBeNull();
  });
});

afterEach(() => vi.restoreAllMocks());
