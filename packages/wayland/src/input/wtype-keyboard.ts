/**
 * Keyboard through the `wtype` binary: the fallback when the in-process
 * keyboard cannot pass its keymap fd (koffi did not load). wtype loses the first
 * key of a fresh keymap unless it sleeps after uploading it, hence `-s 20`.
 */
import { spawn } from 'node:child_process';
import { CancelledError, HypruseError, scaledMs, slowMachineHint, type KeyCombo } from '@hypruse/core';

const WTYPE_MODS: Record<KeyCombo['modifiers'][number], string> = {
  ctrl: 'ctrl',
  shift: 'shift',
  alt: 'alt',
  logo: 'logo',
  altgr: 'altgr',
};

/** wtype arguments for a combo: `-s 20 -M mod... (-k keysym | char) -m mod...` (releases in reverse order). */
export function wtypeComboArgs(combo: KeyCombo): string[] {
  const args = ['-s', '20'];
  for (const m of combo.modifiers) args.push('-M', WTYPE_MODS[m]);
  if (combo.key !== null) {
    // wtype -k wants keysym names ("slash", not "/"): one character goes as text; "-" alone would mean stdin.
    if (combo.key === '-') args.push('-k', 'minus');
    else if ([...combo.key].length === 1) args.push(combo.key);
    else args.push('-k', combo.key);
  }
  for (const m of [...combo.modifiers].reverse()) args.push('-m', WTYPE_MODS[m]);
  return args;
}

export class WtypeKeyboard {
  constructor(private readonly env: NodeJS.ProcessEnv, private readonly timeoutMs = 15000) {}

  get description(): string {
    return 'wtype';
  }

  type(text: string, signal?: AbortSignal): Promise<void> {
    return this.run(['-s', '20', '-'], text, signal);
  }

  key(combo: KeyCombo, signal?: AbortSignal): Promise<void> {
    return this.run(wtypeComboArgs(combo), null, signal);
  }

  private run(args: string[], stdin: string | null, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(new CancelledError());
    const limit = scaledMs(this.timeoutMs);
    return new Promise<void>((resolve, reject) => {
      const child = spawn('wtype', args, { env: this.env, stdio: [stdin === null ? 'ignore' : 'pipe', 'ignore', 'pipe'] });
      let stderr = '';
      let done = false;
      const finish = (err?: Error) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve();
      };
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        finish(new HypruseError('error.input', `wtype did not finish within ${limit} ms`, { hint: `Check that the compositor is responsive (${slowMachineHint()}).` }));
      }, limit);
      const onAbort = () => {
        child.kill('SIGKILL');
        finish(new CancelledError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', (err: NodeJS.ErrnoException) =>
        finish(
          err.code === 'ENOENT'
            ? new HypruseError('error.input', 'wtype is not installed and the in-process keyboard is unavailable', {
                hint: 'Install wtype, or reinstall hypruse with its optional dependency koffi for the in-process keyboard.',
              })
            : new HypruseError('error.input', `wtype failed to start: ${err.message}`, { cause: err }),
        ),
      );
      child.on('close', (code) => {
        if (code === 0) finish();
        else finish(new HypruseError('error.input', `wtype failed (exit ${code}): ${stderr.trim() || 'no message'}`, { hint: 'Check WAYLAND_DISPLAY and that the compositor supports zwp_virtual_keyboard_v1.' }));
      });
      if (stdin !== null) {
        child.stdin?.on('error', () => {});
        child.stdin?.end(stdin);
      }
    });
  }
}
