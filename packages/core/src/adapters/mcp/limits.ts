/**
 * Tool results within what hosts take: Claude Code drops a result over 25,000 tokens (by default) and
 * passes the model `structuredContent` instead of the text when both are present; Claude Desktop refuses
 * a result over 1 MB. Tools that page (ui, get_text) are given a character budget and page themselves;
 * this guard cuts whatever still exceeds the limits, says so in the result and how to read the rest, and
 * moves an inline image that would break the byte limit into a file. Images are never put into text.
 */
import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, privateRuntimeDir, writeFileExclusiveSync } from '../../private-files.js';

/** Characters per token the guard counts with (a low estimate for English text and JSON, so it errs safe). */
export const CHARS_PER_TOKEN = 3.5;

export interface ResultLimits {
  /** Tokens the host takes in one result (its text, or its structuredContent). */
  maxTokens: number;
  /** Bytes of the whole serialized result. */
  maxBytes: number;
}

/** Characters a result's text (and, separately, its structuredContent JSON) may hold. */
export function charLimit(l: ResultLimits): number {
  return Math.floor(l.maxTokens * CHARS_PER_TOKEN);
}

/**
 * The characters a paging tool is asked to keep its text within: the limit less room for the headline,
 * a follow-up observation's header and the guard's own notes.
 */
export function toolTextBudget(l: ResultLimits): number {
  return Math.max(1000, Math.floor(charLimit(l) * 0.9));
}

export type Block = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string };

export interface Fitted {
  content: Block[];
  structuredContent: Record<string, unknown>;
  /** What was done, for tests and the log (empty when the result fitted). */
  cuts: string[];
}

/** Where the whole text of a cut result, or an image moved out of a result, is kept (a private 0700 folder, 0600 files, newest 20). */
function keepFile(env: NodeJS.ProcessEnv | null, tool: string, ext: string, data: string | Buffer): string | null {
  if (!env) return null;
  try {
    const d = ensurePrivateDir(join(privateRuntimeDir(env), 'results'));
    const path = join(d, `${tool}-${Date.now()}-${process.pid}-${++seq}.${ext}`);
    writeFileExclusiveSync(path, data);
    const old = readdirSync(d)
      .map((f) => join(d, f))
      .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);
    for (const f of old.slice(0, Math.max(0, old.length - 20))) unlinkSync(f);
    return path;
  } catch {
    return null;
  }
}
let seq = 0;

const textLength = (blocks: Block[]) => blocks.reduce((n, b) => n + (b.type === 'text' ? b.text.length : 0), 0);

/** `text` cut to at most `max` characters, at a line end when one is near. */
function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const nl = text.lastIndexOf('\n', max);
  return text.slice(0, nl > max * 0.8 ? nl : max);
}

/**
 * The longest arrays and strings of `value` shortened until its JSON fits `max` characters; `valid` says
 * whether a candidate still matches the tool's output schema (a cut that breaks it is not taken).
 */
function shrinkJson(value: Record<string, unknown>, max: number, valid: (v: Record<string, unknown>) => boolean): Record<string, unknown> | null {
  const cur = structuredClone(value);
  for (let round = 0; round < 60 && JSON.stringify(cur).length > max; round++) {
    // the biggest cuttable member anywhere (by its JSON length)
    let best: { holder: Record<string, unknown> | unknown[]; key: string | number; size: number } | null = null;
    const visit = (holder: Record<string, unknown> | unknown[], key: string | number, v: unknown) => {
      if (typeof v === 'string' || Array.isArray(v)) {
        const size = JSON.stringify(v).length;
        if (size > 64 && (!best || size > best.size)) best = { holder, key, size };
      }
      if (Array.isArray(v)) v.forEach((x, i) => visit(v, i, x));
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) visit(v as Record<string, unknown>, k, x);
    };
    for (const [k, x] of Object.entries(cur)) visit(cur, k, x);
    if (!best) return null;
    const { holder, key } = best as { holder: Record<string, unknown>; key: string };
    const v = holder[key];
    const over = JSON.stringify(cur).length - max;
    if (typeof v === 'string') holder[key] = cutText(v, Math.max(0, Math.min(v.length - over - 16, Math.floor(v.length / 2))));
    else if (Array.isArray(v)) holder[key] = v.slice(0, Math.max(0, Math.min(v.length - 1, Math.floor((v.length * Math.max(0, JSON.stringify(v).length - over)) / JSON.stringify(v).length))));
  }
  if (JSON.stringify(cur).length > max) return null;
  return valid(cur) ? cur : null;
}

