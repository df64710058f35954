import { TrustError } from '../errors.js';

/** running: the agent may act; paused: by the person's input (takeover) or by hand; stopped: until the agent calls `resume`. */
export type PresenceState = 'running' | 'paused' | 'stopped';

export type PresenceVerdict =
  | { state: 'running' }
  | {
    state: 'paused';
    /** `takeover`: the person used the seat within takeover_ms; `manual`: someone pressed Pause (monitor page). */
    cause: 'takeover' | 'manual';
    /** When to try again (takeover), or null (manual: until Resume). */
    retryAfterMs: number | null;
    by: string;
  }
  | { state: 'stopped'; by: string; at: number };

/** What the takeover detector can see, for `doctor`. */
export interface TakeoverReport {
  /** `ext-idle-notify-v1`, `org_kde_kwin_idle`, `off` or `none`. */
  method: string;
  active: boolean;
  sees: string;
  blind: string;
}

export interface ChordReport {
  combo: string | null;
  registered: boolean;
  detail: string;
}

/**
 * Whether the person left the seat to the agent: the takeover detector (the
 * person's own keyboard and pointer input), the stop chord and the Pause,
 * Resume and Stop buttons share this one state (across hypruse processes of
 * the same session, through a control file in the runtime directory).
 */
export interface Presence {
  /** The verdict for an acting call now. */
  verdict(signal?: AbortSignal): Promise<PresenceVerdict>;
  /** The stop/pause state alone, without waiting on the detector (drag loops, monitor). */
  current(): PresenceVerdict;
  /** Run the agent's own input, so the detector attributes the seat activity it causes to the agent. */
  agentInput<T>(fn: () => Promise<T>): Promise<T>;
  stop(by: string): void;
  pause(by: string): void;
  resume(by: string): PresenceVerdict;
  /** Called on every change of the stop/pause state (and on detected takeovers). */
  onChange(fn: (v: PresenceVerdict) => void): () => void;
  takeover(): TakeoverReport;
  chord(): ChordReport;
  dispose(): Promise<void>;
}

/** The typed refusal for a verdict other than running; `during` names a plan or drag that it interrupts. */
export function presenceError(v: Exclude<PresenceVerdict, { state: 'running' }>, during?: string): TrustError {
  if (during) {
    const why = v.state === 'stopped' ? `stopped by the person (${v.by})` : `paused: the person is using the seat (${v.by})`;
    return new TrustError({
      layer: 'interrupted',
      code: 'refused.interrupted',
      reason: `${during} was ${why}`,
      hint: v.state === 'stopped' ? 'wait for the person; only after they allow it, call resume, then observe again before acting' : 'observe again before acting; the desktop may have changed',
      data: { state: v.state, retryable: v.state === 'paused' && v.cause === 'takeover' },
    });
  }
  if (v.state === 'stopped') {
    return new TrustError({
      layer: 'stopped by the person',
      code: 'refused.stopped',
      reason: `${v.by} stopped hypruse; every acting tool is refused until the person resumes`,
      hint: 'ask the person whether to go on; they resume from the monitor page or their terminal (`hypruse resume`), or confirm when you call resume; then observe again',
      data: { state: 'stopped', retryable: false },
    });
  }
  const after = v.retryAfterMs ?? null;
  return new TrustError({
    layer: 'paused',
    code: 'refused.paused',
    reason: v.cause === 'takeover' ? `the person is using the seat (${v.by}); nothing was sent` : `paused by the person (${v.by}); nothing was sent`,
    hint: v.cause === 'takeover' ? `retry after ${after ?? 0} ms without the person's input; observe again first` : 'wait until the person resumes (the monitor page, `hypruse resume` in their terminal, or confirming your resume call)',
    data: { state: 'paused', cause: v.cause, retryable: v.cause === 'takeover', ...(after !== null ? { retry_after_ms: after } : {}) },
  });
}
