import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/** The fields of `/proc/<pid>/stat` that launch matching needs. */
export interface ProcStat {
  pid: number;
  ppid: number;
  pgrp: number;
  session: number;
}

/**
 * Read access to the process table, injected so tests can fake it: the real
 * one reads `/proc` (`procfsTable`); a fake is a few maps.
 */
export interface ProcessTable {
  /** Parent pid of a live process (0 for pid 1), or null when it is gone or unreadable: also the liveness test. */
  parent(pid: number): number | null;
  /** The value of one variable of the environment the process was exec'd with, or null (gone, not ours, unset). */
  envVar(pid: number, name: string): string | null;
  /** Every visible pid. */
  pids(): number[];
  /**
   * Process group and session of a live process, or null. Optional: a table
   * without it (a simulator's fake) matches by ancestry and launch token only.
   */
  group?(pid: number): Pick<ProcStat, 'pgrp' | 'session'> | null;
  /** The program a live process runs (its executable's path, and its argv[0]), or null. Optional, like `group`. */
  program?(pid: number): { exe: string | null; argv0: string | null } | null;
  /** The arguments a live process runs with (argv, the program first), or null (gone, unreadable, empty). Optional, like `group`. */
  args?(pid: number): string[] | null;
}

/** Parse `/proc/<pid>/stat` text; the command name may contain spaces and parentheses. */
export function parseProcStat(text: string): ProcStat | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  // after "(comm) ": state ppid pgrp session ...
  const rest = text.slice(close + 2).split(' ');
  const ppid = Number(rest[1]);
  const pgrp = Number(rest[2]);
  const session = Number(rest[3]);
  if (![pid, ppid, pgrp, session].every(Number.isInteger)) return null;
  return { pid, ppid, pgrp, session };
}

/** `/proc/<pid>/stat` of one process, or null when it is gone or unreadable. */
export function readProcStat(pid: number, procRoot = '/proc'): ProcStat | null {
  try {
    return parseProcStat(readFileSync(`${procRoot}/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** One variable of a NUL-separated environ block (`/proc/<pid>/environ`), or null. */
export function environValue(environ: string, name: string): string | null {
  const prefix = `${name}=`;
  for (const entry of environ.split('\0')) {
    if (entry.startsWith(prefix)) return entry.slice(prefix.length);
  }
  return null;
}

/** `/proc/<pid>/cmdline` as its arguments, or null (gone, unreadable, a kernel thread's empty one). */
function readArgs(pid: number, procRoot: string): string[] | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    const args = readFileSync(`${procRoot}/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
    return args.length ? args : null;
  } catch {
    return null;
  }
}

/** A `ProcessTable` over a procfs mount (default `/proc`). */
export function procfsTableAt(procRoot: string): ProcessTable {
  return {
    parent: (pid) => readProcStat(pid, procRoot)?.ppid ?? null,
    group(pid) {
      const s = readProcStat(pid, procRoot);
      return s ? { pgrp: s.pgrp, session: s.session } : null;
    },
    envVar(pid, name) {
      try {
        return environValue(readFileSync(`${procRoot}/${pid}/environ`, 'utf8'), name);
      } catch {
        return null;
      }
    },
    program(pid) {
      let exe: string | null = null;
      let argv0: string | null = null;
      try {
        exe = readlinkSync(`${procRoot}/${pid}/exe`).replace(/ \(deleted\)$/, '');
      } catch {
        /* another user's process, or gone */
      }
      argv0 = readArgs(pid, procRoot)?.[0] ?? null;
      return exe === null && argv0 === null ? null : { exe, argv0 };
    },
    args: (pid) => readArgs(pid, procRoot),
    pids() {
      try {
        return readdirSync(procRoot).filter((n) => /^\d+$/.test(n)).map(Number);
      } catch {
        return [];
      }
    },
  };
}

/** The Linux process table, read from `/proc`. */
export const procfsTable: ProcessTable = procfsTableAt('/proc');

/** Is a process with this pid alive? (EPERM: alive, owned by someone else.) */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
