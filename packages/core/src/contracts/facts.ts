import { z } from 'zod';

/**
 * Journal facts. The journal stores what a call was about without storing
 * what the agent typed, copied or read: with `journal.text` off, every string
 * in a call's arguments and result is stored as a digest unless its schema is
 * marked a fact here (a window address, a workspace, a key combination, a
 * command line) or is a closed set (an enum or literal) that the value
 * belongs to. A new field is therefore text until its author says otherwise.
 *
 * Mark the innermost schema (`fact(z.string()...)`, then `.default()` or
 * `.describe()`): zod's wrappers are new objects, and the journal looks
 * through them to the marked schema.
 */
export const factRegistry = z.registry<{ fact: true }>();

export function fact<T extends z.ZodType>(schema: T): T {
  factRegistry.add(schema, { fact: true });
  return schema;
}

export function isFact(schema: z.ZodType): boolean {
  return factRegistry.has(schema);
}
