/**
 * Office and file-manager task rows: each task of tests/e2e/apps-office.test.ts and apps-thunar.test.ts
 * done once the way an agent does it (the same calls, in process), with a fresh HOME (LibreOffice's
 * first start), reported as the tool calls made, the characters of text they returned and the wall
 * time from the first call to the effect on disk. Every app started here is stopped by its pid.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSession, type Session } from 'hypruse';
import { until as pollUntil } from '@hypruse/contract-kit';
import { sleep } from './lib/measure.js';
import { stopPid } from './lib/bench.js';
import type { Row } from './lib/report.js';

interface Tally {
  calls: number;
  chars: number;
}

/** Wait (up to 20 s) for what a task did to show. */
const until = (what: string, ok: () => boolean | Promise<boolean>, ms = 20000) => pollUntil(what, ok, ms, 100);
const stop = (pid: number) => stopPid(pid);

/** Runs the office and file-manager tasks once each and adds a row per task. */
export async function benchOffice(opts: { rows: Row[]; env: Record<string, string>; log: (m: string) => void }): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'hypruse-bench-office-home-'));
  const out = mkdtempSync(join(tmpdir(), 'hypruse-bench-office-out-'));
  const session: Session = await createSession({ source: 'mcp', noFile: true, env: { ...opts.env, HOME: home } });
  const pids: number[] = [];
  let tally: Tally = { calls: 0, chars: 0 };
  const call = async (tool: string, args: Record<string, unknown>) => {
    const r = (await session.pipeline.call(tool, args)) as { isError?: boolean; text: string[]; data: Record<string, unknown> };
    tally.calls++;
    tally.chars += r.text.reduce((n, t) => n + t.length, 0);
    if (r.isError) throw new Error(`${tool}: ${r.text.join(' ').slice(0, 120)}`);
    return r;
  };
  const task = async (path: string, body: () => Promise<void>) => {
    opts.log(`office: ${path}`);
    tally = { calls: 0, chars: 0 };
    const t0 = performance.now();
    const row: Row = { group: 'office tasks', path, ours: null };
    try {
      await body();
      row.value = `${tally.calls} calls, ${tally.chars} characters returned, ${((performance.now() - t0) / 1000).toFixed(1)} s`;
    } catch (e) {
      row.error = (e as Error).message.split('\n')[0]!.slice(0, 160);
    }
    opts.rows.push(row);
  };
  const zipped = (file: string, member: string) => execFileSync('unzip', ['-p', file, member], { encoding: 'utf8' });
  try {
    let writer = '';
    await task('LibreOffice Writer: launch (first start), close the tip, type, read back, save .odt and .docx', async () => {
      const l = await call('launch', { command: 'libreoffice --writer', wait_s: 30 });
      pids.push(Number(l.data.pid));
      writer = String(l.data.address);
      const tip = ((l.data.dialogs ?? []) as Array<{ address: string }>)[0];
      if (tip) await call('click_ui', { name: 'OK', role: 'push button', window: tip.address });
      await sleep(500);
      await call('keyboard', { action: 'type', text: 'Quarterly report draft', window: writer });
      await call('get_text', { window: writer });
      for (const name of ['report.odt', 'report.docx']) {
        await call('menu', { path: 'File > Save As', window: writer });
        await call('file_dialog', { path: join(out, name) });
      }
      // the window names the .docx once LibreOffice is done with the save (a later launch would see that title change)
      await until('the window to name the .docx', async () => ((await session.pipeline.call('desktop', {})).data?.windows as Array<{ address: string; title: string }>).some((x) => x.address === writer && /^report\.docx /.test(x.title)));
      await until('the .docx text', () => {
        try {
          return zipped(join(out, 'report.docx'), 'word/document.xml').includes('Quarterly report draft');
        } catch {
          return false;
        }
      });
    });
    await task('LibreOffice Calc: six cells by keyboard, read back one by one and as a range, save .ods', async () => {
      const l = await call('launch', { command: 'libreoffice --calc', wait_s: 30 });
      const calc = String(l.data.address);
      if (l.data.class !== 'libreoffice-calc') throw new Error(`launch answered ${String(l.data.class)} "${String(l.data.title)}", not the Calc window`);
      await call('keyboard', { action: 'key', keys: 'ctrl+Home', window: calc });
      await call('keyboard', { action: 'type', text: 'Fruit\tCount\nApples\t42\nPears\t7\n', window: calc });
      for (const name of ['A1', 'B1', 'A2', 'B2', 'A3', 'B3']) await call('get_text', { name, role: 'table cell', window: calc });
      await call('get_text', { role: 'table', window: calc });
      await call('menu', { path: 'File > Save As', window: calc });
      await call('file_dialog', { path: join(out, 'fruit.ods') });
      await until('the .ods', () => existsSync(join(out, 'fruit.ods')) && zipped(join(out, 'fruit.ods'), 'content.xml').includes('Apples'));
      await call('wm', { action: 'close_window', target: calc });
    });
    await stop(pids.pop() ?? 0);

    const folder = join(out, 'Projects');
    mkdirSync(folder);
    for (const f of ['budget.ods', 'notes.txt', 'plan.md']) writeFileSync(join(folder, f), `${f}\n`);
    await task('Thunar: list a folder (list view), select and rename a file, create a folder', async () => {
      const l = await call('launch', { command: `thunar ${folder}`, wait_s: 20 });
      pids.push(Number(l.data.pid));
      const w = String(l.data.address);
      await call('menu', { path: 'View > List View', window: w });
      await call('get_text', { window: w });
      await call('click_ui', { name: 'notes.txt', window: w });
      await call('keyboard', { action: 'key', keys: 'F2', window: w });
      let rename = '';
      await until('the rename dialog', async () => (rename = ((await session.pipeline.call('desktop', {})).data?.windows as Array<{ address: string; title: string }>).find((x) => /^Rename/.test(x.title))?.address ?? '') !== '');
      await call('act', { action: 'set_text', role: 'entry', text: 'meeting notes.txt', window: rename });
      await call('click_ui', { name: 'Rename', role: 'push button', window: rename });
      const m = await call('menu', { path: 'File > Create Folder', window: w });
      const create = ((m.data.opened ?? []) as Array<{ window: string }>)[0]?.window ?? '';
      await call('act', { action: 'set_text', name: 'Enter the name', text: 'Archive 2026', window: create });
      await call('click_ui', { name: 'Create', role: 'push button', window: create });
      await until('the folder on disk', () => readdirSync(folder).includes('Archive 2026') && statSync(join(folder, 'Archive 2026')).isDirectory() && readdirSync(folder).includes('meeting notes.txt'));
      await call('wm', { action: 'close_window', target: w });
    });
  } finally {
    for (const pid of pids) await stop(pid);
    await session.dispose();
    rmSync(out, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}
