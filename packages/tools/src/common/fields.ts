import { z } from 'zod';
import { THEN_VALUES, fact } from '@hypruse/core';

/** `then=` on every acting tool. */
export const thenField = z
  .enum(THEN_VALUES)
  .default('none')
  .describe('Observe after acting, in the same call: none, desktop (fresh snapshot), screenshot (stable capture of the focused monitor), ui (controls of the acted window).');

export const allowAuthField = z
  .boolean()
  .default(false)
  .describe('Set only when the person explicitly asked you to act on an authentication prompt or a locked session.');

export const confirmField = z
  .boolean()
  .default(false)
  .describe('Set only after the person confirmed this dangerous action (Delete, Send, Pay, ...) in the conversation.');

/** A window handle: "active" or the `address` field from desktop. Validated against the live desktop when used. */
export const windowField = fact(
  z
    .string()
    .max(64, 'a window address is short: use the `address` field from desktop')
    .regex(/^(active|[A-Za-z0-9_:.-]*)$/, 'a window is "active" or the `address` field from desktop (as the compositor reports it, e.g. 0x55d1c9a0 or 42)'),
)
  .default('')
  .describe('Window: "active" (default) or the `address` field from desktop.');

/** Workspace names: no control characters, no command separators, bounded. */
export const workspaceField = fact(z
  .string()
  .min(1, 'name a workspace')
  .max(64, 'workspace names are at most 64 characters')
  .regex(/^[^\x00-\x1f\x7f;,"'`\\$\][{}\p{Cs}\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]+$/u, 'workspace names cannot contain control characters, invisible or text-direction characters, lone surrogates, quotes, backslashes, brackets, braces, $, ; or ,')
  .describe('Workspace name or number (as listed by desktop).'));

/** A coordinate the models tend to send in odd shapes; the pointer tool normalizes it. */
export const coordField = fact(z.union([z.number(), z.string().max(40)]))
  .optional()
  .describe('Global logical coordinate (number). "x,y" in x alone is accepted when y is omitted.');
