import type { Intent, ToolKind } from './tool.js';
import type { ToolResult } from '../result.js';
import type { HypruseConfig } from '../config/schema.js';
import type { SessionState } from '../session.js';
import type { AnyTool, ToolServices } from './tool.js';

export interface TrustCall {
  readonly id: number;
  readonly tool: string;
  readonly kind: ToolKind;
  /** Validated arguments. */
  readonly args: Record<string, unknown>;
  /** Arguments as the caller sent them (for the journal). */
  readonly rawArgs: Record<string, unknown>;
  /** The tool's definition (its input and output schemas tell the journal which fields are facts). */
  readonly definition?: AnyTool;
  /** What the call will touch (memoized; resolving may throw, e.g. an unknown window). null for observations. */
  intent(): Promise<Intent | null>;
  readonly config: HypruseConfig;
  readonly session: SessionState;
  readonly services: ToolServices;
  readonly signal: AbortSignal;
  readonly dryRun: boolean;
  /** The session environment (Tokens.SessionEnv): where the journal, beacon and lock probe look, never process.env. */
  readonly env: NodeJS.ProcessEnv;
  /** The enclosing call (sequence step, click_ui -> pointer). */
  readonly parent: TrustCall | null;
  readonly source: 'mcp' | 'cli' | 'replay';
  /** The human allowed an auth dialog for this call (`allow_auth`). */
  readonly allowAuth: boolean;
  /** The human confirmed a dangerous action for this call (`confirm`). */
  readonly confirmed: boolean;
  confirm?(message: string): Promise<boolean | null>;
  /** Notes added by layers, appended to the result text. */
  notes: string[];
}

export type Next = () => Promise<ToolResult>;

export interface TrustLayer {
  readonly name: string;
  /** Position in TRUST_ORDER (lower runs first, outermost). */
  readonly order: number;
  appliesTo?(call: TrustCall): boolean;
  handle(call: TrustCall, next: Next): Promise<ToolResult>;
}

/** The one table of trust-layer order (outermost first). */
export const TRUST_ORDER = {
  journal: 10,
  beacon: 15,
  readonly: 20,
  background: 22,
  presence: 25,
  lock: 30,
  auth: 40,
  confine: 50,
  policy: 55,
  strict: 60,
  layer: 70,
  dangerous: 75,
  mark: 80,
  indicator: 83,
  'agent-input': 85,
  'dry-run': 90,
} as const;
