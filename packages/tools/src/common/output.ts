import { z } from 'zod';
import { fact } from '@hypruse/core';

/**
 * Pieces of the tools' output schemas (the `data` of a result: MCP
 * structuredContent, CLI --json). Strict objects, so a field a tool starts
 * returning without declaring it is a test failure, not a surprise for hosts.
 * Strings are text for the journal unless marked `fact` (addresses, classes,
 * names of monitors and workspaces); see `fact` in core.
 */
export const address = fact(z.string());
export const className = fact(z.string());
export const pair = z.array(z.number()).length(2);
export const rect4 = z.array(z.number()).length(4);
/** A workspace or monitor id as desktop lists it: a number when numeric. */
export const wsId = fact(z.union([z.string(), z.number()])).nullable();

/** The coordinate contract of every image-bearing result. */
export const imageMetaShape = {
  target: z.enum(['monitor', 'window', 'region', 'zoom', 'marks']),
  geometry: rect4,
  image: pair,
  format: z.enum(['jpeg', 'png']),
  scale: z.number(),
  coords: fact(z.string()),
  source: z.enum(['output', 'region', 'window', 'crop']),
  stable: z.boolean().optional(),
  visible: z.boolean().optional(),
  path: fact(z.string()).optional(),
  window: address.optional(),
  class: className.optional(),
  monitor: fact(z.string()).optional(),
  point: pair.optional(),
};
export const imageMeta = z.strictObject(imageMetaShape);

/** One control as ui lists it (uiJson). */
export const uiElement = z.strictObject({
  id: z.number().int().optional(),
  /** id of the nearest listed ancestor */
  parent: z.number().int().optional(),
  /** id of the label whose text names this field */
  labelled_by: z.number().int().optional(),
  role: fact(z.string()),
  name: z.string(),
  x: z.number(),
  y: z.number(),
  clickable: z.boolean(),
  value: z.union([z.string(), z.number()]).optional(),
  percent: z.number().optional(),
  checked: z.boolean().optional(),
  password: z.literal(true).optional(),
  focused: z.literal(true).optional(),
});
