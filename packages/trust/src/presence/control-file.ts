import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
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

/** The shared state; a missing or unreadable file is `running` (nobody stopped anything). */
export function readControl(path: string): ControlRecord {
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

/** Written atomically (temp file and rename), 0600 in the 0700 runtime directory. */
export function writeControl(path: string, rec: ControlRecord): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(rec)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}
