import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { assertPrivateDir, ensurePrivateDir, writeFileExclusiveSync } from '@hypruse/core';
import { beaconDir } from '../beacon.js';

/** The stop/pause state every hypruse process of the session shares (the chord, the monitor page, resume). */
export interface ControlRecord {
  v: 1;
  state: 'running' | 'paused' | 'stopped';
  /** Who set it: `the stop chord`, `the monitor page`, `resume`. */
  by: string;
  /** Epoch ms. */
  at: number;
}

export function controlPath(env: NodeJS.ProcessEnv): string {
  return join(beaconDir(env), 'control.json');
}

/**
 * The shared state; a missing or unreadable file is `running` (nobody stopped
 * anything). A folder another user could write is never read: `error.unsafe_dir`.
 */
export function readControl(path: string): ControlRecord {
  try {
    assertPrivateDir(dirname(path));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  try {
    const r = JSON.parse(readFileSync(path, 'utf8')) as ControlRecord;
    if (r && (r.state === 'paused' || r.state === 'stopped' || r.state === 'running') && typeof r.at === 'number') {
      return { v: 1, state: r.state, by: typeof r.by === 'string' ? r.by.slice(0, 80) : 'someone', at: r.at };
    }
  } catch {
    /* missing: running */
  }
  return { v: 1, state: 'running', by: '', at: 0 };
}

/** Written atomically (a fresh exclusive temp file, renamed over), 0600 in the private 0700 folder. */
export function writeControl(path: string, rec: ControlRecord): void {
  ensurePrivateDir(dirname(path));
  writeFileExclusiveSync(path, `${JSON.stringify(rec)}\n`);
}
