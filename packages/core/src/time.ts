/**
 * The one timeout policy. Every ceiling hypruse waits on (compositor IPC,
 * Wayland round trips, capture, AT-SPI, doctor checks) is a base figure
 * measured on an ordinary desktop, multiplied by one scale factor: `timeScale`
 * in the config or HYPRUSE_TIME_SCALE (a slow or emulated machine sets e.g.
 * 10). The factor is set once per process, when the config is loaded;
 * backends read it when they arm a timer, so a backend built before the
 * config was read still obeys it.
 */

export const TIME_SCALE_VAR = 'HYPRUSE_TIME_SCALE';
export const MIN_TIME_SCALE = 0.1;
export const MAX_TIME_SCALE = 100;

let configured: number | null = null;

/** Parses a scale factor; null when the text is not a number in range. */
export function parseTimeScale(raw: string): number | null {
  const v = raw.trim();
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(v)) return null;
  const n = Number(v);
  return n >= MIN_TIME_SCALE && n <= MAX_TIME_SCALE ? n : null;
}

/** Sets the process-wide factor (from the loaded config). */
export function setTimeScale(scale: number): void {
  if (!Number.isFinite(scale) || scale < MIN_TIME_SCALE || scale > MAX_TIME_SCALE) {
    throw new RangeError(`time scale ${scale} is outside ${MIN_TIME_SCALE}..${MAX_TIME_SCALE}`);
  }
  configured = scale;
}

/** Forgets the configured factor (tests). */
export function resetTimeScale(): void {
  configured = null;
}

/**
 * The factor in force: the configured one, or, before any config was
 * loaded (doctor's first checks, tests), HYPRUSE_TIME_SCALE if it parses.
 */
export function timeScale(env: NodeJS.ProcessEnv = process.env): number {
  if (configured !== null) return configured;
  const raw = env[TIME_SCALE_VAR];
  return raw === undefined ? 1 : parseTimeScale(raw) ?? 1;
}

/** A base ceiling in milliseconds, scaled for this machine. */
export function scaledMs(baseMs: number, env?: NodeJS.ProcessEnv): number {
  return Math.max(1, Math.round(baseMs * timeScale(env)));
}

/** Advice appended to every "no answer within N ms" message. */
export function slowMachineHint(): string {
  const s = timeScale();
  return s === 1
    ? `the machine may be slow: set ${TIME_SCALE_VAR} (e.g. 5) to scale every timeout`
    : `the machine may be slower than ${TIME_SCALE_VAR}=${s} allows: raise it`;
}
