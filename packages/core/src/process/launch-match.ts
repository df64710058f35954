import { randomUUID } from 'node:crypto';
import { procfsTable, type ProcessTable } from './proc.js';

/** The environment variable hypruse puts on every launched command; its descendants inherit it. */
export const LAUNCH_TOKEN_VAR = 'HYPRUSE_LAUNCH_TOKEN';

/** A fresh launch token (32 hex digits: safe unquoted in a shell word). */
export function newLaunchToken(): string {
  return randomUUID().replace(/-/g, '');
}

export interface LaunchMatchOptions {
  /** Pid of the process hypruse started (null when the compositor started it, e.g. Hyprland `exec`). */
  root?: number | null;
  /** The launch token put in the command's environment (`LAUNCH_TOKEN_VAR`), or null. */
  token?: string | null;
  /** Default: `/proc`. */
  table?: ProcessTable;
}

/** Parent hops followed before giving up (a real chain is a handful deep). */
const MAX_HOPS = 64;

/**
 * Decides whether a window's pid belongs to one launch: the window's process
 * is the launched pid, a descendant of it (through its parent chain now, or
 * recorded by `refresh` while the chain was intact), a member of the session
 * or process group the launched pid leads (detached spawns call setsid, so a
 * double-forked child re-parented to init keeps it), or it or an ancestor
 * carries the launch token in its environment. Never "any new window".
 */
export class LaunchMatcher {
  /** The root and the processes recognised as part of this launch so far. */
  readonly known = new Set<number>();
  readonly root: number | null;
  readonly token: string | null;
  private readonly table: ProcessTable;

  constructor(opts: LaunchMatchOptions = {}) {
    this.root = typeof opts.root === 'number' && opts.root > 0 ? opts.root : null;
    this.token = opts.token ?? null;
    this.table = opts.table ?? procfsTable;
    if (this.root !== null) this.known.add(this.root);
  }

  /** Record the live descendants of every known process (one pass over the table), so they stay known after re-parenting. */
  refresh(): void {
    if (this.known.size === 0) return;
    const procs: Array<{ pid: number; ppid: number }> = [];
    for (const pid of this.table.pids()) {
      const ppid = this.table.parent(pid);
      if (ppid !== null) procs.push({ pid, ppid });
    }
    for (let grew = true; grew; ) {
      grew = false;
      for (const p of procs) {
        if (!this.known.has(p.pid) && this.known.has(p.ppid)) {
          this.known.add(p.pid);
          grew = true;
        }
      }
    }
  }

  /** Whether the process `pid` belongs to this launch (see the class comment); a match is remembered. */
  owns(pid: number | null | undefined): boolean {
    if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return false;
    if (this.known.has(pid)) return true;
    if (this.root !== null && this.table.group) {
      const g = this.table.group(pid);
      if (g && (g.session === this.root || g.pgrp === this.root)) return this.remember(pid);
    }
    let cur: number | null = pid;
    for (let hops = 0; cur !== null && cur > 1 && hops < MAX_HOPS; hops++) {
      if (this.known.has(cur)) return this.remember(pid);
      if (this.token !== null && this.table.envVar(cur, LAUNCH_TOKEN_VAR) === this.token) return this.remember(pid);
      cur = this.table.parent(cur);
    }
    return false;
  }

  /** Whether any process of this launch is still running: a known one, or any process carrying the token. */
  alive(): boolean {
    for (const pid of this.known) if (this.table.parent(pid) !== null) return true;
    if (this.token === null) return false;
    return this.table.pids().some((pid) => this.table.envVar(pid, LAUNCH_TOKEN_VAR) === this.token);
  }

  private remember(pid: number): true {
    this.known.add(pid);
    return true;
  }
}
