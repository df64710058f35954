/**
 * `ui` on gtk3-widget-factory in process through a session, many times (for `node --cpu-prof`):
 * prints the median and the D-Bus calls per read; fresh reads unless --reuse.
 *
 *   HYPRUSE_DESKTOP_DIR=DIR node --conditions=@hypruse/source --import tsx tests/bench/ui-profile.ts [--runs 30] [--reuse] [--app APP_ID]
 * (--app: an app id already running on the desktop, featherpad or org.gnome.TextEditor, instead of the widget factory)
 */
import { Tokens } from '@hypruse/core';
import { createSession } from 'hypruse';
import { AtspiBus } from '../../packages/a11y/src/atspi-bus.js';
import { desktopEnv, launchFixture, swayNodes } from '../support/desktop.js';

const stats = new Map<string, number>();
const orig = AtspiBus.prototype.call;
AtspiBus.prototype.call = function (spec, d) {
  const k = `${spec.iface.replace(/^org\.a11y\.atspi\./, '')}.${spec.member}${spec.member === 'Get' || spec.member === 'GetAll' ? `(${String(spec.body?.[spec.body.length - 1])})` : ''}`;
  stats.set(k, (stats.get(k) ?? 0) + 1);
  return orig.call(this, spec, d);
};
const i = process.argv.indexOf('--runs');
const runs = i >= 0 ? Number(process.argv[i + 1]) : 30;
const desk = await desktopEnv();
if (!desk) throw new Error('no desktop');
Object.assign(process.env, desk);
const ai = process.argv.indexOf('--app');
const appId = ai >= 0 ? process.argv[ai + 1] : 'gtk3-widget-factory';
let wf = (await swayNodes()).find((n) => n.app_id === appId);
if (!wf && appId === 'gtk3-widget-factory') {
  const l = await launchFixture('widget-factory', { workspace: '1' });
  wf = (await swayNodes()).find((n) => n.pid === l.pid);
}
const session = await createSession({ source: 'mcp', noFile: true, env: { PATH: process.env.PATH, HOME: process.env.HOME, HYPRUSE_TAKEOVER_MS: '0', ...desk } });
if (!wf) throw new Error(`no window of ${appId} on the desktop`);
const addr = String(wf.id);
const times: number[] = [];
const cpu: number[] = [];
let n = 0;
for (let k = 0; k < runs + 3; k++) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await session.pipeline.call('ui', { window: addr });
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  if (k >= 3) cpu.push((c.user + c.system) / 1000);
  n = (r.data?.elements as unknown[]).length;
  if (k >= 3) times.push(ms);
  // a fresh read each time unless --reuse
  if (!process.argv.includes('--reuse')) session.services.get(Tokens.Accessibility).forget?.();
}
const per = [...stats].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k}=${(v / (runs + 3)).toFixed(1)}`);
console.log(`calls per ui: ${per.join(' ')}`);
times.sort((a, b) => a - b);
cpu.sort((a, b) => a - b);
console.log(`ui: ${n} elements, median ${times[times.length >> 1].toFixed(1)} ms, this process's CPU ${cpu[cpu.length >> 1].toFixed(1)} ms per read (min ${times[0].toFixed(1)}, max ${times[times.length - 1].toFixed(1)}), n=${runs}`);
await session.dispose();
process.exit(0);
