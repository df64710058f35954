import { HypruseError } from '../errors.js';
import { LaunchMatcher, LAUNCH_TOKEN_VAR, newLaunchToken } from './launch-match.js';
import type { ProcessTable } from './proc.js';

export interface SpawnedProcess {
  pid: number;
  /** Exit code once the process has exited (null when a signal ended it); undefined while it runs. */
  exitCode(): number | null | undefined;
  /** The signal that ended it ('SIGSEGV'), null when it exited by itself; undefined while it runs. */
  exitSignal?(): string | null | undefined;
  /** The last lines it wrote to its error output while the launch was watched ('' when none or not recorded). */
  errorTail?(maxLines?: number): string;
  /** Stop recording its error output (the record is removed; the process keeps writing where it writes). */
  release?(): void;
}

/** Starts a shell command detached from hypruse, so it outlives the call. */
export type Spawner = (command: string, env: NodeJS.ProcessEnv) => Promise<SpawnedProcess>;

/** Bytes of error output read back for the tail (the last lines live at the end). */
const TAIL_BYTES = 4096;

/**
 * Run `command` with `/bin/sh -c` in its own session (setsid: the child leads
 * its session and process group), not waited for, with stdin and stdout on
 * /dev/null and its error output in a private file under the temp dir, so a
 * command that fails before opening a window can be reported with its own
 * words. The file is unlinked on `release` (the launch wait ends): the app
 * keeps its descriptor and nothing it writes later is kept by hypruse.
 */
export const spawnDetached: Spawner = async (command, env) => {
  // loaded here, not at import: a verb that never launches (or stops at a usage error) skips node:child_process
  const { spawn } = await import('node:child_process');
  const fs = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { randomUUID } = await import('node:crypto');
  let errPath: string | null = join(tmpdir(), `hypruse-launch-${randomUUID()}.err`);
  let errFd: number | 'ignore' = 'ignore';
  try {
    errFd = fs.openSync(errPath, 'wx', 0o600);
  } catch {
    errPath = null; // no temp dir to write to: launch without the record
  }
  const release = () => {
    if (errPath) fs.rmSync(errPath, { force: true });
    errPath = null;
  };
  return new Promise<SpawnedProcess>((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { detached: true, stdio: ['ignore', 'ignore', errFd], env });
    if (typeof errFd === 'number') fs.closeSync(errFd); // the child has its own copy
    let code: number | null | undefined;
    let sig: string | null | undefined;
    child.once('exit', (c, signal) => {
      code = signal ? null : c;
      sig = signal ?? null;
    });
    child.once('error', (err) => {
      release();
      reject(
        new HypruseError('error.compositor', `cannot start /bin/sh for the launch: ${err.message}`, {
          cause: err,
          hint: 'hypruse runs launched commands with /bin/sh; check that it exists and that the process limit is not reached.',
        }),
      );
    });
    child.once('spawn', () => {
      child.unref();
      resolve({
        pid: child.pid!,
        exitCode: () => code,
        exitSignal: () => sig,
        errorTail: (maxLines = 8) => (errPath ? tailLines(fs, errPath, maxLines) : ''),
        release,
      });
    });
  });
};

/** The last `maxLines` non-empty lines of a file (at most its last TAIL_BYTES), '' when unreadable. */
function tailLines(fs: typeof import('node:fs'), path: string, maxLines: number): string {
  try {
    const fd = fs.openSync(path, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const len = Math.min(size, TAIL_BYTES);
      const buf = Buffer.alloc(len);
      fs.readSync(fd, buf, 0, len, size - len);
      const lines = buf.toString('utf8').split('\n').map((l) => l.trimEnd()).filter((l) => l.length > 0);
      if (size > len) lines.shift(); // the first line read is probably cut
      return lines.slice(-maxLines).join('\n');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}

export interface StartedLaunch {
  child: SpawnedProcess;
  token: string;
  /** Recognises the windows of this launch (root: the child; token: in its environment). */
  matcher: LaunchMatcher;
}

/**
 * Start a launch: a fresh token is set in `env` (over any value there), the
 * command is spawned detached, and a matcher for its windows is returned.
 */
export async function startLaunch(
  command: string,
  env: NodeJS.ProcessEnv,
  opts: { spawner?: Spawner; table?: ProcessTable } = {},
): Promise<StartedLaunch> {
  const token = newLaunchToken();
  const child = await (opts.spawner ?? spawnDetached)(command, { ...env, [LAUNCH_TOKEN_VAR]: token });
  return { child, token, matcher: new LaunchMatcher({ root: child.pid, token, table: opts.table }) };
}
