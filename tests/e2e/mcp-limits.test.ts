// Every tool's result stays within what hosts take (Claude Code: 25,000 tokens, and it shows the model
// structuredContent rather than the text; Claude Desktop: 1 MB), over the built server on a real
// gtk3-widget-factory started with plain `launch`: once with the default limits, once with a limit of
// 1,000 tokens and 100 kB (image mode), where ui and get_text page and their pages, read to the end,
// give back exactly what the unlimited read gave. Images are image blocks or files, never base64 text.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireDesktop } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';

const desk = await requireDesktop();

const config = (extra: Record<string, unknown>) => {
  const file = join(mkdtempSync(join(tmpdir(), 'hypruse-limits-')), 'hypruse.json');
  writeFileSync(file, JSON.stringify({ a11y: { timeoutMs: 10000 }, takeoverMs: 0, ...extra }));
  return file;
};

type Block = { type: string; text?: string; data?: string; mimeType?: string };
type Raw = { content: Block[]; structuredContent?: Record<string, unknown>; isError?: boolean };

/** The limits a result must keep, measured as hosts do, with what it is. */
function assertWithin(what: string, raw: Raw, tokens: number, bytes: number): void {
  const chars = tokens * 3.5;
  const text = raw.content.filter((b) => b.type === 'text').map((b) => b.text ?? '');
  expect(text.join('').length, `${what}: text characters`).toBeLessThanOrEqual(chars);
  expect(JSON.stringify(raw.structuredContent ?? {}).length, `${what}: structuredContent characters`).toBeLessThanOrEqual(chars);
  expect(Buffer.byteLength(JSON.stringify(raw)), `${what}: bytes`).toBeLessThanOrEqual(bytes);
  for (const t of text) expect(t, `${what}: base64 inside text`).not.toMatch(/[A-Za-z0-9+/]{400,}/);
  for (const b of raw.content) if (b.type === 'image') expect(b.mimeType, what).toMatch(/^image\/(png|jpeg)$/);
}

