import { UsageError } from '@hypruse/core';
import type { SwayCommandResult } from './raw-types.js';

/** Words the `workspace` and `move ... to workspace` commands treat as keywords, not names. */
const RESERVED_WORKSPACE_WORDS = new Set(['next', 'prev', 'next_on_output', 'prev_on_output', 'back_and_forth', 'current', 'number', 'to', 'workspace', 'output', 'mark', 'scratchpad']);

/** Parse a sway window address (con id) or throw `usage.address`. */
export function parseAddress(address: string): number {
  const s = String(address).trim();
  if (!/^\d{1,10}$/.test(s) || Number(s) <= 0 || Number(s) > 0x7fffffff) {
    throw new UsageError(`'${address}' is not a sway window address: expected the con id (digits only) from the \`address\` field of desktop()`, {
      code: 'usage.address',
      hint: 'Call desktop() and use a window\'s `address` as given.',
    });
  }
  return Number(s);
}

/**
 * Validate a workspace name and return it quoted for sway's command grammar.
 * Quotes, escapes and the command separators `;` and `,` would break out of
 * the argument, so they are refused rather than escaped.
 */
export function quoteWorkspace(name: string): string {
  const problem = workspaceProblem(name);
  if (problem) {
    throw new UsageError(`workspace name ${JSON.stringify(name)} ${problem}`, {
      code: 'usage.workspace',
      hint: 'Use a workspace name or number from desktop(): letters, digits, spaces and punctuation other than quotes, backslash, ";" and ",".',
    });
  }
  return `"${name}"`;
}

export function workspaceProblem(name: string): string | null {
  if (typeof name !== 'string' || name.trim().length === 0) return 'is empty';
  if (name !== name.trim()) return 'has leading or trailing spaces';
  if (name.length > 128) return 'is longer than 128 characters';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'contains control characters';
  if (/["'\\;,[\]{}]/.test(name)) return 'contains a character sway commands cannot take safely (quotes, backslash, ";", ",", brackets or braces)';
  if (name.startsWith('--')) return 'starts with "--" (sway would read it as an option)';
  if (name.startsWith('__')) return 'starts with "__" (reserved by sway for internal workspaces)';
  if (RESERVED_WORKSPACE_WORDS.has(name.toLowerCase())) return `is a sway keyword ("${name}" would not name a workspace)`;
  return null;
}

/** Validate a mark/tag name for `mark --add`. */
export function quoteMark(tag: string): string {
  if (typeof tag !== 'string' || !/^[A-Za-z0-9_.:@+-]{1,64}$/.test(tag)) {
    throw new UsageError(`tag ${JSON.stringify(tag)} is not a valid mark: use 1-64 letters, digits or _ . : @ + -`, { code: 'usage.arguments' });
  }
  return `"${tag}"`;
}

/** The first failed command of a RUN_COMMAND reply, or null when all succeeded. */
export function firstFailure(results: SwayCommandResult[]): SwayCommandResult | null {
  if (!Array.isArray(results) || results.length === 0) return { success: false, error: 'sway returned no command result' };
  return results.find((r) => !r.success) ?? null;
}