/**
 * The result within `limits`: text blocks cut (the whole text kept in a private file named in the note),
 * structuredContent shortened, an inline image moved into a file when the bytes would exceed the limit.
 */
export function fitResult(
  tool: string,
  content: Block[],
  structuredContent: Record<string, unknown>,
  limits: ResultLimits,
  opts: { env: NodeJS.ProcessEnv | null; valid: (v: Record<string, unknown>) => boolean },
): Fitted {
  const cuts: string[] = [];
  const max = charLimit(limits);
  let blocks = content;
  let structured = structuredContent;
  // bytes: an inline image that would break the limit goes into a file, named in its place
  // (decided first, counting text and structuredContent as they will be after their cuts: its note is text too)
  const imageBytes = blocks.reduce((n, b) => n + (b.type === 'image' ? b.data.length + 64 : 0), 0);
  const textBytes = Math.min(Buffer.byteLength(JSON.stringify(blocks.filter((b) => b.type === 'text'))), 3 * max);
  const structuredBytes = Math.min(Buffer.byteLength(JSON.stringify(structured)), 3 * max);
  if (imageBytes && imageBytes + textBytes + structuredBytes + 1000 > limits.maxBytes) {
    blocks = blocks.map((b) => {
      if (b.type !== 'image') return b;
      const file = keepFile(opts.env, tool, b.mimeType === 'image/png' ? 'png' : 'jpg', Buffer.from(b.data, 'base64'));
      cuts.push(`image -> ${file ?? 'dropped'}`);
      return {
        type: 'text' as const,
        text: file
          ? `the image (${b.mimeType}) would make this result larger than the host takes (${limits.maxBytes} bytes); it was saved, read this file to view it: ${file}`
          : `the image (${b.mimeType}) would make this result larger than the host takes (${limits.maxBytes} bytes) and there is no private directory to save it in; ask for a smaller image (screenshot scale= or a region)`,
      };
    });
  }
  const total = textLength(blocks);
  const textOnly = Array.isArray(structured.text) && Object.keys(structured).every((k) => k === 'text' || k === 'then');
  let note: string | null = null;
  if (total > max) {
    const all = blocks.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('\n');
    const file = keepFile(opts.env, tool, 'txt', all);
    const room = max - 600;
    const kept: Block[] = [];
    // `used`: where the file goes on after what is shown (the blocks are joined by a newline in it)
    let used = 0;
    let whole = true;
    for (const b of blocks) {
      if (b.type !== 'text') {
        kept.push(b);
        continue;
      }
      if (!whole) continue;
      const t = cutText(b.text, Math.max(0, room - used));
      if (t.length < b.text.length) {
        whole = false;
        if (t) kept.push({ type: 'text', text: t });
        used += t.length;
        continue;
      }
      used += t.length + 1;
      kept.push({ type: 'text', text: t });
    }
    note =
      `… cut: this result holds ${total} characters, more than the host takes in one result (${limits.maxTokens} tokens, about ${max} characters); ` +
      (file
        ? `the whole text is in ${file}: read it from character ${used} on (offset=${used}), or ask for less`
        : 'ask for less') +
      ' (a window=, name= or role= filter; ui pages with max_chars and after=, get_text with limit and offset=).';
    kept.push({ type: 'text', text: note });
    blocks = kept;
    cuts.push(`text ${total} -> ${textLength(blocks)}`);
    if (textOnly) structured = { ...structured, text: blocks.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text) };
  }
  const sLen = JSON.stringify(structured).length;
  if (sLen > max) {
    const shrunk = shrinkJson(structured, max - 200, opts.valid);
    if (shrunk) {
      structured = shrunk;
      cuts.push(`structuredContent ${sLen} -> ${JSON.stringify(shrunk).length}`);
      if (!note) {
        note = `… cut: the structured result held ${sLen} characters, more than the host takes in one result (${limits.maxTokens} tokens); its longest lists and texts were shortened: ask for less (a window=, name= or role= filter).`;
        const over = textLength(blocks) + note.length - max;
        if (over > 0) {
          // room for the note: the longest text block gives it
          const i = blocks.reduce((best, b, j) => (b.type === 'text' && b.text.length > ((blocks[best] as { text?: string }).text?.length ?? -1) ? j : best), 0);
          const b = blocks[i] as { type: 'text'; text: string };
          blocks = blocks.map((x, j) => (j === i ? { type: 'text' as const, text: cutText(b.text, Math.max(0, b.text.length - over)) } : x));
        }
        blocks = [...blocks, { type: 'text', text: note }];
      }
    }
  }
  return { content: blocks, structuredContent: structured, cuts };
}
