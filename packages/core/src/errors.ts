/**
 * One error taxonomy for every adapter. The category alone decides the exit
 * code (see `exitCodeFor`); the code is a stable dotted identifier documented
 * in docs/errors.md (a test keeps the two in step).
 */
export type ErrorCategory = 'usage' | 'refused' | 'not_found' | 'unsupported' | 'cancelled' | 'error';

export const ERROR_CODES = {
  'usage.arguments': 'Tool arguments failed validation (the message names the field, what was given and what is accepted).',
  'usage.verb': 'Unknown CLI verb or sub-command.',
  'usage.flag': 'Unknown or malformed CLI flag.',
  'usage.config': 'The configuration file or a HYPRUSE_* variable is invalid.',
  'usage.address': 'A window address is malformed.',
  'usage.workspace': 'A workspace name is malformed or unsafe.',
  'usage.combo': 'A key combination could not be parsed.',
  'usage.region': 'A region or size is malformed.',
  'refused.readonly': 'Read-only mode: acting tools are not available.',
  'refused.confine': 'Confinement: the target is outside the allowed scope.',
  'refused.auth': 'Auth guard: an authentication dialog or password field is involved.',
  'refused.lock': 'The session is locked.',
  'refused.seat': 'Strict mode: the person moved the cursor or focus since hypruse last looked.',
  'refused.stale': 'Strict mode: the window moved or resized since the coordinates were observed.',
  'refused.layer': 'A launcher, lock screen or on-screen keyboard covers the point or holds the keyboard.',
  'refused.dangerous': 'The control looks dangerous (Delete, Send, Pay, ...) and the human did not confirm.',
  'refused.policy': 'The per-app policy tier does not allow this action on that window.',
  'refused.bind': 'The key combination is (or cannot be ruled out as) a compositor binding; bindings run only through use_bind.',
  'refused.modifier': "Under confinement, input holding the compositor's own modifier (super...) is refused unless the person allowed it.",
  'refused.replay': 'The journal entry cannot be replayed safely.',
  'refused.paused': 'The person used the keyboard or pointer within takeover_ms (or pressed Pause): nothing was sent; retryable.',
  'refused.stopped': 'The person pressed the stop chord (or Stop on the monitor page): acting tools are refused until resume.',
  'refused.stopped_by_person': 'resume from the agent was refused: the person stopped or paused hypruse, and only the person lifts it (the chord, the monitor page, `hypruse resume` in a terminal, or a confirmation the client shows them).',
  'refused.interrupted': 'A running sequence or drag was interrupted because the person took over or stopped hypruse.',
  'refused.password': 'act set_text was asked to fill a password field while a11y.setPasswords is off.',
  'refused.background': 'Background mode: the call would move the person\'s pointer, send keys to their seat, or change their focus, active window or visible workspace; nothing was sent (the message names the element-level alternative).',
  'refused.request_state': 'The requestState sent back with a confirmation (2026-07-28 input_required) was altered, expired, already answered, or issued for another tool or other arguments: nothing was done; call again without it.',
  'refused.guard_failed': 'A trust layer failed unexpectedly, so the action was refused (fail closed).',
  'not_found.window': 'No window with that address (or no active window).',
  'not_found.workspace': 'No such workspace.',
  'not_found.element': 'No accessibility element matched.',
  'not_found.ambiguous': 'Several elements matched; candidates are returned, nothing was clicked.',
  'not_found.option': 'The combo box, list or tab list has no option with that label (its options are listed).',
  'not_found.menu': 'A label of the menu path matched no item of the open menu (its items are listed).',
  'not_found.dialog': 'No file dialog (Open/Save) is open, or it did not close after its default button.',
  'not_found.tree': 'The application exposes no accessibility tree.',
  'not_found.stale_id': 'An element id no longer names the element it was given to (gone, or another role or name now); the current candidates are returned, nothing was done.',
  'not_found.mark': 'No such mark; call marks first.',
  'not_found.bind': 'No key binding with that combination.',
  'not_found.timeout': 'wait_for timed out before the event happened.',
  'not_found.launch': 'The launched process opened no window in time.',
  'not_found.sequence': 'The sequence stopped early (unexpected desktop change or a failed step).',
  'not_found.monitor': 'No such monitor.',
  'not_found.clipboard': 'The clipboard is empty.',
  'not_found.desk': 'No private desk of that name is running (`hypruse desk status` lists them).',
  'unsupported.capability': 'The compositor cannot do this (the message says why).',
  'unsupported.compositor': 'No supported compositor was found.',
  'unsupported.desk': 'A private desk cannot start here: its compositor is not installed (the message names the package), cannot run headless, or refuses to run as this user.',
  'error.compositor': 'The compositor IPC failed or answered with an error.',
  'error.ipc_closed': 'The compositor socket closed mid-call.',
  'error.events': 'The compositor event stream is unavailable.',
  'error.wayland': 'The Wayland connection failed or the compositor sent a protocol error.',
  'error.input': 'Input delivery failed.',
  'error.capture': 'Screen capture failed.',
  'error.image': 'Image encoding failed or the image cannot fit the size budget.',
  'error.launch_exited': 'The launched command ended before opening a window (its exit status and last error output are in the message).',
  'error.window_gone': 'The window the call typed into closed while it ran, so some keys may have reached another window (the message names the window of the same program that replaced it, or the one that has the focus now).',
  'error.a11y': 'The accessibility bus failed or an app did not answer within the ceiling.',
  'error.unverified': 'The action was sent but the element does not show its effect (the message says what it shows instead).',
  'error.clipboard': 'The clipboard tools failed.',
  'error.plugin': 'A plugin failed to load or register.',
  'error.config': 'The configuration could not be read.',
  'error.internal': 'An unexpected internal error.',
  'error.journal': 'The journal could not be read or written.',
  'error.desk': 'A private desk failed to start or to stop (the message names the process and the tail of its log).',
  'error.unsafe_dir': 'A folder hypruse keeps its files in is not private (another user owns it, others can write in it, or it is a link): refused, nothing written there.',
  'cancelled.request': 'The client cancelled the call or the server is stopping.',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface HypruseErrorOptions {
  hint?: string;
  data?: Record<string, unknown>;
  cause?: unknown;
}

export class HypruseError extends Error {
  readonly category: ErrorCategory;
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly data?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, opts: HypruseErrorOptions = {}) {
    super(message, opts.cause !== undefined ? { cause: opts.cause } : undefined);
    this.name = 'HypruseError';
    this.code = code;
    this.category = code.split('.')[0] as ErrorCategory;
    this.hint = opts.hint;
    this.data = opts.data;
  }
}

