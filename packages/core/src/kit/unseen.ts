import { readdirSync, readFileSync } from 'node:fs';
import { scaledMs } from '../time.js';


/**
 * Shared machinery for a launch out of the person's sight (background mode): the command starts
 * held (its shell stops itself before running anything), so the compositor's rule for its pid is
 * in place before any window can map; then it is let go. A simple command is exec'd by that shell,
 * so the pid the rule names is the app's own; a compound one (pipes, lists, redirections) keeps
 * the shell's pid, and the plugin moves its window afterwards (and says so).
 */

/**
 * The agent's workspace of a background-mode server is named this and the server's pid (a
 * compositor may put its own prefix before it, as Hyprland's `special:`), so that every hypruse
 * process (the monitor page above all) tells the agent's workspaces from the person's.
 */
export const AGENT_WORKSPACE_PREFIX = 'hypruse-agent-';

/** Whether a workspace name is a background-mode agent's (`hypruse-agent-PID`, `special:hypruse-agent-PID`). */
export function isAgentWorkspace(name: string): boolean {
  return /^(?:special:)?hypruse-agent-\d+$/.test(name);
}

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

/** Every descendant of `pid` now (children through /proc/PID/task/TID/children, recursively); none where procfs does not list them. */
export function descendantPids(pid: number): number[] {
  const out: number[] = [];
  const queue = [pid];
  while (queue.length) {
    const p = queue.shift()!;
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${p}/task`);
    } catch {
      continue; // gone
    }
    for (const t of tasks) {
      let children = '';
      try {
        children = readFileSync(`/proc/${p}/task/${t}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const c of children.split(/\s+/)) {
        const n = Number(c);
        if (c && Number.isInteger(n) && n > 0 && !out.includes(n)) {
          out.push(n);
          queue.push(n);
        }
      }
    }
  }
  return out;
}

/**
 * Follow a launched command's process tree while its windows may still map: `onNew` is called once
 * for each descendant as it appears (an app that starts its real process as a child, as LibreOffice's
 * oosplash starts soffice.bin, maps its windows from that child's pid). Polled every `everyMs`; stop() ends it.
 */
export function followDescendants(pid: number, onNew: (pid: number) => Promise<void>, everyMs = 15): { stop: () => Promise<void> } {
  const seen = new Set<number>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const d of descendantPids(pid)) {
        if (seen.has(d)) continue;
        seen.add(d);
        await onNew(d).catch(() => undefined);
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}
