/** What the bench's row files share: the handle suite.ts passes them, and stopping an app they started by its pid. */
import type { Session } from 'hypruse';
import { sleep } from './measure.js';
import type { Row } from './report.js';

export type Fn = (i: number) => Promise<unknown>;

/** What suite.ts gives a file of rows: its session, the desktop's environment, the rows so far, and its row() measuring hypruse beside a baseline. */
export interface RowBench {
  session: Session;
  env: Record<string, string>;
  rows: Row[];
  row(r: Omit<Row, 'ours'>, ours: Fn, base: Fn | null, opts: { runs: number; baseRuns?: number; warmup?: number }): Promise<Row>;
  fresh(): void;
  runs: number;
  log(m: string): void;
}

/** Stop a process the bench started, by its pid: TERM, up to `waitMs` for it to go, then KILL. */
export async function stopPid(pid: number, waitMs = 5000): Promise<void> {
  if (!(pid > 0)) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return; // gone
  }
  for (let waited = 0; waited < waitMs; waited += 100) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await sleep(100);
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* gone */
  }
}
