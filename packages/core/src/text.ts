/**
 * Text that hypruse draws (the on-screen label) or writes to a terminal or log
 * comes from windows, apps and agents: control characters in it are shown as
 * escapes (`\u0000`, `\u001b`), never passed on raw, where they would break an
 * SVG's XML, move a terminal's cursor or split a log line. Bidirectional
 * overrides are escaped too (they reorder what a reader sees).
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\p{Cc}\p{Cs}\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffe\uffff]/gu;

export function escapeControlChars(text: string, keep = ''): string {
  return text.replace(CONTROL, (c) => {
    if (keep.includes(c)) return c;
    if (c === '\n') return '\\n';
    if (c === '\t') return '\\t';
    if (c === '\r') return '\\r';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
