import { readFileSync } from 'node:fs';
import { scaledMs } from '../time.js';


/**
 * Shared machinery for a launch out of the person's sight (background mode): the command starts
 * held (its shell stops itself before running anything), so the compositor's rule for its pid is
 * in place before any window can map; then it is let go. A simple command is exec'd by that shell,
 * so the pid the rule names is the app's own; a compound one (pipes, lists, redirections) keeps
 * the shell's pid, and the plugin moves its window afterwards (and says so).
 */

/** Shell syntax beyond one simple command: `exec` would change what it does. */
const COMPOUND = /[;&|<>()`$\n\\{}]|^\s*\w+=/;

/** Whether the held command is exec'd by its shell (the pid a rule names is then the app's). */
export function heldExecs(command: string): boolean {
  return !COMPOUND.test(command);
}

/** The command wrapped so that its shell stops itself first (SIGSTOP to itself), then runs it. */
export function heldCommand(command: string): string {
  return `kill -STOP $$; ${heldExecs(command) ? `exec ${command}` : command}`;
}

/** How long the held shell may take to stop itself (scaled by the time policy). */
const HOLD_MS = 2000;

function stopped(pid: number): boolean | null {
  try {
    // the state is the field after the parenthesised command name
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'T';
  } catch {
    return null; // gone
  }
}

/**
 * Let a held command go once it has stopped itself (a SIGCONT sent before its SIGSTOP would be
 * lost and leave it stopped for good). True when it was seen stopped and continued.
 */
export async function releaseHeld(pid: number, env?: Record<string, string | undefined>): Promise<boolean> {
  const end = Date.now() + scaledMs(HOLD_MS, env);
  for (;;) {
    const s = stopped(pid);
    if (s === null) return false;
    if (s) {
      process.kill(pid, 'SIGCONT');
      return true;
    }
    if (Date.now() >= end) {
      process.kill(pid, 'SIGCONT'); // never seen stopped: let it go rather than leave it held
      return false;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}