describe.skipIf(!desk)('results within the hosts\' limits (the built server, a real gtk3-widget-factory)', () => {
  let full: Server;
  let small: Server;
  let addr = '';
  const calls: Array<{ server: 'full' | 'small'; tool: string; raw: Raw }> = [];
  const call = async (which: 'full' | 'small', tool: string, args: Record<string, unknown> = {}) => {
    const s = which === 'full' ? full : small;
    const r = await s.call(tool, args);
    calls.push({ server: which, tool, raw: r.raw as Raw });
    return r;
  };

  beforeAll(async () => {
    full = await startServer(desk!.env, { HYPRUSE_CONFIG: config({}) });
    small = await startServer(desk!.env, { HYPRUSE_CONFIG: config({ mcp: { maxResultTokens: 1000, maxResultBytes: 100_000 }, screenshot: { mode: 'image' } }) });
    const l = await call('full', 'launch', { command: 'gtk3-widget-factory', workspace: '3' });
    expect(l.isError, l.text.join('\n')).toBe(false);
    addr = String(l.data.address);
    // launch placed it on workspace 3 without showing it
    expect((await call('full', 'wm', { action: 'workspace', workspace: '3' })).isError).toBe(false);
  });
  afterAll(async () => {
    if (addr) await full?.call('wm', { action: 'close_window', target: addr }).catch(() => undefined);
    await full?.close();
    await small?.close();
  });

  it('ui and get_text page within 1,000 tokens, and their pages read to the end equal the whole read', async () => {
    const whole = await call('full', 'ui', { window: addr, actionable: false });
    expect(whole.isError, whole.text.join('\n')).toBe(false);
    const all = (whole.data.elements as Array<{ id: number }>).map((e) => e.id);
    // the small server's pages: a continuation each time, until none
    const seen: number[] = [];
    let after = 0;
    let pages = 0;
    for (; pages < 100; pages++) {
      const p = await call('small', 'ui', { window: addr, actionable: false, after });
      expect(p.isError, p.text.join('\n')).toBe(false);
      seen.push(...(p.data.elements as Array<{ id: number }>).map((e) => e.id));
      if (p.data.next_after === undefined) break;
      expect(p.text.at(-1)).toContain(`after=${p.data.next_after}`);
      after = p.data.next_after as number;
    }
    expect(pages, 'ui pages on the small limit').toBeGreaterThan(1);
    // every element, in order (a line of context may start the next page again)
    expect([...new Set(seen)]).toEqual(all);

    // the text view given a long text (an independent reader follows: the full server's unpaged read)
    const view = (whole.data.elements as Array<{ id: number; role: string; value?: string }>).find((e) => e.role === 'text' && typeof e.value === 'string' && e.value.startsWith('Lorem'))!;
    expect(view, whole.text.join('\n')).toBeDefined();
    const long = Array.from({ length: 300 }, (_, i) => `line ${i}: "quoted" text\twith a tab and accents éà`).join('\n');
    const set = await call('full', 'act', { action: 'set_text', id: view.id, text: long, window: addr });
    expect(set.isError, set.text.join('\n')).toBe(false);
    const text = await call('full', 'get_text', { id: view.id, window: addr, limit: 100000 });
    expect(text.isError, text.text.join('\n')).toBe(false);
    expect(text.data.text).toBe(long);
    let got = '';
    let offset = 0;
    let tpages = 0;
    for (; tpages < 100; tpages++) {
      const p = await call('small', 'get_text', { id: view.id, window: addr, limit: 100000, offset });
      expect(p.isError, p.text.join('\n')).toBe(false);
      got += p.data.text as string;
      if (p.data.next_offset === undefined) break;
      offset = p.data.next_offset as number;
    }
    expect(tpages, 'get_text pages on the small limit').toBeGreaterThan(3);
    expect(got).toBe(long);
  });

  it('every tool on both servers stays within its limits', async () => {
    for (const which of ['full', 'small'] as const) {
      const ok = async (tool: string, args: Record<string, unknown>) => {
        const r = await call(which, tool, args);
        expect(r.isError, `${which} ${tool}: ${r.text.join('\n')}`).toBe(false);
        return r;
      };
      await ok('desktop', {});
      const shot = await ok('screenshot', { window: addr });
      if (which === 'small') {
        // image mode, and the image would break 100 kB: it is a file, named in the text
        expect((shot.raw as Raw).content.some((b) => b.type === 'image')).toBe(false);
        expect(shot.text.join('\n')).toMatch(/saved, read this file to view it: \/\S+\.(jpg|png)/);
      }
      await ok('zoom', { x: 200, y: 200 });
      await ok('ui', { window: addr, format: 'flat', actionable: false });
      await ok('marks', { window: addr });
      await ok('get_text', { window: addr });
      await ok('binds', {});
      await ok('wait_for', { event: 'idle', window: addr, quiet_ms: 100, timeout_s: 20 });
      await ok('pointer', { action: 'move', x: 300, y: 300, then: 'ui' });
      await ok('keyboard', { action: 'key', keys: 'Tab', window: addr, then: 'ui' });
      await ok('click_ui', { name: 'checkbutton', role: 'check box', index: 0, window: addr, then: 'ui' });
      await ok('act', { action: 'focus', name: 'checkbutton', role: 'check box', index: 0, window: addr, then: 'ui' });
      await ok('sequence', { steps: [{ op: 'pointer', action: 'move', x: 310, y: 310 }], then: 'ui' });
      await ok('wm', { action: 'workspace', workspace: '3', then: 'desktop' });
      await ok('resume', {});
      // the tools this window offers nothing to: their refusals are within the limits too
      for (const [tool, args] of [['menu', { path: 'Nothing > Here', window: addr }], ['file_dialog', { path: 'relative/none' }], ['use_bind', { combo: 'SUPER+F24' }]] as const) {
        const r = await call(which, tool, args as Record<string, unknown>);
        expect(r.text.join('\n').length, `${which} ${tool}`).toBeGreaterThan(0);
      }
    }
    const tools = new Set(calls.map((c) => c.tool));
    expect([...tools].sort()).toEqual(['act', 'binds', 'click_ui', 'desktop', 'file_dialog', 'get_text', 'keyboard', 'launch', 'marks', 'menu', 'pointer', 'resume', 'screenshot', 'sequence', 'ui', 'use_bind', 'wait_for', 'wm', 'zoom']);
    for (const c of calls) assertWithin(`${c.server} ${c.tool}`, c.raw, c.server === 'full' ? 25_000 : 1000, c.server === 'full' ? 1_000_000 : 100_000);
  });
});
