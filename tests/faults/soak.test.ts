// Soak: 2,000 mixed tool calls through one in-process session on the real
// desktop (mostly observations and cheap actions), with no growth in open
// file descriptors, sockets or child processes, bounded memory, and the
// screenshot directory kept at its configured size. The numbers are printed.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, type Session } from 'hypruse';
import { launchFixture, requireDesktop, swayNodes } from '../support/desktop.js';

const desk = await requireDesktop();
const CALLS = 2000;

interface Sample {
  fds: number;
  sockets: number;
  children: number;
  rssMiB: number;
  heapMiB: number;
}

function sample(): Sample {
  const fdDir = '/proc/self/fd';
  let fds = 0;
  let sockets = 0;
  for (const fd of readdirSync(fdDir)) {
    try {
      const target = readlinkSync(join(fdDir, fd));
      fds++;
      if (target.startsWith('socket:')) sockets++;
    } catch {
      /* closed while listing (the readdir fd itself) */
    }
  }
  let children = 0;
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid) children++;
    } catch {
      /* gone */
    }
  }
  const m = process.memoryUsage();
  return { fds, sockets, children, rssMiB: m.rss / 2 ** 20, heapMiB: m.heapUsed / 2 ** 20 };
}

describe.skipIf(!desk)('soak: 2,000 mixed calls through one session', () => {
  let s: Session;
  beforeAll(async () => {
    s = await createSession({ source: 'mcp', noFile: true, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', LANG: process.env.LANG || 'C.UTF-8', ...desk!.env } });
  });
  afterAll(async () => {
    await s?.dispose();
  });

  it('no growth in fds, sockets or child processes; bounded memory; under a minute', async () => {
    const app = await launchFixture('zenity-entry', { workspace: '7' });
    const node = (await swayNodes()).find((n) => n.pid === app.pid)!;
    const addr = String(node.id);
    const r = node.rect;
    const spot = (i: number) => ({ x: r.x + 40 + (i % 50), y: r.y + Math.round(r.height * 0.6) });
    const counts: Record<string, number> = {};
    const errors: string[] = [];
    const one = async (i: number) => {
      const k = i % 40;
      let tool: string;
      let args: Record<string, unknown>;
      if (k < 18) [tool, args] = ['desktop', {}];
      else if (k < 32) [tool, args] = ['pointer', { action: 'move', ...spot(i) }];
      else if (k < 34) [tool, args] = ['screenshot', { region: `${r.x + 10},${r.y + 10},120x90` }];
      else if (k < 36) [tool, args] = ['zoom', { x: r.x + 200, y: r.y + 200, size: '160x120' }];
      else if (k < 38) [tool, args] = ['wm', { action: 'focus_window', target: addr }];
      else if (k < 39) [tool, args] = ['ui', { window: addr }];
      else [tool, args] = ['wm', { action: 'focus_window', target: '2147000000' }]; // an expected not_found, every 40th call
      counts[tool] = (counts[tool] ?? 0) + 1;
      try {
        await s.pipeline.call(tool, args);
        if (k === 39) errors.push(`call ${i}: ${tool} unexpectedly succeeded`);
      } catch (e) {
        if (k !== 39) errors.push(`call ${i}: ${tool}: ${(e as Error).message}`);
      }
    };
    const t0 = Date.now();
    for (let i = 0; i < 200; i++) await one(i);
    global.gc?.();
    const warm = sample();
    const mid: Sample[] = [];
    for (let i = 200; i < CALLS; i++) {
      await one(i);
      if (i % 450 === 0) mid.push(sample());
    }
    await new Promise((res) => setTimeout(res, 300));
    global.gc?.();
    const end = sample();
    const seconds = (Date.now() - t0) / 1000;
    const shots = readdirSync(join(desk!.env.XDG_RUNTIME_DIR, 'hypruse')).filter((f) => f.startsWith('shot-')).length;
    const report = {
      calls: CALLS,
      seconds: Number(seconds.toFixed(1)),
      perCallMs: Number(((seconds * 1000) / CALLS).toFixed(2)),
      counts,
      afterWarmup: warm,
      samples: mid,
      end,
      growth: { fds: end.fds - warm.fds, sockets: end.sockets - warm.sockets, children: end.children - warm.children, rssMiB: Number((end.rssMiB - warm.rssMiB).toFixed(1)) },
      screenshotFiles: shots,
      errors: errors.length,
    };
    process.stderr.write(`soak: ${JSON.stringify(report)}\n`);
    expect(errors.slice(0, 5)).toEqual([]);
    expect(end.fds - warm.fds).toBeLessThanOrEqual(4);
    expect(end.sockets - warm.sockets).toBeLessThanOrEqual(2);
    expect(end.children).toBe(0);
    expect(end.rssMiB - warm.rssMiB).toBeLessThan(150);
    expect(shots).toBeLessThanOrEqual(s.config.screenshot.keep);
    expect(seconds).toBeLessThan(90);
  }, 120000);
});
