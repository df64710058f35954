import type { Point } from './geometry.js';

/** What the agent is doing, as the person sees it on screen. */
export interface IndicatorAct {
  /** The label text, e.g. `agent · typing`, `agent · clicking "Save"`. */
  label: string;
  /** Global logical points where pointer input lands: a ring is drawn at each. */
  points: Point[];
}

/** Whether this session can show the indicator, for `doctor`. */
export interface IndicatorReport {
  possible: boolean;
  /** What it draws with (possible), or why it cannot (`no zwlr_layer_shell_v1`). */
  detail: string;
}

/**
 * The on-screen indicator: click-through surfaces on every monitor (an edge
 * glow, a label saying what the agent does, a ring at each pointer target)
 * while the agent acts, fading after the last action. It never delays or
 * breaks an action: `acting` and `idle` return at once and never throw.
 * Every capture of the screen goes through `hideForCapture` first, so no
 * captured image holds its pixels.
 */
export interface Indicator {
  /** The agent starts an action: show (or update) the glow, the label and rings. */
  acting(act: IndicatorAct): void;
  /** The action ended: start the fade-out clock. */
  idle(): void;
  /**
   * Unmap every surface and wait until the compositor confirmed they are gone
   * (a round trip after the unmap); resolves with the function that shows
   * them again. Never rejects: when the compositor cannot confirm, the
   * indicator disconnects and stays off.
   */
  hideForCapture(signal?: AbortSignal): Promise<() => void>;
  /** Can the indicator be shown on this desktop (doctor)? */
  probe(signal?: AbortSignal): Promise<IndicatorReport>;
  dispose(): Promise<void>;
}
