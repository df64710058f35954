import { HypruseError } from '../errors.js';
import { LaunchMatcher, LAUNCH_TOKEN_VAR, newLaunchToken } from './launch-match.js';
import type { ProcessTable } from './proc.js';

export interface SpawnedProcess {
  pid: number;
  /** Exit code once the process has exited (null when a signal ended it); undefined while it runs. */
  exitCode(): number | null | undefined;
}

/** Starts a shell command detached from hypruse, so it outlives the call. */
export type Spawner = (command: string, env: NodeJS.ProcessEnv) => Promise<SpawnedProcess>;

/**
 * Run `command` with `/bin/sh -c` in its own session (setsid: the child leads
 * its session and process group), with no stdio and not waited for.
 */
export const spawnDetached: Spawner = async (command, env) => {
  // loaded here, not at import: a verb that never launches (or stops at a usage error) skips node:child_process
  const { spawn } = await import('node:child_process');
  return new Promise<SpawnedProcess>((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { detached: true, stdio: 'ignore', env });
    let code: number | null | undefined;
    child.once('exit', (c, signal) => {
      code = signal ? null : c;
    });
    child.once('error', (err) =>
      reject(
        new HypruseError('error.compositor', `cannot start /bin/sh for the launch: ${err.message}`, {
          cause: err,
          hint: 'hypruse runs launched commands with /bin/sh; check that it exists and that the process limit is not reached.',
        }),
      ),
    );
    child.once('spawn', () => {
      child.unref();
      resolve({ pid: child.pid!, exitCode: () => code });
    });
  });
};

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
