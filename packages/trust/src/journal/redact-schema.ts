import { isFact } from '@hypruse/core';
import type { z } from 'zod';
import { digestText } from './redact.js';

type Def = {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  items?: z.ZodType[];
  rest?: z.ZodType | null;
  valueType?: z.ZodType;
  getter?: () => z.ZodType;
};

const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Text taken out of a record, collected so no free text (an error message) can carry it back in. */
export interface Redaction {
  texts: string[];
}

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'catch', 'readonly', 'nonoptional', 'success']);

/** Look through wrappers to the schema that decides; a fact anywhere on the way makes it a fact. */
function resolve(schema: z.ZodType): { schema: z.ZodType; fact: boolean } {
  let s = schema;
  for (let i = 0; i < 32; i++) {
    if (isFact(s)) return { schema: s, fact: true };
    const d = defOf(s);
    if (WRAPPERS.has(d.type) && d.innerType) s = d.innerType;
    else if (d.type === 'pipe' && d.in) s = d.in;
    else if (d.type === 'lazy' && d.getter) s = d.getter();
    else break;
  }
  return { schema: s, fact: false };
}

/** Anything without a schema: strings are text; numbers, booleans and null are kept; containers are walked. */
export function redactUnknown(value: unknown, r: Redaction, depth = 0): unknown {
  if (typeof value === 'string') {
    if (value) r.texts.push(value);
    return digestText(value);
  }
  if (value === null || typeof value !== 'object') return typeof value === 'function' ? undefined : value;
  if (depth > 32) return '[too deep]';
  if (Array.isArray(value)) return value.map((v) => redactUnknown(v, r, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactUnknown(v, r, depth + 1);
  return out;
}

/**
 * A copy of `value` fit for the journal with text off: walked along its
 * schema, every string is a digest unless its field is a fact (see `fact`)
 * or a value of a closed set (enum, literal) the schema accepts. Values that
 * do not fit the schema (arguments are journaled before validation, refusals
 * too) fall back to `redactUnknown`.
 */
export function redactBySchema(schema: z.ZodType | undefined, value: unknown, r: Redaction, depth = 0): unknown {
  if (!schema || depth > 32) return redactUnknown(value, r, depth);
  const { schema: s, fact } = resolve(schema);
  if (fact) return s.safeParse(value).success ? value : redactUnknown(value, r, depth);
  const d = defOf(s);
  switch (d.type) {
    case 'enum':
    case 'literal':
    case 'number':
    case 'int':
    case 'boolean':
    case 'null':
    case 'undefined':
      return s.safeParse(value).success ? value : redactUnknown(value, r, depth);
    case 'object': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return redactUnknown(value, r, depth);
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        const field = d.shape?.[k] ?? d.catchall;
        out[k] = redactBySchema(field, v, r, depth + 1);
      }
      return out;
    }
    case 'array':
      return Array.isArray(value) ? value.map((v) => redactBySchema(d.element, v, r, depth + 1)) : redactUnknown(value, r, depth);
    case 'tuple':
      return Array.isArray(value) ? value.map((v, i) => redactBySchema(d.items?.[i] ?? d.rest ?? undefined, v, r, depth + 1)) : redactUnknown(value, r, depth);
    case 'record':
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return redactUnknown(value, r, depth);
      return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, redactBySchema(d.valueType, v, r, depth + 1)]));
    case 'union': {
      // the first option the value fits decides (a discriminated result picks its branch)
      const hit = (d.options ?? []).find((o) => o.safeParse(value).success);
      return hit ? redactBySchema(hit, value, r, depth + 1) : redactUnknown(value, r, depth);
    }
    default:
      return redactUnknown(value, r, depth);
  }
}

/** Shortest run of a recorded text that is cut out of free text wherever it appears (any part of it, not only the whole). */
export const SCRUB_MIN_RUN = 4;

/**
 * Free text fit for the journal with text off (an error message, a layer's
 * note). By structure: every run of SCRUB_MIN_RUN or more characters that also
 * occurs in a text taken out of the record's arguments or result is cut out
 * (so a prefix, a cut or re-quoted piece, or an escaped copy of a typed text
 * goes too), a shorter recorded text (3 characters) wherever it appears whole,
 * after every quoted span, closed or not, was replaced by its length.
 */
export function scrubText(raw: string, r: Redaction): string {
  // the journal keeps 240 characters of it: what lies beyond is never stored, so never scanned
  const text = raw
    .slice(0, 1000)
    .replace(/"(?:[^"\\]|\\.)*(?:"|\\?$)/g, (m) => `"<${Array.from(m).length - (m.length > 1 && m.endsWith('"') ? 2 : 1)} chars>"`)
    .replace(/'[^'\n]*'/g, (m) => `'<${Array.from(m).length - 2} chars>'`)
    .replace(/`[^`\n]*`/g, (m) => `\`<${Array.from(m).length - 2} chars>\``);
  const texts = [...new Set(r.texts)];
  // the same texts as JSON would escape them (a message may quote them with JSON.stringify)
  for (const t of [...texts]) {
    const j = JSON.stringify(t).slice(1, -1);
    if (j !== t) texts.push(j);
  }
  const cut = new Uint8Array(text.length);
  // the message's runs by position (the message is short; a text may be long: each text is read once)
  const at = new Map<string, number[]>();
  for (let i = 0; i + SCRUB_MIN_RUN <= text.length; i++) {
    const g = text.slice(i, i + SCRUB_MIN_RUN);
    const list = at.get(g);
    if (list) list.push(i);
    else at.set(g, [i]);
  }
  for (const t of texts) {
    if (t.length < SCRUB_MIN_RUN || at.size === 0) continue;
    for (let i = 0; i + SCRUB_MIN_RUN <= t.length; i++) {
      const hit = at.get(t.slice(i, i + SCRUB_MIN_RUN));
      if (hit) for (const p of hit) cut.fill(1, p, p + SCRUB_MIN_RUN);
    }
  }
  for (const t of texts.filter((x) => x.length >= 3 && x.length < SCRUB_MIN_RUN)) {
    for (let at = text.indexOf(t); at >= 0; at = text.indexOf(t, at + 1)) cut.fill(1, at, at + t.length);
  }
  let out = '';
  for (let i = 0; i < text.length; ) {
    if (!cut[i]) {
      out += text[i++];
      continue;
    }
    let j = i;
    while (j < text.length && cut[j]) j++;
    out += `<${Array.from(text.slice(i, j)).length} chars>`;
    i = j;
  }
  return out;
}
