// What the real-app suites share: a server as a stripped MCP host starts it, and stopping an app the
// test launched, by its pid.
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
