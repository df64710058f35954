import type { Point, Rect } from './contracts/geometry.js';

/**
 * State of one session (one MCP connection or one CLI run; CLI verbs persist
 * parts of it in the runtime dir, keyed by compositor instance).
 */
export interface SessionState {
  /** Windows hypruse launched (the `launched` confinement scope). */
  launched: Set<string>;
  /** Strict seat baseline: where the cursor and focus were after hypruse last acted or looked. */
  seat: { cursor: Point | null; focus: string | null; at: number } | null;
  /** Window geometry seen by the last observation, per address (stale-observation guard). */
  observed: Map<string, Rect>;
  /** Free-form per-session values owned by tools/trust layers (marks, ...). */
  bag: Map<string, unknown>;
}

export function newSession(): SessionState {
  return { launched: new Set(), seat: null, observed: new Map(), bag: new Map() };
}
