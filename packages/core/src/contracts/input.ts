import type { Point, Rect } from './geometry.js';

export type PointerButton = 'left' | 'right' | 'middle' | 'back' | 'forward';

export interface KeyCombo {
  /** Normalized modifiers: ctrl, shift, alt, logo, altgr. */
  modifiers: Array<'ctrl' | 'shift' | 'alt' | 'logo' | 'altgr'>;
  /** XKB keysym name (Return, a, F5, XF86AudioPlay) or null for a bare modifier tap. */
  key: string | null;
  /** What the user wrote, for messages. */
  source: string;
}

export interface Input {
  /** Which path delivers input (for doctor and result notes). */
  describe(): Promise<{ pointer: string; keyboard: string }>;
  /** One, two (double) or three (triple) clicks, the gap between them under the double-click time. */
  click(button: PointerButton, count: 1 | 2 | 3, signal?: AbortSignal): Promise<void>;
  /**
   * Press `modifiers` in order, run `during` (the clicks of a ctrl+click), then release them in
   * reverse order in all cases: `during` failing, the signal aborting. Never spans calls.
   */
  holdModifiers(modifiers: KeyCombo['modifiers'], during: () => Promise<void>, signal?: AbortSignal): Promise<void>;
  /** Press, run `during` (moves), release in all cases. Press/release never spans calls. */
  drag(button: PointerButton, during: () => Promise<void>, signal?: AbortSignal): Promise<void>;
  /** Wheel notches; positive dy scrolls content down. */
  scroll(dx: number, dy: number, signal?: AbortSignal): Promise<void>;
  /** Absolute motion mapped onto `bounds` (the layout box or one output). For compositors without cursor IPC. */
  moveAbsolute(point: Point, bounds: Rect): Promise<void>;
  type(text: string, signal?: AbortSignal): Promise<void>;
  key(combo: KeyCombo, signal?: AbortSignal): Promise<void>;
  /**
   * Release every held button and key now; safe to call from signal handlers. `final`: the
   * process is ending, so every call in flight or queued is cancelled and nothing is pressed again.
   */
  releaseAll(opts?: { final?: boolean }): Promise<void>;
  dispose(): Promise<void>;
}