export class UsageError extends HypruseError {
  constructor(message: string, opts: HypruseErrorOptions & { code?: Extract<ErrorCode, `usage.${string}`> } = {}) {
    super(opts.code ?? 'usage.arguments', message, opts);
    this.name = 'UsageError';
  }
}

export class TrustError extends HypruseError {
  readonly layer: string;
  constructor(opts: { layer: string; reason: string; hint?: string; code?: Extract<ErrorCode, `refused.${string}`>; data?: Record<string, unknown> }) {
    super(opts.code ?? 'refused.guard_failed', `${opts.layer}: ${opts.reason}`, { hint: opts.hint, data: opts.data });
    this.name = 'TrustError';
    this.layer = opts.layer;
  }
}

export class NotFoundError extends HypruseError {
  constructor(code: Extract<ErrorCode, `not_found.${string}`>, message: string, opts: HypruseErrorOptions = {}) {
    super(code, message, opts);
    this.name = 'NotFoundError';
  }
}

export class UnsupportedError extends HypruseError {
  readonly compositor: string;
  readonly capability: string;
  constructor(compositor: string, capability: string, reason: string, hint?: string) {
    super('unsupported.capability', `not supported on ${compositor}: ${capability} (${reason})`, { hint, data: { compositor, capability } });
    this.name = 'UnsupportedError';
    this.compositor = compositor;
    this.capability = capability;
  }
}

export class DryRunError extends HypruseError {
  constructor(what: string) {
    super('refused.guard_failed', `dry run: ${what} was about to be delivered; nothing was delivered`);
    this.name = 'DryRunError';
  }
}

export class CancelledError extends HypruseError {
  constructor(message = 'cancelled') {
    super('cancelled.request', message);
    this.name = 'CancelledError';
  }
}

/** Wrap anything thrown into a HypruseError (unknown errors become error.internal). */
export function toHypruseError(err: unknown): HypruseError {
  if (err instanceof HypruseError) return err;
  // a plugin bundling its own copy of hypruse throws errors of another class with the same shape
  if (isHypruseShaped(err)) {
    const e = new HypruseError(err.code, err.message, { hint: err.hint, data: err.data, cause: err });
    return e;
  }
  if (err instanceof Error && err.name === 'AbortError') return new CancelledError();
  const message = err instanceof Error ? err.message : String(err);
  return new HypruseError('error.internal', message, { cause: err });
}

function isHypruseShaped(err: unknown): err is { code: ErrorCode; message: string; hint?: string; data?: Record<string, unknown> } {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; category?: unknown; message?: unknown };
  return typeof e.code === 'string' && e.code in ERROR_CODES && typeof e.category === 'string' && e.code.startsWith(`${e.category}.`) && typeof e.message === 'string';
}

/** The one mapping from category to CLI exit code. */
export function exitCodeFor(category: ErrorCategory): number {
  switch (category) {
    case 'usage':
      return 2;
    case 'refused':
      return 3;
    case 'not_found':
      return 4;
    default:
      return 1;
  }
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CancelledError();
}

/** Background mode's refusal: what would have needed the person's seat, and the element-level way instead. */
export function backgroundRefusal(what: string, alternative?: string): TrustError {
  return new TrustError({
    layer: 'background',
    code: 'refused.background',
    reason: `${what}; in background mode hypruse never moves the person's pointer, sends keys to their seat or changes their focus or visible workspace, so nothing was sent`,
    hint: alternative ?? 'act on elements (click_ui, act, menu, file_dialog) through accessibility, or ask the person to turn background mode off',
  });
}
