import { HypruseError } from '@hypruse/core';

/**
 * Build a `[[BATCH]]` request: commands joined by `;`. Released Hyprland up
 * to 0.56.2 splits a batch on every `;` (outside `[...]`) and knows no escape;
 * `\;` and `\\` exist only after 0.56. A command holding `;` or `\` therefore
 * means different things on different versions and is refused here: send it
 * as a request of its own.
 */
export function buildBatch(commands: readonly string[]): string {
  const bad = commands.find((c) => /[;\\]/.test(c));
  if (bad !== undefined) {
    throw new HypruseError('error.internal', `cannot batch "${bad}": Hyprland <= 0.56 splits a batch on every ";" and has no escapes; send it alone`);
  }
  return '[[BATCH]]' + commands.join(';');
}

/** Length of the JSON value starting at `start` (after whitespace), or -1 if none is complete there. */
function scanValue(text: string, start: number): number {
  const c = text[start];
  if (c === '{' || c === '[') {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const ch = text[i];
      if (inString) {
        if (ch === '\\') i++;
        else if (ch === '"') inString = false;
        continue;
      }
      if (ch === '"') inString = true;
      else if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') {
        depth--;
        if (depth === 0) return i + 1 - start;
      }
    }
    return -1;
  }
  if (c === '"') {
    for (let i = start + 1; i < text.length; i++) {
      if (text[i] === '\\') i++;
      else if (text[i] === '"') return i + 1 - start;
    }
    return -1;
  }
  const m = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(start, start + 64));
  return m ? m[0].length : -1;
}

function preview(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > 120 ? `${one.slice(0, 117)}...` : one;
}

/**
 * Decode successive JSON values (Hyprland joins batch replies with blank
 * lines; a value may itself contain blank lines inside strings, so we scan
 * values instead of splitting). Anything that is not JSON is a typed error
 * carrying Hyprland's text.
 */
export function decodeJsonValues(text: string, context: string): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i])) i++;
    if (i >= text.length) break;
    const len = scanValue(text, i);
    if (len < 0) {
      throw new HypruseError('error.compositor', `Hyprland answered ${context} with text that is not JSON: "${preview(text.slice(i))}"`, {
        hint: 'The compositor may be a different version than expected, or refused the request; the text above is its reply.',
        data: { reply: text.slice(0, 2000) },
      });
    }
    const slice = text.slice(i, i + len);
    try {
      out.push(JSON.parse(slice));
    } catch (err) {
      throw new HypruseError('error.compositor', `Hyprland answered ${context} with malformed JSON: "${preview(slice)}"`, { cause: err });
    }
    i += len;
  }
  return out;
}

/** Decode a batch reply into exactly one JSON value per command. */
export function decodeBatch(text: string, commands: readonly string[]): unknown[] {
  const values = decodeJsonValues(text, `[[BATCH]] ${commands.join(';')}`);
  if (values.length !== commands.length) {
    throw new HypruseError('error.compositor', `Hyprland returned ${values.length} results for ${commands.length} batched commands (${commands.join(', ')})`, {
      hint: 'A command in the batch was probably refused; run them one by one to see which.',
      data: { reply: text.slice(0, 2000) },
    });
  }
  return values;
}
