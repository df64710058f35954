// The result guard of the MCP adapter: text cut at the host's limit with the whole text in a private
// file the note names (and continuing exactly where the shown text stops), structured JSON shortened
// only into shapes the tool's schema accepts, an image that would break the byte limit saved as a file.
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fitResult, charLimit, toolTextBudget } from '../../packages/core/src/adapters/mcp/limits.js';

const limits = { maxTokens: 1000, maxBytes: 100_000 };
const max = charLimit(limits);
const dir = () => mkdtempSync(join(tmpdir(), 'hypruse-limits-'));
const text = (blocks: Array<{ type: string; text?: string }>) => blocks.filter((b) => b.type === 'text').map((b) => b.text!);

describe('MCP result guard', () => {
  it('counts characters / 3.5 and leaves paging tools room below the limit', () => {
    expect(charLimit({ maxTokens: 25_000, maxBytes: 1 })).toBe(87_500);
    expect(toolTextBudget({ maxTokens: 25_000, maxBytes: 1 })).toBeLessThan(87_500);
  });

  it('leaves a result within the limits untouched', () => {
    const content = [{ type: 'text' as const, text: 'a'.repeat(max - 40) }];
    const r = fitResult('t', content, { text: [content[0].text] }, limits, { env: { XDG_RUNTIME_DIR: dir() }, valid: () => true });
    expect(r.cuts).toEqual([]);
    expect(r.content).toEqual(content);
  });

  it('cuts long text at a line, names the file with the whole text and the offset where the rest starts', () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i} ${'x'.repeat(i % 50)}`);
    const blocks = [{ type: 'text' as const, text: 'headline' }, { type: 'text' as const, text: lines.join('\n') }];
    const rt = dir();
    const r = fitResult('get_text', blocks, { text: blocks.map((b) => b.text) }, limits, { env: { XDG_RUNTIME_DIR: rt }, valid: () => true });
    const shown = text(r.content);
    expect(shown.join('').length).toBeLessThanOrEqual(max);
    const note = shown.at(-1)!;
    const m = /the whole text is in (\S+): read it from character (\d+) on \(offset=\2\)/.exec(note);
    expect(m, note).not.toBeNull();
    const file = m![1];
    expect(file.startsWith(join(rt, 'hypruse', 'results'))).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(rt, 'hypruse', 'results')).mode & 0o777).toBe(0o700);
    const whole = readFileSync(file, 'utf8');
    expect(whole).toBe(blocks.map((b) => b.text).join('\n'));
    // what is shown, then the file from the offset, is the whole text
    expect(shown.slice(0, -1).join('\n') + whole.slice(Number(m![2]))).toBe(whole);
    expect(shown[1].endsWith(lines[shown[1].split('\n').length - 1])).toBe(true);
    // a tool without structured data gets the same cut text (hosts show that instead)
    expect((r.structuredContent as { text: string[] }).text).toEqual(shown);
  });

  it('shortens long structured lists only into what the schema accepts', () => {
    const items = Array.from({ length: 3000 }, (_, i) => ({ id: i, name: `element ${i}` }));
    const r = fitResult('ui', [{ type: 'text', text: 'short' }], { elements: items, window: 'w' }, limits, { env: { XDG_RUNTIME_DIR: dir() }, valid: (v) => typeof v.window === 'string' });
    expect(JSON.stringify(r.structuredContent).length).toBeLessThanOrEqual(max);
    const kept = r.structuredContent.elements as typeof items;
    expect(kept.length).toBeGreaterThan(10);
    expect(kept).toEqual(items.slice(0, kept.length));
    expect(text(r.content).at(-1)).toMatch(/structured result held \d+ characters/);
    // a schema that refuses every shorter form keeps the result whole rather than break it
    const refused = fitResult('ui', [{ type: 'text', text: 'short' }], { elements: items }, limits, { env: { XDG_RUNTIME_DIR: dir() }, valid: () => false });
    expect(refused.structuredContent.elements).toHaveLength(3000);
  });

  it('an image that would break the byte limit is saved as a file, never put into text as base64', () => {
    const data = Buffer.alloc(90_000, 7).toString('base64');
    const rt = dir();
    const r = fitResult('screenshot', [{ type: 'image', data, mimeType: 'image/jpeg' }, { type: 'text', text: 'meta' }], { path: null }, limits, { env: { XDG_RUNTIME_DIR: rt }, valid: () => true });
    expect(r.content.some((b) => b.type === 'image')).toBe(false);
    const t = text(r.content).join('\n');
    const file = /read this file to view it: (\S+)/.exec(t)![1];
    expect(readFileSync(file)).toEqual(Buffer.alloc(90_000, 7));
    expect(t).not.toContain(data.slice(0, 100));
    expect(Buffer.byteLength(JSON.stringify(r))).toBeLessThan(limits.maxBytes);
    // a small image stays an image block
    const small = fitResult('screenshot', [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }], {}, limits, { env: { XDG_RUNTIME_DIR: rt }, valid: () => true });
    expect(small.content[0].type).toBe('image');
  });
});
