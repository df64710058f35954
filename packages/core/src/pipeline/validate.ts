import type { z } from 'zod';
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
  throw argumentsError(tool, input, r.error.issues);
}

/** One argument issue: the field's path and zod's message. */
export interface ArgIssue {
  path: PropertyKey[];
  message: string;
}

/** The usage error for `issues` found in `input` (validateArgs; the verb pre-check builds the same one without zod). */
export function argumentsError(tool: string, input: unknown, issues: readonly ArgIssue[]): UsageError {
  const parts = issues.slice(0, 5).map((issue) => {
    const field = issue.path.join('.') || '(arguments)';
    let given: unknown = input;
    for (const p of issue.path) given = (given as Record<PropertyKey, unknown> | undefined)?.[p as PropertyKey];
    let shown = given === undefined ? 'nothing' : JSON.stringify(given);
    if (shown && shown.length > 60) shown = `${shown.slice(0, 57)}...`;
    return `${field}: ${issue.message} (given ${shown})`;
  });
  return new UsageError(`${tool}: ${parts.join('; ')}`, {
    hint: `see the ${tool} tool schema (hypruse ${tool} --help)`,
    data: { issues: issues.map((i) => ({ path: i.path.map(String), message: i.message })) },
  });
}
