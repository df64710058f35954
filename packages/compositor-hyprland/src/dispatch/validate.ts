import { UsageError } from '@hypruse/core';

/**
 * Workspace arguments: ids, names and Hyprland selectors (`3`, `+1`, `e-1`,
 * `m~2`, `name:web`, `special:scratch`, `previous`, `empty`). Characters that
 * could break the legacy grammar (`,` ends the workspace argument, `[`/`]`
 * delimit exec rules, `;` separates batch commands) or smuggle anything into
 * Lua (quotes, backslashes, parentheses, braces, control characters) are
 * refused.
 */
const WORKSPACE_RE = /^[\p{L}\p{N}_+\-~:.#@ ]+$/u;

export function validateWorkspace(ws: string): string {
  const w = ws.trim();
  if (w === '' || w.length > 64 || !WORKSPACE_RE.test(w)) {
    throw new UsageError(
      `workspace ${JSON.stringify(ws)} is not accepted: use a number, a name of letters, digits, spaces and _ - + ~ : . # @ (at most 64), or a selector such as +1, e+1, m-1, name:web, special:scratch, previous`,
      { code: 'usage.workspace', hint: 'Workspace names with punctuation such as , ; [ ] ( ) { } quotes or backslashes could inject commands and are refused.' },
    );
  }
  return w;
}

const ADDRESS_RE = /^0x[0-9a-f]+$/i;

export function validateAddress(address: string): string {
  const a = address.trim();
  if (!ADDRESS_RE.test(a)) {
    throw new UsageError(`'${address}' is not a window address; use the \`address\` field from desktop() (0x followed by hex digits)`, {
      code: 'usage.address',
    });
  }
  return a.toLowerCase();
}

const TAG_RE = /^[A-Za-z0-9_.\-]{1,64}$/;

export function validateTag(tag: string): string {
  if (!TAG_RE.test(tag)) {
    throw new UsageError(`tag ${JSON.stringify(tag)} is not accepted: use 1-64 letters, digits, _ . -`, { code: 'usage.arguments' });
  }
  return tag;
}

/** A command for the legacy grammar: no newlines or NUL (the socket request is one line of text). */
export function validateLegacyText(what: string, text: string): string {
  if (/[\0\r\n]/.test(text)) {
    throw new UsageError(`${what} contains a newline or NUL, which the Hyprland request grammar cannot carry`, { code: 'usage.arguments' });
  }
  return text;
}
