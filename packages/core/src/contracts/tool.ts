import type { z } from 'zod';
import type { Point, Rect } from './geometry.js';
import type { ToolResult } from '../result.js';
import type { HypruseConfig } from '../config/schema.js';
import type { SessionState } from '../session.js';
import type { Token } from '../tokens.js';

/** What the tool listing needs of the selected compositor: its id and the names its manifest gives tools. */
export type ToolListing = { readonly id: string; readonly wmToolName?: string };

export type ToolKind = 'observe' | 'act';

/**
 * What a tool can do to the person's desktop, for its most dangerous action:
 * the one semantic field its MCP annotations and its call kind derive from.
 * - `observe`: only reads (read-only, idempotent).
 * - `act`: changes the desktop in ways that are easy to undo.
 * - `destructive`: input or changes that can destroy or send something
 *   (keys and clicks go wherever the app takes them, a window closes, the
 *   clipboard is overwritten).
 * - `open_world`: destructive, and reaches beyond the desktop's current
 *   state (starts programs, which can do anything).
 */
export type ToolEffect = 'observe' | 'act' | 'destructive' | 'open_world';

/** The call kind an effect implies (trust layers, journal). */
export function kindOf(effect: ToolEffect): ToolKind {
  return effect === 'observe' ? 'observe' : 'act';
}

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
  /** The pointer only moves over `points` (no button): it still enters the windows there (hover, focus-follows-mouse). */
  hover?: boolean;
  /** The keyboard target is the focused window (no explicit window). */
  focusedWindow?: boolean;
  /** Name of the control acted on, for the dangerous-action check. */
  control?: { role: string; name: string };
  /** Text to be typed, or keys pressed. */
  text?: string;
  keys?: string;
  /** Modifiers held while the input is delivered (a key combination's, a ctrl+click's): hypruse's names (logo = super). */
  modifiers?: string[];
  workspace?: string;
  command?: string;
  /** The geometry of the window the coordinates were observed on (stale-observation guard). */
  observed?: { address: string; geometry: Rect };
  /** Acts on the compositor as a whole (binds), not a window. */
  global?: boolean;
  /** True when the tool's own guards already ran on a nested call (click_ui -> pointer). */
  nested?: boolean;
  /**
   * The delivery needs nothing of the seat: no pointer, no key events, no focus, active window or
   * visible workspace change (AT-SPI actions, editable text, selection). Background mode lets only
   * such acting calls through.
   */
  seatless?: boolean;
}

/** What a tool does in background mode (config `background`), for its description, the server's instructions and refusals. */
export interface BackgroundSupport {
  /** `yes`: works unchanged; `a11y`: works through accessibility alone where the element allows it; `no`: refused. */
  mode: 'yes' | 'a11y' | 'no';
  /** One line: what works, or the element-level alternative. */
  note: string;
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
  /** Characters a tool that pages (ui, get_text) keeps its text within unless asked for less; 0 = no limit (the CLI). */
  readonly textBudget?: number;
}

export interface ToolDefinition<I extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** Agent-facing text. */
  description: string;
  /** Description used in read-only mode; must not mention acting tools. Defaults to `description`. */
  readonlyDescription?: string;
  /** What the tool can do, for its most dangerous action; annotations derive from it. */
  effect: ToolEffect;
  /** Derived from `effect` by defineTool. */
  kind: ToolKind;
  input: I;
  /**
   * Schema of the result's `data` (MCP structuredContent, CLI --json). Use
   * strict objects: the adapter validates every result against it, and the
   * listed JSON schema forbids undeclared keys.
   */
  output?: z.ZodType;
  /** The listed name on a given compositor (null: none selected), from what its manifest declares (the window-manager tool: `wmToolName`, else `wm`). */
  nameFor?(compositor: ToolListing | null): string;
  /** The other names `nameFor` may list it under: the CLI and the verb table accept each. */
  aliases?: readonly string[];
  /** Background mode: what works (observe tools work unchanged when absent; acting tools are refused when absent). */
  background?: BackgroundSupport;
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

/** A tool as written: `effect` (or, for older plugins, only `kind`: an acting tool of unknown effect counts as destructive). */
export type ToolSpec<I extends z.ZodObject> = Omit<ToolDefinition<I>, 'effect' | 'kind'> &
  ({ effect: ToolEffect; kind?: never } | { kind: ToolKind; effect?: never });

/** A tool plugin: the identity helper keeps inference of `args` from the schema, and derives `kind` from `effect`. */
export function defineTool<I extends z.ZodObject>(def: ToolSpec<I>): ToolDefinition<I> {
  const effect: ToolEffect = def.effect ?? (def.kind === 'observe' ? 'observe' : 'destructive');
  return { ...def, effect, kind: kindOf(effect) } as ToolDefinition<I>;
}

export type AnyTool = ToolDefinition<any>;
