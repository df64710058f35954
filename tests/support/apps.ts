// What the real-app suites share: a server as a stripped MCP host starts it, and stopping an app the
// test launched, by its pid.
import { scaledMs } from '@hypruse/core';
import { waitFor } from './desktop.js';
import { startServerExactEnv, type Server } from './server.js';
import { alive } from './tools.js';

/** The built server with only HOME, PATH and XDG_RUNTIME_DIR (what a stripped host gives), the indicator off. */
export function startStrippedHostServer(home: string, runtimeDir: string): Promise<Server> {
  return startServerExactEnv({ HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin', XDG_RUNTIME_DIR: runtimeDir, HYPRUSE_INDICATOR: '0' });
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
