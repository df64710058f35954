import { spawn } from 'node:child_process';

export interface SpawnedProcess {
  pid: number;
  /** Exit code (or null when killed by a signal) once the process has exited; undefined while it runs. */
  exitCode(): number | null | undefined;
}

/** Starts a shell command detached from hypruse (own process group, no stdio), so it outlives the call. */
export type Spawner = (command: string, env: NodeJS.ProcessEnv) => Promise<SpawnedProcess>;

export const detachedShellSpawner: Spawner = (command, env) =>
  new Promise<SpawnedProcess>((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { detached: true, stdio: 'ignore', env });
    let code: number | null | undefined;
    child.once('exit', (c, signal) => {
      code = signal ? null : c;
    });
    child.once('error', reject);
    child.once('spawn', () => {
      child.unref();
      resolve({ pid: child.pid!, exitCode: () => code });
    });
  });
