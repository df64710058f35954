import { spawn, type StdioOptions } from 'node:child_process';
import { CancelledError, HypruseError, slowMachineHint, type ErrorCode } from '@hypruse/core';

export interface RunToolOptions {
  env: NodeJS.ProcessEnv;
  /** Error code used for every failure (missing tool, timeout, non-zero exit). */
  code: Extract<ErrorCode, `error.${string}`>;
  /** Hint given when the executable is not installed. */
  installHint: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Bytes written to stdin, then stdin is closed. */
  input?: string | Buffer;
  /** Discard stdout/stderr (for tools that fork a daemon holding the pipes, like wl-copy). */
  discardOutput?: boolean;
  /** Stop reading stdout past this many bytes (the child is killed). */
  maxBytes?: number;
}

export interface RunToolResult {
  stdout: Buffer;
  stderr: string;
  exitCode: number | null;
  /** True when stdout was cut at `maxBytes`. */
  overflow: boolean;
}

/**
 * Run an external tool with a hard timeout and AbortSignal support (the child
 * is killed with SIGKILL on either). A missing executable becomes a typed error
 * with the install hint; the exit code is returned, not judged, so callers can
 * read tool-specific failures (wl-paste's "Nothing is copied").
 */
export function runTool(file: string, args: string[], opts: RunToolOptions): Promise<RunToolResult> {
  if (opts.signal?.aborted) return Promise.reject(new CancelledError(`${file} cancelled before it started`));
  return new Promise((resolve, reject) => {
    const stdio: StdioOptions = [opts.input !== undefined ? 'pipe' : 'ignore', opts.discardOutput ? 'ignore' : 'pipe', opts.discardOutput ? 'ignore' : 'pipe'];
    const child = spawn(file, args, { env: opts.env, stdio });
    const out: Buffer[] = [];
    let outLen = 0;
    let overflow = false;
    const err: Buffer[] = [];
    let settled = false;

    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const kill = (): void => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    };
    const onAbort = (): void => {
      kill();
      finish(() => reject(new CancelledError(`${file} cancelled`)));
    };
    const timer = setTimeout(() => {
      kill();
      finish(() =>
        reject(
          new HypruseError(opts.code, `${file} did not finish within ${opts.timeoutMs} ms (killed)`, {
            hint: `The compositor may be stalled (${slowMachineHint()}); try again, or check that the Wayland session is alive.`,
            data: { timeoutMs: opts.timeoutMs, timedOut: true },
          }),
        ),
      );
    }, opts.timeoutMs);
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    child.on('error', (e: NodeJS.ErrnoException) => {
      kill();
      if (e.code === 'ENOENT') {
        finish(() => reject(new HypruseError(opts.code, `${file} is not installed (not found on PATH)`, { hint: opts.installHint, cause: e })));
      } else {
        finish(() => reject(new HypruseError(opts.code, `${file} could not be started: ${e.message}`, { hint: opts.installHint, cause: e })));
      }
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      if (opts.maxBytes !== undefined && outLen + chunk.length > opts.maxBytes) {
        overflow = true;
        const room = opts.maxBytes - outLen;
        if (room > 0) out.push(chunk.subarray(0, room));
        outLen = opts.maxBytes;
        kill();
        return;
      }
      out.push(chunk);
      outLen += chunk.length;
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      if (err.reduce((n, b) => n + b.length, 0) < 64 * 1024) err.push(chunk);
    });
    child.stdin?.on('error', () => {
      /* EPIPE when the tool exits before reading everything: the exit code tells the story. */
    });
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    child.on('close', (exitCode) => {
      finish(() =>
        resolve({
          stdout: out.length === 1 ? out[0] : Buffer.concat(out, outLen),
          stderr: Buffer.concat(err).toString('utf8').trim(),
          exitCode,
          overflow,
        }),
      );
    });
  });
}
