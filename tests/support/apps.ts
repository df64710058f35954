// What the real-app suites share: a server as a stripped MCP host starts it, and stopping an app the
// test launched, by its pid.
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { waitFor } from './desktop.js';
import { startServerExactEnv, type Server } from './server.js';
import { alive } from './tools.js';

/**
 * The built server with only HOME, PATH and XDG_RUNTIME_DIR (what a stripped host gives), the indicator
 * off, and the run's time policy (npm test measures HYPRUSE_TIME_SCALE from the load: without it the
 * server's 2 s accessibility ceiling stayed unscaled at load 14, and LibreOffice's answers missed it).
 */
export function startStrippedHostServer(home: string, runtimeDir: string): Promise<Server> {
  const scale = process.env.HYPRUSE_TIME_SCALE;
  return startServerExactEnv({ HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin', XDG_RUNTIME_DIR: runtimeDir, HYPRUSE_INDICATOR: '0', ...(scale ? { HYPRUSE_TIME_SCALE: scale } : {}) });
}

/** Stop a process the test's launches started (by its pid): TERM, then KILL if it lingers. */
export async function stopLaunched(pid: number): Promise<void> {
  if (!pid || !alive(pid)) return;
  process.kill(pid, 'SIGTERM');
  try {
    await waitFor(() => !alive(pid), scaledMs(5000), `pid ${pid} to exit`);
  } catch {
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
}

/** What a real-app suite's tests share: its server (started before them), a fresh HOME, a folder any app may write, the pids to stop. */
export interface AppSuite {
  readonly server: Server;
  readonly home: string;
  readonly out: string;
  /** Processes the tests launched: stopped by pid after the suite, last first. */
  readonly pids: number[];
}

/**
 * Registers, in the calling describe, a stripped-host server started before its tests (fresh HOME
 * `hypruse-NAME-home-*`, output folder `hypruse-NAME-out-*` open to the desktop user), and after
 * them every pid in `pids` stopped, then the server closed. `runtimeDir` is read when the suite starts.
 */
export function appSuite(name: string, runtimeDir: () => string): AppSuite {
  const home = mkdtempSync(join(tmpdir(), `hypruse-${name}-home-`));
  const out = mkdtempSync(join(tmpdir(), `hypruse-${name}-out-`));
  chmodSync(out, 0o777);
  const pids: number[] = [];
  let server: Server | undefined;
  beforeAll(async () => {
    server = await startStrippedHostServer(home, runtimeDir());
  }, 60000);
  afterAll(async () => {
    for (const pid of [...pids].reverse()) await stopLaunched(pid).catch(() => undefined);
    await server?.close();
  });
  return {
    get server(): Server {
      if (!server) throw new Error(`the ${name} suite's server has not started`);
      return server;
    },
    home,
    out,
    pids,
  };
}
