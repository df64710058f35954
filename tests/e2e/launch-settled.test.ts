// launch answers with a settled window on the real headless sway desktop: a tiled window maps at
// y=0 and gains its title bar a moment later (27 px down). What launch reports, and the points of a
// `ui` read right after it, must equal what sway's tree says once everything is quiet, and a click
// on such a point must land on the control (the probe prints where GTK saw it).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';
import { type El } from '../support/tools.js';

const desk = await requireDesktop();

async function swayGeometry(address: string): Promise<[number, number, number, number]> {
  const n = (await swayNodes()).find((c) => String(c.id) === address)!;
  const w = n.window_rect ?? { x: 0, y: 0, width: n.rect.width, height: n.rect.height };
  return [n.rect.x + w.x, n.rect.y + w.y, w.width, w.height];
}

describe.skipIf(!desk)('launch returns a settled window', () => {
  let server: Server;
  const opened: string[] = [];

  beforeAll(async () => {
    server = await startServer(desk!.env, { HYPRUSE_TAKEOVER_MS: '0' });
  });

  afterAll(async () => {
    for (const a of opened) await server.call('hypr', { action: 'close_window', target: a }).catch(() => undefined);
    await server?.close();
  });

  it('gtk3-widget-factory tiled: launch and an immediate ui agree with sway once it is quiet', async () => {
    const l = await server.call('launch', { command: 'gtk3-widget-factory', workspace: '3' });
    expect(l.isError, l.text.join('\n')).toBe(false);
    const addr = String(l.data.address);
    opened.push(addr);
    const u = await server.call('ui', { window: addr });
    expect(u.isError, u.text.join('\n')).toBe(false);
    const early = (u.data.elements as El[]).filter((e) => /tab|button/.test(e.role)).map((e) => `${e.role} ${e.name}@${e.x},${e.y}`);
    expect(early.length).toBeGreaterThan(3);
    await new Promise((r) => setTimeout(r, 1500));
    const g = await swayGeometry(addr);
    expect([...(l.data.at as number[]), ...(l.data.size as number[])]).toEqual(g);
    // sway's own geometry with a title bar: the window does not start at the top of the output
    expect(g[1]).toBeGreaterThan(0);
    const later = ((await server.call('ui', { window: addr })).data.elements as El[]).filter((e) => /tab|button/.test(e.role)).map((e) => `${e.role} ${e.name}@${e.x},${e.y}`);
    expect(early.slice(0, 8)).toEqual(later.slice(0, 8));
  }, 60000);

  it('a click at a point read right after launch lands where GTK says', async () => {
    const probe = new URL('../desktop/pointer-probe.py', import.meta.url).pathname;
    const out = `/tmp/hypruse-probe-${process.pid}.out`;
    const l = await server.call('launch', { command: `sh -c '/usr/bin/python3 ${probe} > ${out}'`, workspace: '4' });
    expect(l.isError, l.text.join('\n')).toBe(false);
    const addr = String(l.data.address);
    opened.push(addr);
    // launch moved it to workspace 4 without showing it: show it (a workspace switch moves no window)
    expect((await server.call('hypr', { action: 'workspace', workspace: '4' })).isError).toBe(false);
    const [x, y, w, h] = [...(l.data.at as number[]), ...(l.data.size as number[])];
    const at = { x: x + Math.round(w / 4), y: y + Math.round(h / 4) };
    const c = await server.call('pointer', { action: 'click', x: at.x, y: at.y });
    expect(c.isError, c.text.join('\n')).toBe(false);
    const line = await waitFor(() => readFileSync(out, 'utf8').split('\n').find((s) => s.startsWith('press ')), 5000, 'the probe to report the click');
    const p = Object.fromEntries(line.slice(6).split(' ').map((kv) => kv.split('='))) as Record<string, string>;
    const g = await swayGeometry(addr);
    expect([g[0] + Number(p.x), g[1] + Number(p.y)]).toEqual([at.x, at.y]);
  }, 60000);
});
