import { createHash } from 'node:crypto';

export interface RedactedText {
  redacted: true;
  /** Length in characters (code points). */
  chars: number;
  /** First 12 hex digits of the SHA-256 of the UTF-8 text: lets a person check "was it this?" without storing it. */
  sha256: string;
}

export function digestText(text: string): RedactedText {
  return { redacted: true, chars: Array.from(text).length, sha256: createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 12) };
}

export function isRedacted(v: unknown): v is RedactedText {
  return typeof v === 'object' && v !== null && (v as { redacted?: unknown }).redacted === true && typeof (v as { sha256?: unknown }).sha256 === 'string';
}

/** A copy of the arguments with every string `text` key, at any depth, replaced by its digest. */
export function redactArgs<T>(value: T, depth = 0): T {
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactArgs(v, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = k === 'text' && typeof v === 'string' ? digestText(v) : redactArgs(v, depth + 1);
  }
  return out as T;
}

/** Does a recorded argument tree hold text recorded as a digest (not replayable)? */
export function hasRedacted(value: unknown, depth = 0): boolean {
  if (depth > 32 || value === null || typeof value !== 'object') return false;
  if (isRedacted(value)) return true;
  return Object.values(value as Record<string, unknown>).some((v) => hasRedacted(v, depth + 1));
}
