import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The program name, class and title of the window a slow launch opens. */
export const SLOW_LAUNCH_APP = 'hypruse-contract-app';
export const SLOW_LAUNCH_TITLE = 'contract launch';

/**
 * A program named like the class of the one window it opens, 1.5 s after it
 * starts (`execLine` opens it; it sees $APP and $TITLE): the shape in which
 * "a new window whose class is the program's name" would take a stranger's
 * window of that class opened meanwhile. Returns the command to launch.
 */
export function slowLaunchCommand(execLine: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'hypruse-contract-'));
  chmodSync(dir, 0o755);
  const file = path.join(dir, SLOW_LAUNCH_APP);
  writeFileSync(file, `#!/bin/sh\nAPP=${SLOW_LAUNCH_APP}\nTITLE='${SLOW_LAUNCH_TITLE}'\nsleep 1.5\n${execLine}\n`, { mode: 0o755 });
  return file;
}
