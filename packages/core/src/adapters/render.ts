import type { ToolResult } from '../result.js';
import type { HypruseError } from '../errors.js';

/** One-line-per-block plain text (CLI) of a result and its follow-up observation. */
export function resultText(r: ToolResult): string {
  const parts = [...r.text];
  if (r.observation) parts.push(...resultText(r.observation).split('\n'));
  return parts.join('\n');
}

/** The JSON a result stands for (CLI --json, MCP structuredContent). */
export function resultJson(r: ToolResult): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(r.data ?? {}) };
  if (!r.data) out.text = r.text;
  if (r.observation) out.then = resultJson(r.observation);
  return out;
}

export function errorText(e: HypruseError): string {
  const lines = [`${e.category}: ${e.message}`];
  if (e.hint) lines.push(`hint: ${e.hint}`);
  if (e.data && Object.keys(e.data).length && e.code !== 'usage.arguments') lines.push(JSON.stringify(e.data));
  return lines.join('\n');
}
