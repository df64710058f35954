/**
 * A verb's arguments checked against a JSON-schema table of the built-in
 * tools (packages/hypruse/src/verbs.generated.ts), without zod or the tools:
 * a usage error that the table proves (an unknown flag, a value outside an
 * enum, a wrong type, a missing field) is reported at once, with exactly the
 * text and exit code the zod check gives (a unit test compares both on every
 * tool). Anything the table cannot decide (lengths, ranges, patterns, unions,
 * nested objects, cross-field rules) is left to the zod check.
 */
import { exitCodeFor, toHypruseError, type HypruseError } from '../../errors.js';
import { argumentsError, type ArgIssue } from '../../pipeline/validate.js';
import { errorText } from '../render.js';
import { parseVerbSpec, type VerbSpec } from './args.js';

export type { VerbSpec };
import type { JsonSchema } from './schema.js';

/** The subset of VerbIO the check writes to. */
export interface PrecheckIO {
  out: (s: string) => void;
  err: (s: string) => void;
  stdin: () => string;
}

/** Reports a usage error as a verb does (the --json line, then the text on stderr) and returns its exit code; null for any other error. */
export function reportUsage(err: unknown, verb: string, argv: string[], io: PrecheckIO): number | null {
  const e: HypruseError = toHypruseError(err);
  if (e.category !== 'usage') return null;
  if (argv.includes('--json')) io.out(JSON.stringify({ ok: false, tool: verb, error: { category: e.category, code: e.code, message: e.message, hint: e.hint ?? null, ...(e.data ? { data: e.data } : {}) } }));
  io.err(`hypruse: ${errorText(e)}`);
  return exitCodeFor(e.category);
}

const received = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/**
 * zod's issue for one value of a plain schema: a message, null when valid, undefined when this
 * table cannot tell. Only zod's own wording is reproduced (a value outside an enum, a wrong or
 * missing type): a length, a range or a pattern may carry the tool's own message, so a value
 * near one is left to zod.
 */
function leafIssue(s: JsonSchema, v: unknown): string | null | undefined {
  if (s.anyOf || s.oneOf || s.const !== undefined) return undefined;
  if (s.enum) {
    if (!s.enum.every((e) => typeof e === 'string')) return undefined;
    return (s.enum as unknown[]).includes(v) ? null : `Invalid option: expected one of ${s.enum.map((e) => JSON.stringify(e)).join('|')}`;
  }
  switch (s.type) {
    case 'string':
      if (typeof v !== 'string') return `Invalid input: expected string, received ${received(v)}`;
      if ((s.minLength !== undefined && v.length < s.minLength) || (s.maxLength !== undefined && v.length > s.maxLength)) return undefined;
      if (s.pattern === undefined) return null;
      try {
        return new RegExp(s.pattern, 'u').test(v) ? null : undefined;
      } catch {
        return undefined;
      }
    case 'boolean':
      return typeof v === 'boolean' ? null : `Invalid input: expected boolean, received ${received(v)}`;
    case 'number':
    case 'integer':
      if (typeof v !== 'number') return `Invalid input: expected number, received ${received(v)}`;
      if (!Number.isFinite(v) || (s.type === 'integer' && !Number.isSafeInteger(v))) return undefined;
      if ((s.minimum !== undefined && v < s.minimum) || (s.maximum !== undefined && v > s.maximum)) return undefined;
      return null;
    default:
      return undefined;
  }
}

/**
 * The issues zod would report for `args`, in its order, when the table decides every field
 * given or required; null when it cannot (then zod decides). An empty list is not a proof of
 * validity (cross-field rules are zod's alone): the caller goes on to the zod check.
 */
export function tableIssues(schema: JsonSchema, args: Record<string, unknown>): ArgIssue[] | null {
  const props = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const issues: ArgIssue[] = [];
  for (const [key, prop] of Object.entries(props)) {
    const v = args[key];
    if (v === undefined) {
      if (!required.has(key)) continue;
      // a missing value fails as the type it lacks
    }
    // an array or object given as a field (JSON from a flag) is zod's to judge
    if (v !== undefined && typeof v === 'object') return null;
    const m = leafIssue(prop, v);
    if (m === undefined) return null;
    if (m !== null) issues.push({ path: [key], message: m });
  }
  for (const key of Object.keys(args)) if (!(key in props)) return null;
  return issues;
}

/**
 * The verb's arguments against its table entry: the exit code of a proven usage error (after
 * reporting it), null when the zod check must decide (fine arguments, --help, undecidable ones).
 * An argv that reads stdin (`-`) is left alone: stdin can be read only once.
 */
export function precheckVerb(spec: VerbSpec, verb: string, argv: string[], io: PrecheckIO): number | null {
  if (argv.includes('-')) return null;
  try {
    const { args, flags } = parseVerbSpec(spec, argv, io.stdin);
    if (flags.help) return null;
    const issues = tableIssues(spec.schema, args);
    if (!issues || issues.length === 0) return null;
    // the table proves only enum and type issues: such a field's value is no free text (the zod check quotes the same)
    throw argumentsError(verb, args, issues, (path) => {
      const prop = spec.schema.properties?.[String(path[0])];
      return path.length === 1 && prop !== undefined && (prop.enum !== undefined || (prop.type !== undefined && prop.type !== 'string'));
    });
  } catch (err) {
    return reportUsage(err, verb, argv, io);
  }
}
