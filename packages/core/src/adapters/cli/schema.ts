import { z } from 'zod';
import type { AnyTool } from '../../contracts/tool.js';
import { parseVerbSpec, type ParsedVerb, type VerbSpec } from './args.js';

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  description?: string;
  default?: unknown;
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  additionalProperties?: boolean | JsonSchema;
}

const cache = new WeakMap<AnyTool, JsonSchema>();

export function inputSchemaOf(tool: AnyTool): JsonSchema {
  let s = cache.get(tool);
  if (!s) {
    s = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
    cache.set(tool, s);
  }
  return s;
}

/** The parts of a tool a verb's argv parser reads. */
export function verbSpecOf(tool: AnyTool): VerbSpec {
  return { name: tool.name, schema: inputSchemaOf(tool), cli: tool.cli };
}

/** parseVerbSpec for a tool. */
export function parseVerbArgs(tool: AnyTool, argv: string[], stdin: () => string): ParsedVerb {
  return parseVerbSpec(verbSpecOf(tool), argv, stdin);
}

function typeText(s: JsonSchema): string {
  if (s.enum) return s.enum.map((e) => String(e)).join('|');
  if (s.anyOf || s.oneOf) return [...new Set((s.anyOf ?? s.oneOf ?? []).map(typeText))].join('|');
  if (Array.isArray(s.type)) return s.type.join('|');
  if (s.type === 'array') return 'JSON list';
  if (s.type === 'object') return 'JSON object';
  return s.type ?? 'value';
}

/** Per-verb help generated from the schema. */
export function verbHelp(tool: AnyTool, name: string): string {
  const s = inputSchemaOf(tool);
  const props = s.properties ?? {};
  const required = new Set(s.required ?? []);
  const positional = tool.cli?.positional ?? [];
  const usage = [`hypruse ${name}`, ...positional.map((p) => (required.has(p) ? `<${p}>` : `[${p}]`)), '[--flags]'].join(' ');
  const lines = [usage, '', tool.description.split('\n')[0], ''];
  const rows = Object.entries(props).map(([k, p]) => {
    const flag = positional.includes(k) ? `<${k}>` : `--${k.replace(/_/g, '-')}`;
    const def = p.default !== undefined ? ` (default ${JSON.stringify(p.default)})` : required.has(k) ? ' (required)' : '';
    return [`  ${flag} ${typeText(p)}`, `${p.description ?? ''}${def}`];
  });
  const width = Math.min(38, Math.max(...rows.map((r) => r[0].length), 10));
  for (const [a, b] of rows) lines.push(`${a.padEnd(width)}  ${b}`);
  lines.push('', '  --json                  print the raw result as one JSON line', '  --dry-run               run every guard, deliver nothing');
  if (tool.cli?.examples?.length) lines.push('', 'Examples:', ...tool.cli.examples.map((e) => `  ${e}`));
  lines.push('', `kind: ${tool.kind}${tool.kind === 'observe' ? ' (read-only)' : ''}`);
  return lines.join('\n');
}
