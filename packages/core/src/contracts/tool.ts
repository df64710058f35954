import type { z } from 'zod';
import type { Point, Rect } from './geometry.js';
import type { ToolResult } from '../result.js';
import type { HypruseConfig } from '../config/schema.js';
import type { SessionState } from '../session.js';
import type { Token } from '../tokens.js';

export type ToolKind = 'observe' | 'act';

/** What an acting call is about to touch, computed before any trust layer runs. */
export interface Intent {
  /** "click left at (812, 433)", used for dry-run "would ..." text and the journal. */
  summary: string;
  /** Kind of delivery. `none` for tools that only change compositor state. */
  input?: 'pointer' | 'keyboard' | 'none';
  /** Window addresses acted on (focus, keys into, close, click into). */
  windows?: string[];
  /** Global points where pointer input lands. Empty with input 'pointer' = at the current cursor. */
  points?: Point[];
  /** The keyboard target is the focused window (no explicit window). */
  focusedWindow?: boolean;
  /** Name of the control acted on, for the dangerous-action check. */
  control?: { role: string; name: string };
  /** Text to be typed, or keys pressed. */
  text?: string;
  keys?: string;
  workspace?: string;
  command?: string;
  /** The geometry of the window the coordinates were observed on (stale-observation guard). */
  observed?: { address: string; geometry: Rect };
  /** Acts on the compositor as a whole (binds), not a window. */
  global?: boolean;
  /** True when the tool's own guards already ran on a nested call (click_ui -> pointer). */
  nested?: boolean;
}

export interface ToolServices {
  get<T>(token: Token<T>): T;
  has(token: Token<unknown>): boolean;
}

export interface ToolContext {
  readonly tool: string;
  readonly kind: ToolKind;
  readonly signal: AbortSignal;
  readonly config: HypruseConfig;
  readonly session: SessionState;
  readonly dryRun: boolean;
  readonly services: ToolServices;
  /** The session's environment (the host's, or the one a test or embedder passed). */
  readonly env: NodeJS.ProcessEnv;
  /** Call another tool through the full pipeline (every trust layer applies). */
  invoke(tool: string, args: Record<string, unknown>): Promise<ToolResult>;
  /** Progress line for a person waiting (stderr in the CLI, MCP progress/log in MCP). */
  progress(message: string): void;
  /** Ask the human (MCP elicitation) when the client supports it; null when it cannot ask. */
  confirm?(message: string): Promise<boolean | null>;
}

export interface ToolDefinition<I extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** Agent-facing text. */
  description: string;
  /** Description used in read-only mode; must not mention acting tools. Defaults to `description`. */
  readonlyDescription?: string;
  kind: ToolKind;
  input: I;
  output?: z.ZodType;
  /** Destructive acting tools (close, clipboard write) get destructiveHint. */
  destructive?: boolean;
  /** The listed name on a given compositor (e.g. `hypr` on Hyprland, `wm` elsewhere). */
  nameFor?(compositorId: string | null): string;
  /** Listed only when this config switch is on (clipboard). */
  optIn?: 'clipboard';
  /** Name of the CLI positional sub-verb field (e.g. `action`), and other positional fields in order. */
  cli?: {
    positional?: string[];
    /** Positional fields when the first positional (the action) has this value. */
    positionalFor?: Record<string, string[]>;
    stdinField?: string;
    examples?: string[];
  };
  /** Compute what the call will touch (acting tools). Runs after validation, before the trust layers. */
  intent?(args: z.output<I>, ctx: ToolContext): Promise<Intent> | Intent;
  handle(args: z.output<I>, ctx: ToolContext): Promise<ToolResult>;
}

/** A tool plugin: the identity helper keeps inference of `args` from the schema. */
export function defineTool<I extends z.ZodObject>(def: ToolDefinition<I>): ToolDefinition<I> {
  return def;
}

export type AnyTool = ToolDefinition<any>;
