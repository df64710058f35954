import { z } from 'zod';
import type { AnyTool } from '../contracts/tool.js';

/** The `then=` observation attached to an acting result: the observing tool's own structured result. */
const thenOutput = z.record(z.string(), z.unknown()).describe('The then= observation: the structured result of desktop, screenshot or ui.');

/** What a dry run returns instead of the tool's result. */
export const dryRunOutput = z.strictObject({
  dry_run: z.literal(true),
  would: z.record(z.string(), z.unknown()).describe('What the call would have done (its intent).'),
});

/** A result's structured JSON when the tool declares no output schema: its text blocks. */
const textOnlyOutput = z.strictObject({ text: z.array(z.string()), then: thenOutput.optional() });

type Def = { type: string; shape?: Record<string, z.ZodType>; options?: z.ZodType[]; catchall?: z.ZodType };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Allow the `then` key on every object branch of an acting tool's output. */
function withThen(schema: z.ZodType): z.ZodType {
  const d = defOf(schema);
  if (d.type === 'object') return (schema as z.ZodObject).extend({ then: thenOutput.optional() });
  if (d.type === 'union' && d.options) return z.union(d.options.map(withThen) as [z.ZodType, z.ZodType, ...z.ZodType[]]);
  return schema;
}

const cache = new WeakMap<AnyTool, z.ZodType>();

/**
 * The schema every structuredContent of a tool must match: the tool's
 * `output`, plus `then` and the dry-run shape for acting tools.
 */
export function structuredSchema(tool: AnyTool): z.ZodType {
  let s = cache.get(tool);
  if (!s) {
    const base = tool.output ?? textOnlyOutput;
    s = tool.kind === 'act' ? z.union([withThen(base), dryRunOutput]) : base;
    cache.set(tool, s);
  }
  return s;
}

/** The JSON schema of a tool's structuredContent as listed to clients (type object at the root, as MCP requires). */
export function outputJsonSchema(tool: AnyTool): Record<string, unknown> {
  const js = z.toJSONSchema(structuredSchema(tool), { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
  delete js.$schema;
  return js.type === 'object' ? js : { type: 'object', ...js };
}

/** null when `data` matches the tool's structured schema, else what is wrong (a bug in the tool). */
export function outputMismatch(tool: AnyTool, data: unknown): string | null {
  const r = structuredSchema(tool).safeParse(data);
  if (r.success) return null;
  return r.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}
