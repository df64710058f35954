/**
 * Bench rows of the desktop app families beyond GTK 3 (called by suite.ts): a fresh `ui` of a Qt 5
 * app (featherpad) and of a GTK 4 + libadwaita one (gnome-text-editor), each beside a libatspi walk
 * of the same window (python3-gi, one process: what a script reading the tree would run), and each
 * family's save task as an agent runs it (launch, type, menu, file_dialog): calls, characters the
 * agent reads back and wall time.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { RowBench } from './lib/bench.js';

const run = promisify(execFile);
const DUMP = new URL('../support/atspi-dump.py', import.meta.url).pathname;

export type ToolkitBench = RowBench;

interface Task {
  app: string;
  command: string;
  text: string;
  menu: string;
  /** Where the app keeps what would be restored at its next start (cleared before and after). */
  state?: string;
}

const TASKS: Task[] = [
  { app: 'featherpad (Qt 5)', command: 'featherpad', text: 'hello qt', menu: 'File > Save As' },
  { app: 'gnome-text-editor (GTK 4 + libadwaita)', command: 'gnome-text-editor', text: 'hello gtk4', menu: 'Main Menu > Save As', state: '.local/share/gnome-text-editor' },
];

export async function toolkitRows(b: ToolkitBench): Promise<void> {
  const call = async (tool: string, args: Record<string, unknown>) => {
    // a failed call throws (the pipeline's typed error)
    return b.session.pipeline.call(tool, args);
  };
  const home = b.env.HOME ?? process.env.HOME ?? '/root';
  for (const t of TASKS) {
    if (t.state) rmSync(join(home, t.state), { recursive: true, force: true });
    const out = mkdtempSync(join(tmpdir(), 'hypruse-bench-toolkit-'));
    chmodSync(out, 0o777);
    let pid = 0;
    try {
      // the task as an agent runs it: every call counted, every character it reads back
      const t0 = performance.now();
      let calls = 0;
      let chars = 0;
      const step = async (tool: string, args: Record<string, unknown>) => {
        const r = await call(tool, args);
        calls++;
        chars += r.text.join('\n').length;
        return r;
      };
      const l = await step('launch', { command: t.command, wait_s: 20 });
      pid = Number(l.data?.pid);
      const window = String(l.data?.address);
      await step('ui', { window });
      await step('keyboard', { action: 'type', text: t.text });
      await step('menu', { path: t.menu });
      const file = join(out, 'task.txt');
      await step('file_dialog', { path: file });
      const wall = performance.now() - t0;
      const saved = existsSync(file) ? readFileSync(file, 'utf8') : '';
      b.rows.push({
        group: 'apps',
        path: `${t.app}: launch, ui, type, menu "${t.menu}", file_dialog (the save task)`,
        ours: null,
        value: `${calls} calls, ${chars} characters returned, ${(wall / 1000).toFixed(1)} s wall${saved === `${t.text}\n` ? '' : ' (the file did not hold the text!)'}`,
      });
      // a fresh ui of the document window, beside a libatspi walk of the same app
      let count = 0;
      const r = await b.row(
        { group: 'apps', path: `\`ui\` on ${t.app}, fresh read`, baseline: { name: 'libatspi walk of the app (python3-gi, one process)', stats: null }, target: { text: t.command === 'featherpad' ? '< 80 ms' : '< 100 ms', met: (x) => Boolean(x.ours && x.ours.median < (t.command === 'featherpad' ? 80 : 100)) } },
        async () => {
          b.fresh();
          const u = await call('ui', { window });
          count = (u.data?.elements as unknown[] | undefined)?.length ?? 0;
        },
        () => run('/usr/bin/python3', [DUMP, String(pid)], { env: { ...process.env, ...b.env }, timeout: 30000, maxBuffer: 1 << 26 }),
        { runs: b.runs, baseRuns: 5 },
      );
      r.note = `${count} controls listed`;
    } catch (e) {
      b.rows.push({ group: 'apps', path: `${t.app}: the save task`, ours: null, error: (e as Error).message.split('\n')[0].slice(0, 160) });
    } finally {
      if (pid > 0) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          /* gone */
        }
      }
      rmSync(out, { recursive: true, force: true });
      if (t.state) rmSync(join(home, t.state), { recursive: true, force: true });
    }
  }
}
