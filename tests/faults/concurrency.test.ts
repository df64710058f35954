// Concurrency over the built server (stdio): observations run concurrently
// (N parallel calls finish in much less than N x one call), input is
// serialized (parallel `keyboard type` calls of distinct strings into one
// field land intact, not interleaved; read back from zenity's own output).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchFixture, requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';

const desk = await requireDesktop();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

describe.skipIf(!desk)('parallel MCP calls', () => {
  let srv: Server;
  beforeAll(async () => {
    srv = await startServer(desk!.env);
  });
  afterAll(async () => {
    await srv?.close();
  });

  async function parallelVsSerial(n: number, call: () => Promise<{ isError: boolean; text: string[] }>) {
    for (let i = 0; i < 3; i++) await call(); // warm
    const singles: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const r = await call();
      singles.push(performance.now() - t);
      expect(r.isError, r.text.join('\n')).toBe(false);
    }
    let best = Number.POSITIVE_INFINITY;
    for (let attempt = 0; attempt < 3; attempt++) {
      const t = performance.now();
      const all = await Promise.all(Array.from({ length: n }, call));
      best = Math.min(best, performance.now() - t);
      for (const r of all) expect(r.isError, r.text.join('\n')).toBe(false);
    }
    return { one: median(singles), parallel: best };
  }

  it('N parallel observations finish in much less than N x one call', async () => {
    const app = await launchFixture('zenity-entry', { workspace: '8' });
    const addr = String((await swayNodes()).find((n) => n.pid === app.pid)!.id);
    const desktop = await parallelVsSerial(20, () => srv.call('desktop'));
    const ui = await parallelVsSerial(4, () => srv.call('ui', { window: addr }));
    const shot = await parallelVsSerial(6, () => srv.call('screenshot', { region: '0,0,640x400' }));
    process.stderr.write(`concurrency: desktop one ${desktop.one.toFixed(1)} ms, 20 parallel ${desktop.parallel.toFixed(1)} ms; ui one ${ui.one.toFixed(0)} ms, 4 parallel ${ui.parallel.toFixed(0)} ms; screenshot one ${shot.one.toFixed(0)} ms, 6 parallel ${shot.parallel.toFixed(0)} ms\n`);
    expect(desktop.parallel).toBeLessThan(20 * desktop.one * 0.5);
    // ui is printed, not asserted: one GTK app answers AT-SPI on one main loop, so parallel reads of the same app do not overlap
    expect(shot.parallel).toBeLessThan(6 * shot.one * 0.75);
  }, 60000);

  it('parallel keyboard type calls into one field are serialized: every string intact, none interleaved', async () => {
    const app = await launchFixture('zenity-entry', { workspace: '9' });
    const addr = String((await swayNodes()).find((n) => n.pid === app.pid)!.id);
    const words = ['AAAAAAAAAA', 'BBBBBBBBBB', 'CCCCCCCCCC', 'DDDDDDDDDD', 'EEEEEEEEEE'];
    const results = await Promise.all(words.map((w) => srv.call('keyboard', { action: 'type', text: w, window: addr })));
    for (const r of results) expect(r.isError, r.text.join('\n')).toBe(false);
    const enter = await srv.call('keyboard', { action: 'key', keys: 'Return', window: addr });
    expect(enter.isError, enter.text.join('\n')).toBe(false);
    // zenity prints the field's text on OK: read independently of our AT-SPI reader
    const out = await waitFor(() => readFileSync(app.stdout, 'utf8').trim(), 5000, 'zenity to print the field');
    expect(out).toHaveLength(words.join('').length);
    expect(out).toMatch(new RegExp(`^(${words.join('|')}){${words.length}}$`));
    for (const w of words) expect(out.split(w).length - 1, `${w} in ${out}`).toBe(1);
  }, 60000);
});
