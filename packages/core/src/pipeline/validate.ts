import type { z } from 'zod';
import { isFact } from '../contracts/facts.js';
import { UsageError } from '../errors.js';

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number' && Number.isNaN(v)) return 'NaN';
  return typeof v;
}

/** Validate tool arguments; failures become one clear usage error (field, given, accepted). */
export function validateArgs<S extends z.ZodObject>(tool: string, schema: S, args: unknown): z.output<S> {
  const input = args ?? {};
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw new UsageError(`${tool}: arguments must be an object of named fields, got ${typeName(input)}`);
  }
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  throw argumentsError(tool, input, r.error.issues, (path) => closedField(schema, path));
}

/** One argument issue: the field's path and zod's message. */
export interface ArgIssue {
  path: PropertyKey[];
  message: string;
}

type Def = { type: string; innerType?: z.ZodType; in?: z.ZodType; shape?: Record<string, z.ZodType>; catchall?: z.ZodType; element?: z.ZodType; getter?: () => z.ZodType };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'catch', 'readonly', 'nonoptional', 'success']);

/**
 * Is the field at `path` one whose strings are not free text (a fact such as a
 * window address or a key combination, an enum, a literal, a number or a
 * boolean)? Only such a field's value is quoted back in a usage error: text the
 * agent typed, filled or copied never is, however long (the journal keeps errors).
 */
export function closedField(schema: z.ZodType | undefined, path: readonly PropertyKey[]): boolean {
  let s = schema;
  let i = 0;
  for (let guard = 0; s && guard < 64; guard++) {
    if (isFact(s)) return true;
    const d = defOf(s);
    if (WRAPPERS.has(d.type) && d.innerType) s = d.innerType;
    else if (d.type === 'pipe' && d.in) s = d.in;
    else if (d.type === 'lazy' && d.getter) s = d.getter();
    else if (i < path.length && d.type === 'object') s = d.shape?.[String(path[i++])] ?? d.catchall;
    else if (i < path.length && d.type === 'array') {
      i++;
      s = d.element;
    } else return i === path.length && ['enum', 'literal', 'number', 'int', 'boolean', 'null'].includes(d.type);
  }
  return false;
}

/** Does `v` hold a string anywhere (an object or array given where it did not fit)? */
function holdsText(v: unknown, depth = 0): boolean {
  if (typeof v === 'string') return true;
  if (v === null || typeof v !== 'object' || depth > 8) return false;
  return Object.values(v as Record<string, unknown>).some((x) => holdsText(x, depth + 1));
}

/** What was given, as a usage error may show it: strings of free-text fields (and containers holding strings) by their length only. */
function shownGiven(given: unknown, closed: boolean): string {
  if (given === undefined) return 'nothing';
  if (typeof given === 'string' && !closed) return `a text of ${[...given].length} characters`;
  if (typeof given === 'object' && given !== null && holdsText(given)) {
    return Array.isArray(given) ? `an array of ${given.length} items` : `an object with ${Object.keys(given).length} fields`;
  }
  if (typeof given === 'string' && [...given].length > 57) return `${JSON.stringify([...given].slice(0, 57).join(''))}... (${[...given].length} characters)`;
  const shown = JSON.stringify(given) ?? typeName(given);
  return shown.length > 60 ? `${shown.slice(0, 57)}...` : shown;
}

/** The usage error for `issues` found in `input` (validateArgs; the verb pre-check builds the same one without zod). */
export function argumentsError(tool: string, input: unknown, issues: readonly ArgIssue[], closed: (path: readonly PropertyKey[]) => boolean = () => false): UsageError {
  const parts = issues.slice(0, 5).map((issue) => {
    const field = issue.path.join('.') || '(arguments)';
    let given: unknown = input;
    for (const p of issue.path) given = (given as Record<PropertyKey, unknown> | undefined)?.[p as PropertyKey];
    return `${field}: ${issue.message} (given ${shownGiven(given, closed(issue.path))})`;
  });
  return new UsageError(`${tool}: ${parts.join('; ')}`, {
    hint: `see the ${tool} tool schema (hypruse ${tool} --help)`,
    data: { issues: issues.map((i) => ({ path: i.path.map(String), message: i.message })) },
  });
}
