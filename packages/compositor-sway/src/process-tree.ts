import { readFileSync } from 'node:fs';

export interface ProcStat {
  pid: number;
  ppid: number;
  pgrp: number;
  session: number;
}

/** Parse /proc/<pid>/stat text (the command name may contain spaces and parentheses). */
export function parseProcStat(text: string): ProcStat | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const pid = Number(text.slice(0, text.indexOf('(')).trim());
  const rest = text.slice(close + 2).split(' ');
  // rest: state ppid pgrp session ...
  const ppid = Number(rest[1]);
  const pgrp = Number(rest[2]);
  const session = Number(rest[3]);
  if (![pid, ppid, pgrp, session].every(Number.isFinite)) return null;
  return { pid, ppid, pgrp, session };
}

export function readProcStat(pid: number, procRoot = '/proc'): ProcStat | null {
  try {
    return parseProcStat(readFileSync(`${procRoot}/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * Whether `pid` is `rootPid` or was started by it: a descendant through the
 * parent chain, or a member of the session/process group `rootPid` leads
 * (hypruse starts launched commands with setsid, so a child that was
 * re-parented after a double fork still carries the session id).
 */
export function belongsToProcess(pid: number, rootPid: number, read: (pid: number) => ProcStat | null = (p) => readProcStat(p)): boolean {
  if (pid === rootPid) return true;
  const first = read(pid);
  if (!first) return false;
  if (first.session === rootPid || first.pgrp === rootPid) return true;
  let cur: ProcStat | null = first;
  for (let i = 0; i < 64 && cur && cur.ppid > 1; i++) {
    if (cur.ppid === rootPid) return true;
    cur = read(cur.ppid);
  }
  return false;
}
