// With journal text off, no part of a text argument reaches the journal:
// canaries of every length around each text field's limit (limit-1, limit,
// limit+1, far over), holding quotes, backslashes, newlines and non-ASCII,
// go through every text-bearing tool (keyboard type, act set_text, clipboard
// write, sequence steps, file_dialog path, wait_for text, ui name) over the
// real MCP server; the journal is read from disk and the monitor page's feed
// over HTTP, and neither holds any 8-character run of any canary. The server
// runs in dry run and confined to its own windows, so nothing is typed.
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireDesktop, waitFor } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';

const desk = await requireDesktop();

const dir = mkdtempSync(join(tmpdir(), 'hypruse-sec-journal-'));
const JOURNAL = join(dir, 'journal.ndjson');
const CONFIG = join(dir, 'hypruse.json');
writeFileSync(CONFIG, JSON.stringify({ journal: { path: JOURNAL, text: false, maxBytes: 0 }, monitor: { serve: true, fps: 1 }, dryRun: true, confine: ['launched'], clipboard: true, takeoverMs: 0 }));

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"\'\\\n\t `<>{}[]:;,.-=éüß日本語Ωж';

/** A canary of exactly `length` UTF-16 units: a marker prefix, then random characters (quotes, newlines, non-ASCII among them). */
function canary(tag: string, length: number): string {
  const head = `PASSWORD=hunter2-TOPSECRET-${tag}-`;
  const bytes = randomBytes(length);
  let s = head;
  for (let i = 0; s.length < length; i++) s += ALPHABET[bytes[i % bytes.length]! % ALPHABET.length];
  return s.slice(0, length);
}

/** Every run of `n` characters of `s`, checked against a set of runs of the stored text. */
function leaks(stored: string, s: string, n = 8): string[] {
  const runs = new Set<string>();
  for (let i = 0; i + n <= stored.length; i++) runs.add(stored.slice(i, i + n));
  const out: string[] = [];
  for (let i = 0; i + n <= s.length && out.length < 3; i++) if (runs.has(s.slice(i, i + n))) out.push(s.slice(i, i + n));
  return out;
}

/** All the strings of a parsed record, joined (so JSON escapes do not hide a leak), and the raw line too. */
function storedText(lines: string[]): string {
  const parts: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') parts.push(v);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  for (const l of lines) {
    parts.push(l);
    walk(JSON.parse(l));
  }
  return parts.join('\u0000');
}

/** The monitor page's feed: the `hello` event of /events holds the journal's records as the page shows them. */
function feedRecords(url: string): Promise<unknown[]> {
  const u = new URL(`${url}events`);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, headers: { Host: u.host }, timeout: 20000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        body += d;
        const m = /event: hello\ndata: (.*)\n\n/.exec(body);
        if (m) {
          req.destroy();
          resolve((JSON.parse(m[1]!) as { records: unknown[] }).records);
        }
      });
    });
    req.on('error', (e) => (/socket hang up|aborted/.test(e.message) ? undefined : reject(e)));
    req.end();
  });
}

interface Case {
  name: string;
  limit: number;
  args: (text: string) => [string, Record<string, unknown>];
}

const CASES: Case[] = [
  { name: 'keyboard type', limit: 20000, args: (t) => ['keyboard', { action: 'type', text: t }] },
  { name: 'act set_text', limit: 20000, args: (t) => ['act', { action: 'set_text', name: 'Password', text: t }] },
  { name: 'clipboard write', limit: 1_000_000, args: (t) => ['clipboard', { action: 'write', text: t }] },
  { name: 'sequence keyboard step', limit: 20000, args: (t) => ['sequence', { steps: [{ op: 'keyboard', action: 'type', text: t }], then: 'none' }] },
  { name: 'sequence act step', limit: 20000, args: (t) => ['sequence', { steps: [{ op: 'act', action: 'set_text', name: 'Password', text: t }], then: 'none' }] },
  { name: 'file_dialog path', limit: 4096, args: (t) => ['file_dialog', { path: `/home/x/${t}`.slice(0, t.length) }] },
  { name: 'wait_for text', limit: 200, args: (t) => ['wait_for', { event: 'element', name: 'Password', text: t, timeout_s: 1 }] },
  { name: 'ui name', limit: 200, args: (t) => ['ui', { name: t }] },
];

describe.skipIf(!desk)('the journal keeps no part of a text argument (journal.text off)', () => {
  let server: Server;
  let url = '';
  let stderr = '';
  const sent: Array<{ label: string; text: string }> = [];

  beforeAll(async () => {
    server = await startServer(desk!.env, { HYPRUSE_CONFIG: CONFIG });
    server.transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    url = (await waitFor(() => /monitor page: (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]+\/)/.exec(stderr)?.[1], 20000, 'the monitor address on stderr'))!;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('every text-bearing tool, canaries at limit-1, limit, limit+1 and far over: no 8-character run in the journal file or the page feed', async () => {
    let n = 0;
    for (const c of CASES) {
      for (const length of [c.limit - 1, c.limit, c.limit + 1, c.limit * 3 + 7]) {
        const text = canary(`${n++}`, length);
        const [tool, args] = c.args(text);
        const r = await server.call(tool, args);
        sent.push({ label: `${c.name} (${length})`, text });
        // nothing was delivered: over the limit a usage error, within it refused (confined) or a dry run
        if (tool !== 'ui' && tool !== 'wait_for') expect(r.isError || r.text.join(' ').includes('DRY RUN'), `${c.name} ${length}: ${r.text.join(' ').slice(0, 200)}`).toBe(true);
        if (length > c.limit) expect(r.isError, `${c.name} ${length}`).toBe(true);
      }
    }
    // a usage error of an over-long text says its length, never its start
    const over = await server.call('keyboard', { action: 'type', text: canary('x', 20001) });
    expect(over.text.join(' ')).toMatch(/a text of 20001 characters/);
    expect(over.text.join(' ')).not.toContain('hunter2');

    const lines = await waitFor(() => {
      const l = existsSync(JOURNAL) ? readFileSync(JOURNAL, 'utf8').trim().split('\n').filter(Boolean) : [];
      return l.length >= sent.length + 1 ? l : null;
    }, 20000, 'every call in the journal');
    const onDisk = storedText(lines);
    expect(onDisk).not.toMatch(/hunter2|TOPSECRET|PASSWORD=/);
    for (const s of sent) expect(leaks(onDisk, s.text), s.label).toEqual([]);
    // the records are there, with the error codes and the text as length and digest
    const recs = lines.map((l) => JSON.parse(l) as Record<string, any>);
    expect(recs.filter((r) => r.code === 'usage.arguments').length).toBeGreaterThanOrEqual(CASES.length * 2);
    expect(recs.find((r) => r.tool === 'keyboard')?.args.text).toMatchObject({ redacted: true, chars: 19999 });

    const feed = await feedRecords(url);
    expect(feed.length).toBeGreaterThan(0);
    const onPage = storedText(feed.map((r) => JSON.stringify(r)));
    expect(onPage).not.toMatch(/hunter2|TOPSECRET|PASSWORD=/);
    for (const s of sent) expect(leaks(onPage, s.text), s.label).toEqual([]);
  });
});
