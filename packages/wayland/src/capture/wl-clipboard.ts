import { HypruseError, UsageError, scaledMs, type Clipboard, type ClipboardContent } from '@hypruse/core';
import { runTool } from './run-tool.js';

export interface WlClipboardOptions {
  env: NodeJS.ProcessEnv;
  /** Per-call ceiling, default 5 s. */
  timeoutMs?: number;
}

const INSTALL_HINT = 'Install wl-clipboard (Debian/Ubuntu: `apt install wl-clipboard`, Arch: `pacman -S wl-clipboard`), which provides wl-paste and wl-copy.';

/** Largest clipboard payload read; beyond it the content is reported by size only. */
const MAX_READ_BYTES = 64 * 1024 * 1024;

const EMPTY_RE = /nothing is copied|no selection|clipboard is empty|no suitable type/i;

/** MIME types that wl-paste can hand over as text. */
export function isTextType(mime: string): boolean {
  const m = mime.toLowerCase();
  return m.startsWith('text/') || m === 'utf8_string' || m === 'string' || m === 'text' || m === 'compound_text';
}

/** Truncate to at most `maxChars` code points; counts code points, not UTF-16 units. */
export function truncateText(text: string, maxChars: number): Extract<ClipboardContent, { kind: 'text' }> {
  const chars = Array.from(text);
  if (chars.length <= maxChars) return { kind: 'text', text, truncated: false, totalChars: chars.length };
  return { kind: 'text', text: chars.slice(0, maxChars).join(''), truncated: true, totalChars: chars.length };
}

/** The clipboard through wl-clipboard's `wl-paste` and `wl-copy`. */
export class WlClipboard implements Clipboard {
  private readonly env: NodeJS.ProcessEnv;
  private readonly baseTimeoutMs: number;
  /** Scaled by the time policy when armed. */
  private get timeoutMs(): number {
    return scaledMs(this.baseTimeoutMs);
  }

  constructor(opts: WlClipboardOptions) {
    this.env = opts.env;
    this.baseTimeoutMs = opts.timeoutMs ?? 5000;
  }

  async describe(): Promise<string> {
    const r = await this.paste(['--version']);
    const v = `${r.stdout.toString('utf8')}${r.stderr}`.match(/\d+\.\d+(\.\d+)?/);
    return `wl-clipboard${v ? ` ${v[0]}` : ''} (wl-paste / wl-copy)`;
  }

  private paste(args: string[], signal?: AbortSignal, maxBytes?: number) {
    return runTool('wl-paste', args, { env: this.env, code: 'error.clipboard', installHint: INSTALL_HINT, timeoutMs: this.timeoutMs, signal, maxBytes });
  }

  private failed(what: string, r: { exitCode: number | null; stderr: string }): HypruseError {
    return new HypruseError('error.clipboard', `${what} failed (exit ${r.exitCode ?? 'signal'}): ${r.stderr || 'no message'}`, {
      hint: 'wl-clipboard needs a running Wayland session: check WAYLAND_DISPLAY and XDG_RUNTIME_DIR.',
    });
  }

  async read(maxChars: number, signal?: AbortSignal): Promise<ClipboardContent> {
    if (!(Number.isInteger(maxChars) && maxChars > 0)) throw new UsageError(`maxChars ${maxChars} must be a positive integer`);
    const types = await this.paste(['--list-types'], signal);
    if (types.exitCode !== 0) {
      if (EMPTY_RE.test(types.stderr)) return { kind: 'empty' };
      throw this.failed('wl-paste --list-types', types);
    }
    const mimes = types.stdout.toString('utf8').split('\n').map((s) => s.trim()).filter(Boolean);
    if (mimes.length === 0) return { kind: 'empty' };
    const textType = mimes.find((m) => m.toLowerCase() === 'text/plain;charset=utf-8') ?? mimes.find((m) => m.toLowerCase().startsWith('text/plain')) ?? mimes.find(isTextType);
    const args = textType ? ['--no-newline', '--type', textType] : ['--no-newline', '--type', mimes[0]];
    const r = await this.paste(args, signal, MAX_READ_BYTES);
    if (r.exitCode !== 0 && !r.overflow) {
      if (EMPTY_RE.test(r.stderr)) return { kind: 'empty' };
      throw this.failed(`wl-paste ${args.join(' ')}`, r);
    }
    if (!textType || r.overflow) return { kind: 'binary', mime: mimes, bytes: r.stdout.length };
    if (r.stdout.length === 0) return { kind: 'empty' };
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(r.stdout);
    } catch {
      return { kind: 'binary', mime: mimes, bytes: r.stdout.length };
    }
    return truncateText(text, maxChars);
  }

  async write(text: string, signal?: AbortSignal): Promise<void> {
    if (text.length === 0) throw new UsageError('clipboard write needs text', { hint: 'Pass the text to copy; to clear the clipboard use wl-copy --clear yourself.' });
    // wl-copy forks a daemon that keeps serving the selection and inherits
    // stdout/stderr: capturing them would wait for that daemon forever, so
    // both go to /dev/null and only the exit status is read.
    const r = await runTool('wl-copy', [], {
      env: this.env,
      code: 'error.clipboard',
      installHint: INSTALL_HINT,
      timeoutMs: this.timeoutMs,
      signal,
      input: text,
      discardOutput: true,
    });
    if (r.exitCode !== 0) {
      throw new HypruseError('error.clipboard', `wl-copy failed (exit ${r.exitCode ?? 'signal'})`, {
        hint: 'Run `wl-copy hello` in the same session to see the error; wl-copy needs WAYLAND_DISPLAY.',
      });
    }
  }
}
