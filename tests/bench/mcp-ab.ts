/**
 * Two builds of the server side by side (an SDK change, before and after), sampled interleaved
 * (A, B, A, B, ...) so load that drifts lands on both: spawn to the first `tools/list` answer and
 * the RSS once listed, in each protocol era. No desktop needed (the session finds no compositor).
 *   node --conditions=@hypruse/source --import tsx tests/bench/mcp-ab.ts BIN_A BIN_B [--runs 15]
 */
import { loadavg } from 'node:os';
import { listOnce, type Era } from './mcp.js';
import { stats } from './lib/measure.js';

const [a, b] = process.argv.slice(2).filter((x) => !x.startsWith('--') && !/^\d+$/.test(x));
const i = process.argv.indexOf('--runs');
const runs = i > 0 ? Number(process.argv[i + 1]) : 15;
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', LANG: 'C.UTF-8' };
const fmt = (xs: number[], d = 0) => {
  const s = stats(xs);
  return `${s.median.toFixed(d)} (${s.min.toFixed(d)}–${s.max.toFixed(d)}, n=${s.n})`;
};
const lines = [`load average at start ${loadavg().map((x) => x.toFixed(1)).join(' ')}`, '', '| build | era | spawn to tools/list ms: median (min–max) | RSS after listing MiB | peak RSS MiB |', '|---|---|---|---|---|'];
for (const era of ['2025-11-25', '2026-07-28'] as Era[]) {
  const got = { A: { ms: [] as number[], rss: [] as number[], hwm: [] as number[] }, B: { ms: [] as number[], rss: [] as number[], hwm: [] as number[] } };
  for (let n = -1; n < runs; n++) {
    for (const [k, bin] of [['A', a], ['B', b]] as const) {
      const r = await listOnce(bin, env, era, 300);
      await r.stop();
      if (n < 0) continue; // warm-up
      got[k].ms.push(r.ms);
      got[k].rss.push(r.rssKiB / 1024);
      got[k].hwm.push(r.hwmKiB / 1024);
    }
  }
  for (const [k, bin] of [['A', a], ['B', b]] as const) lines.push(`| ${k}: ${bin} | ${era} | ${fmt(got[k].ms)} | ${fmt(got[k].rss, 1)} | ${fmt(got[k].hwm, 1)} |`);
}
lines.push('', `load average at the end ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
process.stdout.write(`${lines.join('\n')}\n`);
