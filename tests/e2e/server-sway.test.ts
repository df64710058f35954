import { readFileSync, mkdtempSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchFixture, killFixture, requireDesktop, swayNodes, swaymsg, waitFor } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';

const desk = await requireDesktop();
const RUN = Math.random().toString(36).slice(2, 8);

describe.skipIf(!desk)('the built server over stdio on the real sway desktop', () => {
  let server: Server;
  const launched: number[] = [];
  beforeAll(async () => {
    server = await startServer(desk!.env);
  });
  const opened: string[] = [];
  afterAll(async () => {
    for (const a of opened) await server?.call('wm', { action: 'close_window', target: a }).catch(() => undefined);
    await server?.close();
    for (const pid of launched) await killFixture(pid).catch(() => undefined);
  });

  it('lists the tools under their sway names', async () => {
    const { tools } = await server.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('wm');
    expect(names).not.toContain('hypr');
    expect(names).toContain('desktop');
  });

  it('desktop shows both monitors with the right scales and a fixture window with its geometry', async () => {
    const app = await launchFixture('zenity-question', { workspace: '3' });
    launched.push(app.pid);
    const r = await server.call('desktop');
    expect(r.isError).toBe(false);
    const monitors = r.data.monitors as Array<{ name: string; geometry: number[]; scale: number }>;
    expect(monitors.find((m) => m.name === 'HEADLESS-1')).toMatchObject({ geometry: [0, 0, 1280, 800], scale: 1 });
    expect(monitors.find((m) => m.name === 'HEADLESS-2')).toMatchObject({ geometry: [1280, 0, 1280, 720], scale: 1.5 });
    const windows = r.data.windows as Array<{ address: string; pid: number; at: number[]; size: number[]; workspace: unknown }>;
    const w = windows.find((x) => x.pid === app.pid)!;
    expect(w).toBeTruthy();
    const node = (await swayNodes()).find((n) => n.pid === app.pid)!;
    expect(w.address).toBe(String(node.id));
    expect(w.at[0]).toBe(node.rect.x + (node.window_rect?.x ?? 0));
    expect(w.size).toEqual([node.window_rect?.width ?? node.rect.width, node.window_rect?.height ?? node.rect.height]);
    expect(String(w.workspace)).toBe('3');
  });

  it('wm focus, move to workspace and close act on sway (verified by asking sway)', async () => {
    const app = await launchFixture('zenity-question', { workspace: '3' });
    launched.push(app.pid);
    const node = (await swayNodes()).find((n) => n.pid === app.pid)!;
    const addr = String(node.id);
    const f = await server.call('wm', { action: 'focus_window', target: addr });
    expect(f.isError).toBe(false);
    await waitFor(async () => (await swayNodes()).find((n) => n.id === node.id)?.focused, 3000, 'sway reports focus');
    const m = await server.call('wm', { action: 'move_window', target: addr, workspace: '4' });
    expect(m.text[0]).toBe(`moved ${addr} to workspace 4`);
    await waitFor(async () => (await swayNodes()).find((n) => n.id === node.id)?.workspace === '4', 3000, 'window on workspace 4');
    const c = await server.call('wm', { action: 'close_window', target: addr });
    expect(c.text[0]).toBe(`closed ${addr}`);
    expect((await swayNodes()).some((n) => n.id === node.id)).toBe(false);
  });

  it('bad input: unknown address, malformed workspace, closed window', async () => {
    const a = await server.call('wm', { action: 'focus_window', target: '987654' });
    expect(a.isError).toBe(true);
    expect(a.text[0]).toMatch(/^not_found: no window with address 987654/);
    const b = await server.call('wm', { action: 'workspace', workspace: '2; exec rm -rf /' });
    expect(b.isError).toBe(true);
    expect(b.text[0]).toMatch(/^usage: /);
    const ws = await swaymsg<Array<{ name: string }>>('-t', 'get_workspaces');
    expect(ws.some((w) => w.name.includes('rm'))).toBe(false);
  });

  it('an agent task: desktop, launch on workspace 2, wait_for, keyboard, click_ui OK with then=desktop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hypruse-flow-'));
    chmodSync(dir, 0o777);
    const out = join(dir, 'zenity.out');
    const d0 = await server.call('desktop');
    expect(d0.isError).toBe(false);
    const l = await server.call('launch', { command: `zenity --entry --title="hypruse flow ${RUN}" --text="Name?" > ${out}`, workspace: '2' });
    expect(l.isError, l.text.join('\n')).toBe(false);
    const addr = String(l.data.address);
    opened.push(addr);
    expect(String(l.data.workspace)).toBe('2');
    const node = (await swayNodes()).find((n) => String(n.id) === addr)!;
    expect(node.workspace).toBe('2');
    launched.push(node.pid!);
    const w = await server.call('wait_for', { event: 'window_open', match: `hypruse flow ${RUN}`, timeout_s: 5 });
    expect(w.isError).toBe(false);
    expect(w.data.address).toBe(addr);
    const k = await server.call('keyboard', { action: 'type', text: 'héllo wörld', window: addr });
    expect(k.isError, k.text.join('\n')).toBe(false);
    expect(k.text[0]).toMatch(/\(verified\)/);
    const c = await server.call('click_ui', { name: 'OK', window: addr, then: 'desktop' });
    expect(c.isError, c.text.join('\n')).toBe(false);
    expect(c.text[0]).toMatch(/^clicked push button 'OK'/);
    const snapshot = c.data.then as { windows: Array<{ address: string }> };
    expect(snapshot.windows.some((x) => x.address === addr)).toBe(false);
    await waitFor(() => readFileSync(out, 'utf8').trim() !== '', 3000, 'zenity printed the typed text').catch(() => undefined);
    expect(readFileSync(out, 'utf8').trim()).toBe('héllo wörld');
  });

  it('the same task as one sequence call', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hypruse-seq-'));
    chmodSync(dir, 0o777);
    const out = join(dir, 'zenity.out');
    const l = await server.call('launch', { command: `zenity --entry --title="hypruse sequence ${RUN}" --text="Name?" > ${out}`, workspace: '2' });
    expect(l.isError, l.text.join('\n')).toBe(false);
    const addr = String(l.data.address);
    opened.push(addr);
    const s = await server.call('sequence', {
      steps: [
        { op: 'wait_for', event: 'window_open', match: `hypruse sequence ${RUN}`, timeout_s: 5 },
        { op: 'keyboard', action: 'type', text: 'plan ✓', window: addr },
        { op: 'click_ui', name: 'OK', window: addr },
      ],
    });
    expect(s.isError, s.text.join('\n')).toBe(false);
    expect(s.text[0]).toBe('sequence: all 3/3 steps ran');
    const snap = s.data.then as { windows: Array<{ address: string }> };
    expect(snap.windows.some((x) => x.address === addr)).toBe(false);
    await waitFor(() => readFileSync(out, 'utf8').trim() !== '', 3000, 'zenity printed the typed text').catch(() => undefined);
    expect(readFileSync(out, 'utf8').trim()).toBe('plan ✓');
  });

  it('sequence stops when an unexpected window opens mid-run, and says which step', async () => {
    const app = await launchFixture('zenity-question', { workspace: '3' });
    launched.push(app.pid);
    const node = (await swayNodes()).find((n) => n.pid === app.pid)!;
    const run = server.call('sequence', {
      steps: [
        { op: 'wm', action: 'focus_window', target: String(node.id) },
        { op: 'wait_for', event: 'window_close', match: String(node.id), timeout_s: 3 },
        { op: 'pointer', action: 'move', x: 100, y: 100 },
      ],
    });
    await new Promise((r) => setTimeout(r, 800));
    const intruder = await launchFixture('foot', { workspace: '3' });
    launched.push(intruder.pid);
    const s = await run;
    expect(s.isError).toBe(true);
    expect(s.text[0]).toMatch(/^not_found: sequence: stopped after 2\/3 steps, desktop changed \(window_open \d+\) before step 3/);
  });

  it('wait_for answers already: true for a window that is already closed', async () => {
    const r = await server.call('wait_for', { event: 'window_close', match: 'no-such-window-title-xyz', timeout_s: 2 });
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({ event: 'window_close', already: true });
  });
});
