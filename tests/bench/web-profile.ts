/**
 * `ui` of a Chromium page of 500 controls, in process through a session, many times: the median,
 * the D-Bus calls per read, and how many items the app's cache holds against what the page shows.
 *
 *   HYPRUSE_DESKTOP_DIR=DIR node --conditions=@hypruse/source --import tsx tests/bench/web-profile.ts [--runs 10] [--direct]
 * (--direct: chromium launched at the big page, no navigation before it)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Tokens } from '@hypruse/core';
import { createSession } from 'hypruse';
import { AtspiBus } from '../../packages/a11y/src/atspi-bus.js';
import { desktopEnv } from '../support/desktop.js';
import { startSite } from '../support/browser.js';
import { BIG } from './browsers.js';

const stats = new Map<string, number>();
const orig = AtspiBus.prototype.call;
let counting = false;
AtspiBus.prototype.call = function (spec, d) {
  if (counting) {
    const k = `${spec.iface.replace(/^org\.a11y\.atspi\./, '')}.${spec.member}${spec.member === 'Get' || spec.member === 'GetAll' ? `(${String(spec.body?.[spec.body.length - 1])})` : ''}`;
    stats.set(k, (stats.get(k) ?? 0) + 1);
  }
  return orig.call(this, spec, d);
};
const arg = (k: string, dflt: number) => (process.argv.includes(k) ? Number(process.argv[process.argv.indexOf(k) + 1]) : dflt);
const runs = arg('--runs', 10);
const desk = await desktopEnv();
if (!desk) throw new Error('no desktop');
Object.assign(process.env, desk);
const site = await startSite({ '/big.html': BIG, '/a.html': '<!doctype html><title>A</title><p>hello</p>' });
const session = await createSession({ source: 'mcp', noFile: true, env: { PATH: process.env.PATH, HOME: process.env.HOME, HYPRUSE_TAKEOVER_MS: '0', ...desk } });
const profile = mkdtempSync(join(tmpdir(), 'hypruse-prof-chromium-'));
const call = async (tool: string, args: Record<string, unknown>) => {
  const r = (await session.pipeline.call(tool, args)) as { isError?: boolean; text: string[]; data: Record<string, unknown> };
  if (r.isError) throw new Error(`${tool}: ${r.text.join(' ')}`);
  return r;
};
const direct = process.argv.includes('--direct');
const l = await call('launch', { command: `chromium --no-sandbox --user-data-dir=${profile} ${site.url(direct ? '/big.html' : '/a.html')}`, workspace: '1', wait_s: 30 });
const pid = Number(l.data.pid);
const w = String(l.data.address);
try {
  await call('ui', { window: w });
  if (!direct) {
    await call('keyboard', { action: 'key', keys: 'ctrl+l', window: w });
    await call('keyboard', { action: 'type', text: site.url('/big.html') });
    await call('keyboard', { action: 'key', keys: 'Return' });
  }
  await call('wait_for', { event: 'element', name: 'Field 124', role: 'entry', window: w, timeout_s: 30 });
  const a11y = session.services.get(Tokens.Accessibility) as { forget?: () => void };
  const times: number[] = [];
  const cpus: number[] = [];
  let n = 0;
  const inspector = process.argv.includes('--prof') ? new (await import('node:inspector/promises')).Session() : null;
  for (let k = 0; k < runs + 2; k++) {
    a11y.forget?.();
    if (k === 2) {
      counting = true;
      if (inspector) {
        inspector.connect();
        await inspector.post('Profiler.enable');
        if (process.argv.includes('--heap')) await inspector.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
        else await inspector.post('Profiler.start');
      }
    }
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = await call('ui', { window: w });
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    if (k >= 2) cpus.push((c.user + c.system) / 1000);
    n = (r.data.elements as unknown[]).length;
    if (k >= 2) times.push(ms);
  }
  if (inspector) {
    const { profile: prof } = (await inspector.post(process.argv.includes('--heap') ? 'HeapProfiler.stopSampling' : 'Profiler.stop')) as unknown as { profile: object };
    (await import('node:fs')).writeFileSync('/tmp/web-ui.cpuprofile', JSON.stringify(prof));
  }
  const last = (await call('ui', { window: w })).data.elements as Array<{ role: string; name: string }>;
  const roles = new Map<string, number>();
  for (const e of last) roles.set(e.role, (roles.get(e.role) ?? 0) + 1);
  console.log(`roles listed: ${[...roles].map(([r, c]) => `${r}:${c}`).join(' ')}`);
  if (process.argv.includes('--list')) console.log(last.map((e) => `${e.role} '${e.name}'`).join('\n'));
  const per = [...stats].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k}=${(v / runs).toFixed(1)}`);
  console.log(`calls per ui: ${per.join(' ')}`);
  times.sort((a, b) => a - b);
  console.log(`ui: ${n} elements, median ${times[times.length >> 1].toFixed(1)} ms (min ${times[0].toFixed(1)}, max ${times[times.length - 1].toFixed(1)}), n=${runs}; this process's CPU median ${cpus.sort((a, b) => a - b)[cpus.length >> 1].toFixed(1)} ms`);
  if (process.argv.includes('--dump')) {
    // @ts-expect-error plain ESM script without types
    const { a11yBusAddress, appBusName } = await import('./a11y-busctl.mjs');
    const { execFileSync } = await import('node:child_process');
    const address = await a11yBusAddress(process.env);
    const bus = await appBusName(address, pid);
    const items = JSON.parse(execFileSync('busctl', ['--json=short', `--address=${address}`, 'call', bus, '/org/a11y/atspi/cache', 'org.a11y.atspi.Cache', 'GetItems'], { maxBuffer: 1 << 26 }).toString()).data[0] as unknown[][];
    const byRole = new Map<number, number>();
    for (const it of items) byRole.set(it[7] as number, (byRole.get(it[7] as number) ?? 0) + 1);
    console.log(`cache: ${items.length} items; roles ${[...byRole].map(([r, c]) => `${r}:${c}`).join(' ')}`);
    for (const it of items.filter((x) => x[7] === 95 || x[7] === 82)) console.log('doc', JSON.stringify(it).slice(0, 300));
    const web = items.filter((x) => (x[7] as number) === 95);
    for (const d of web) {
      const kids = items.filter((x) => (x[2] as string[])[1] === (d[0] as string[])[1]);
      console.log(`doc ${(d[0] as string[])[1]} cached kids ${kids.length} childCount ${d[4]}`);
    }
  }
  if (process.argv.includes('--hold')) await new Promise((r) => setTimeout(r, arg('--hold', 0) * 1000));
} finally {
  await session.pipeline.call('wm', { action: 'close_window', target: w }).catch(() => undefined);
  try { process.kill(pid); } catch { /* gone */ }
  await new Promise((r) => setTimeout(r, 1000));
  await session.dispose();
  await site.close();
  rmSync(profile, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
}
process.exit(0);
