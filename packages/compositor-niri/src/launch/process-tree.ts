import { readFileSync, readdirSync } from 'node:fs';

/** Read access to the process table (real: /proc; tests: a fake). */
export interface ProcessTable {
  /** Parent pid, or null when the process is gone or unreadable. */
  parentOf(pid: number): number | null;
  /** Every live process with its parent. */
  list(): Array<{ pid: number; ppid: number }>;
  /** Whether the process's initial environment holds `key=value` (false when unreadable). */
  environHas(pid: number, key: string, value: string): boolean;
}

/** `/proc/<pid>/stat`: the ppid is the 2nd field after the `(comm)` (which may contain spaces and parens). */
function statPpid(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(rest[1]);
    return Number.isFinite(ppid) ? ppid : null;
  } catch {
    return null;
  }
}

export const procfsTable: ProcessTable = {
  parentOf: statPpid,
  environHas(pid, key, value) {
    try {
      return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`${key}=${value}`);
    } catch {
      return false;
    }
  },
  list() {
    const out: Array<{ pid: number; ppid: number }> = [];
    let entries: string[];
    try {
      entries = readdirSync('/proc');
    } catch {
      return out;
    }
    for (const e of entries) {
      if (!/^\d+$/.test(e)) continue;
      const pid = Number(e);
      const ppid = statPpid(pid);
      if (ppid !== null) out.push({ pid, ppid });
    }
    return out;
  },
};

/** Environment variable hypruse puts in a launched process; its descendants inherit it. */
export const LAUNCH_MARK = 'HYPRUSE_LAUNCH_TOKEN';

/**
 * The set of processes descending from a launched root. Descendants are
 * recorded while they are alive (`refresh`); a process re-parented to init
 * after its launcher shell exited is still recognised by the launch mark
 * it inherited in its environment.
 */
export class DescendantTracker {
  readonly known = new Set<number>();

  constructor(
    root: number,
    private readonly table: ProcessTable = procfsTable,
    private readonly mark: string | null = null,
  ) {
    this.known.add(root);
  }

  /** Add the current descendants of every known process. */
  refresh(): void {
    const procs = this.table.list();
    let grew = true;
    while (grew) {
      grew = false;
      for (const p of procs) {
        if (!this.known.has(p.pid) && this.known.has(p.ppid)) {
          this.known.add(p.pid);
          grew = true;
        }
      }
    }
  }

  /** Whether `pid` is the root, a recorded descendant, or has one of them in its parent chain now. */
  owns(pid: number | null | undefined): boolean {
    if (typeof pid !== 'number' || pid <= 0) return false;
    let cur: number | null = pid;
    for (let hops = 0; cur !== null && cur > 1 && hops < 64; hops++) {
      if (this.known.has(cur)) return true;
      cur = this.table.parentOf(cur);
    }
    if (this.mark !== null && this.table.environHas(pid, LAUNCH_MARK, this.mark)) {
      this.known.add(pid);
      return true;
    }
    return false;
  }

  /** Whether any known process is still alive. */
  anyAlive(): boolean {
    for (const pid of this.known) if (this.table.parentOf(pid) !== null) return true;
    return false;
  }
}
