import { readFileSync, readdirSync } from 'node:fs';

/** What launch needs to know about processes (injected so tests can fake a process table). */
export interface ProcessInspector {
  /** The value of one environment variable of a process as it was exec'd, or null (gone, not ours, unreadable). */
  envVar(pid: number, name: string): string | null;
  /** Parent pid, or null. */
  parent(pid: number): number | null;
  /** All visible pids. */
  pids(): number[];
}

/** Linux /proc reader. */
export class ProcfsInspector implements ProcessInspector {
  envVar(pid: number, name: string): string | null {
    let buf: Buffer;
    try {
      buf = readFileSync(`/proc/${pid}/environ`);
    } catch {
      return null;
    }
    const prefix = `${name}=`;
    for (const entry of buf.toString('utf8').split('\0')) {
      if (entry.startsWith(prefix)) return entry.slice(prefix.length);
    }
    return null;
  }

  parent(pid: number): number | null {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(rest[1]);
      return Number.isFinite(ppid) && ppid > 0 ? ppid : null;
    } catch {
      return null;
    }
  }

  pids(): number[] {
    try {
      return readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map(Number);
    } catch {
      return [];
    }
  }
}

/** The env var hypruse puts on a launched command to recognise its windows by process ancestry. */
export const LAUNCH_TOKEN_VAR = 'HYPRUSE_LAUNCH_TOKEN';

/** Does `pid` or one of its ancestors (up to 32 levels) carry the launch token? */
export function carriesToken(inspector: ProcessInspector, pid: number, token: string): boolean {
  let p: number | null = pid;
  for (let depth = 0; p !== null && p > 1 && depth < 32; depth++) {
    if (inspector.envVar(p, LAUNCH_TOKEN_VAR) === token) return true;
    p = inspector.parent(p);
  }
  return false;
}

/** Is any process carrying the token still alive? */
export function tokenAlive(inspector: ProcessInspector, token: string): boolean {
  for (const pid of inspector.pids()) {
    if (inspector.envVar(pid, LAUNCH_TOKEN_VAR) === token) return true;
  }
  return false;
}

/** POSIX single-quote a word for `sh`. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Wrap a command so every process it starts carries the token (and the caller's extra env). */
export function wrapLaunchCommand(command: string, token: string, env: Record<string, string> = {}): string {
  const assigns = [`${LAUNCH_TOKEN_VAR}=${token}`];
  for (const [k, v] of Object.entries(env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new RangeError(`not an environment variable name: ${k}`);
    assigns.push(`${k}=${shQuote(v)}`);
  }
  return `env ${assigns.join(' ')} sh -c ${shQuote(command)}`;
}
