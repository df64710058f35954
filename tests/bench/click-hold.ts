/**
 * How short may a click's press-to-release hold be? For every toolkit at hand
 * (GTK 3, GTK 4, Qt 5 through tests/desktop/click-counter.py) and every hold,
 * 100 clicks through the in-process virtual pointer, each right after moving
 * the cursor (no settle in between, as `pointer click x,y` does), counted by
 * the app itself (one stdout line per `clicked`). Prints a Markdown table.
 *
 *   HYPRUSE_DESKTOP_DIR=... node --conditions=@hypruse/source --import tsx tests/bench/click-hold.ts [--clicks 100] [--holds 0,1,2,5,10,20]
 */
import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { WaylandInput } from '@hypruse/wayland';
import { desktopEnv, killFixture, launchFixture, swayNodes } from '../support/desktop.js';

const run = promisify(execFile);
const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : def;
};
const CLICKS = Number(arg('clicks', '100'));
const HOLDS = arg('holds', '0,1,2,5,10,20').split(',').map(Number);
const KITS = arg('kits', 'gtk3,gtk4,qt5').split(',');

const env = await desktopEnv();
if (!env) {
  process.stderr.write('no test desktop is running (npm run desktop -- start)\n');
  process.exit(1);
}
const swaymsg = (...a: string[]) => run('swaymsg', ['-s', env.SWAYSOCK, ...a], { timeout: 10000 });
const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('click')).length : 0);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function registered(file: string, want: number, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (lines(file) >= want) return true;
    await sleep(2);
  }
  return lines(file) >= want;
}

const results: Array<{ kit: string; hold: number; got: number; total: number; ms: number }> = [];
for (const kit of KITS) {
  let app;
  try {
    app = await launchFixture('click-counter', { workspace: '5', args: [kit] });
  } catch (e) {
    process.stderr.write(`${kit}: cannot start the counter (${(e as Error).message.split('\n')[0]}); skipped\n`);
    continue;
  }
  try {
    const node = (await swayNodes()).find((n) => n.pid === app.pid)!;
    const r = node.rect;
    const at = [
      { x: r.x + Math.round(r.width * 0.4), y: r.y + Math.round(r.height * 0.5) },
      { x: r.x + Math.round(r.width * 0.6), y: r.y + Math.round(r.height * 0.5) },
    ];
    await sleep(500);
    for (const hold of HOLDS) {
      const input = new WaylandInput({ env: { ...process.env, ...env }, keyboard: 'wtype', clickHoldMs: hold });
      try {
        // the first click of a fresh device on this pointerless seat waits for apps to bind a
        // wl_pointer (DEVICE_SETTLE_MS; tests/e2e/input-first-click.test.ts counts those clicks), and
        // an app still repainting the last kit's clicks may bind later than that: one uncounted click first
        await swaymsg('seat', 'seat0', 'cursor', 'set', String(at[0].x), String(at[0].y));
        await input.click('left', 1);
        await sleep(100);
        let got = 0;
        const missed: number[] = [];
        const start = lines(app.stdout);
        const t0 = performance.now();
        for (let i = 0; i < CLICKS; i++) {
          const before = lines(app.stdout);
          const p = at[i % 2];
          await swaymsg('seat', 'seat0', 'cursor', 'set', String(p.x), String(p.y));
          await input.click('left', 1);
          if (await registered(app.stdout, before + 1, 600)) got++;
          else missed.push(i + 1);
          // a short gap like an agent's next click: a button counts each click of a double click too
          await sleep(30);
        }
        const ms = (performance.now() - t0) / CLICKS;
        // a click counted late (a loaded machine) is not a lost click: the app's total tells
        await sleep(1500);
        const total = lines(app.stdout) - start;
        results.push({ kit, hold, got, total, ms });
        process.stderr.write(`${kit} hold ${hold} ms: ${got}/${CLICKS} within 600 ms, ${total}/${CLICKS} in all${missed.length ? ` (late or lost: click ${missed.join(', ')})` : ''}\n`);
      } finally {
        await input.dispose();
      }
    }
  } finally {
    await killFixture(app.pid);
  }
}
process.stdout.write(
  `\n| toolkit | hold ms | clicks registered within 600 ms | clicks registered in all |\n|---|---|---|---|\n${results.map((r) => `| ${r.kit} | ${r.hold} | ${r.got}/${CLICKS} | ${r.total}/${CLICKS} |`).join('\n')}\n`,
);
