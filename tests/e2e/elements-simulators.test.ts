// The element tools against the Hyprland and niri protocol simulators, with
// real GTK 3 apps: each simulator stands in front of the headless sway
// desktop (tests/simulators/sway-mirror.ts: its outputs are sway's, its
// window list is sway's real windows with their pids, titles and geometry,
// and the focus, cursor, close and floating requests it receives are carried
// over to sway before it answers). The server speaks only the simulator's IPC
// (no SWAYSOCK); its pointer, keyboard and accessibility act on the real apps
// through sway's Wayland display and the desktop's accessibility bus. So
// everything a tool takes from the compositor (which window, its origin for
// the points, focus before acting, the dialog a menu opened and its close)
// comes from the plugin under test, and a wrong answer misses the real
// control. Effects are read outside hypruse: what zenity prints, the saved
// file, libatspi as the desktop user (atspi-probe), and the simulator's own
// log of requests.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atPoints, probe } from '../support/atspi-probe.js';
import { killFixture, launchFixture, requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';
import { launchMousepadToSave, slowA11yConfig, zenityAnswer } from '../support/tools.js';
import { HyprlandMirror, NiriMirror } from '../simulators/sway-mirror.js';

const desk = await requireDesktop();

/** The server with the simulator's IPC, sway's Wayland display (by its absolute path) and the desktop's session bus. */
function serverEnv(simEnv: Record<string, string>, compositor: 'hyprland' | 'niri'): Record<string, string> {
  const { SWAYSOCK: _s, WAYLAND_DISPLAY, XDG_RUNTIME_DIR, ...rest } = desk!.env;
  return { ...rest, ...simEnv, WAYLAND_DISPLAY: join(XDG_RUNTIME_DIR, WAYLAND_DISPLAY), HYPRUSE_COMPOSITOR: compositor };
}

/** Wait until two ui reads of a freshly mapped window agree (GTK lays it out again for a moment after mapping). */
async function settledUi(server: Server, window: string): Promise<Array<{ id: number; role: string; name: string; x: number; y: number }>> {
  let last = '';
  let els: Array<{ id: number; role: string; name: string; x: number; y: number }> = [];
  for (let i = 0; i < 15; i++) {
    const r = await server.call('ui', { window });
    const now = JSON.stringify(r.data.elements ?? null);
    if (!r.isError && now === last) return els;
    last = now;
    els = (r.data.elements ?? []) as typeof els;
    await new Promise((res) => setTimeout(res, 300));
  }
  return els;
}

// Hyprland's two dialects: the Lua config of 0.57 (main) runs every case; a hyprlang config (0.54) the form,
// whose focus and cursor requests are legacy dispatches
const DIALECTS = [
  { name: 'Lua dispatch, 0.57', version: 'main', full: true, focus: 'focus', cursor: 'cursor.move', dialect: 'lua' },
  { name: 'hyprlang dispatch, 0.54', version: '0.54', full: false, focus: 'focuswindow', cursor: 'movecursor', dialect: 'hyprlang' },
] as const;

for (const dia of DIALECTS) describe.skipIf(!desk)(`element tools on the Hyprland simulator (${dia.name}) in front of real GTK 3 apps`, () => {
  let m: HyprlandMirror;
  let server: Server;
  beforeAll(async () => {
    // `spawn`: exec really runs the command (launch's case runs a real zenity through it)
    m = await HyprlandMirror.start(desk!.env, { version: dia.version, processes: 'spawn' });
    server = await startServer(serverEnv(m.sim.env, 'hyprland'), { HYPRUSE_CONFIG: slowA11yConfig(), HYPRUSE_TAKEOVER_MS: '0' });
  });
  afterAll(async () => {
    await server?.close();
    await m?.stop();
  });

  it('a zenity form: ui places the fields at the simulator\'s window origin, act fills them, click_ui clicks OK with the cursor the simulator was asked to move', async () => {
    const app = await launchFixture('zenity-forms', { workspace: '1' });
    try {
      const addr = await m.addressOf(app.pid);
      expect(m.simWindow(addr)?.pid).toBe(app.pid);
      const els = await settledUi(server, addr);
      const ok = els.find((e) => e.role === 'push button' && e.name === 'OK')!;
      expect(ok, JSON.stringify(els)).toBeTruthy();
      // the point is the simulator's window origin plus libatspi's window-relative box of the button
      const real = (await m.windowOf(app.pid)).real;
      const box = (await probe(app.pid)).find((n) => n.role === 'push button' && n.name === 'OK')!.box!;
      expect([ok.x, ok.y]).toEqual([real.at[0] + box[0] + Math.floor(box[2] / 2), real.at[1] + box[1] + Math.floor(box[3] / 2)]);

      for (const [name, text] of [['First', 'Ada'], ['Last', 'Lovelace']] as const) {
        const r = await server.call('act', { action: 'set_text', name, text, window: addr });
        expect(r.isError, r.text.join('\n')).toBe(false);
        expect(r.text[0]).toBe(`set text '${name}' to "${text}" (verified: read back)`);
      }
      const before = m.sim.dispatches.length;
      const c = await server.call('click_ui', { name: 'OK', window: addr });
      expect(c.isError, c.text.join('\n')).toBe(false);
      // the plugin focused the window and moved the cursor to the button through the simulator's IPC
      const sent = m.sim.dispatches.slice(before);
      expect(sent).toContainEqual({ dialect: dia.dialect, name: dia.focus, args: { window: `address:${addr}` } });
      expect(sent).toContainEqual({ dialect: dia.dialect, name: dia.cursor, args: { x: ok.x, y: ok.y } });
      expect(await zenityAnswer(app)).toBe('Ada|Lovelace\n');
      // zenity's window closed on sway, so it is gone from the simulator too
      await waitFor(() => !m.simWindow(addr), 10000, 'the form gone from the simulator');
    } finally {
      await killFixture(app.pid).catch(() => undefined);
    }
  }, 180000);

  if (!dia.full) return;

  it('launch runs a real zenity through the simulator\'s exec and answers with its settled window; an immediate ui has its points right', async () => {
    const runDir = desk!.env.XDG_RUNTIME_DIR;
    const vars = {
      WAYLAND_DISPLAY: join(runDir, desk!.env.WAYLAND_DISPLAY), XDG_RUNTIME_DIR: runDir, DBUS_SESSION_BUS_ADDRESS: desk!.env.DBUS_SESSION_BUS_ADDRESS,
      GDK_BACKEND: 'wayland', GTK_A11Y: 'atspi', HOME: '/tmp',
    };
    // Hyprland's exec runs the command as the simulator's user; the app runs as the desktop's user on sway
    const command = `runuser -u ${desk!.user} -- env ${Object.entries(vars).map(([k, v]) => `${k}=${v}`).join(' ')} zenity --question --title=sim-launched --text=Launched?`;
    const r = await server.call('launch', { command, workspace: '1' });
    expect(r.isError, r.text.join('\n')).toBe(false);
    const addr = String(r.data.address);
    const w = m.simWindow(addr)!;
    expect(w.title).toBe('sim-launched');
    const pid = w.pid;
    try {
      expect(m.sim.dispatches.some((d) => d.name === 'exec_cmd' && String(d.args.command).includes('sim-launched'))).toBe(true);
      const real = (await m.windowOf(pid)).real;
      expect([r.data.at, r.data.size]).toEqual([real.at, real.size]);
      const u = await server.call('ui', { window: addr, format: 'flat' });
      expect(u.isError, u.text.join('\n')).toBe(false);
      const yes = (u.data.elements as Array<{ role: string; name: string; x: number; y: number }>).find((e) => e.role === 'push button' && e.name === 'Yes')!;
      expect(yes, u.text.join('\n')).toBeTruthy();
      const box = (await probe(pid)).find((n) => n.role === 'push button' && n.name === 'Yes')!.box!;
      const now = (await m.windowOf(pid)).real;
      expect([yes.x, yes.y]).toEqual([now.at[0] + box[0] + Math.floor(box[2] / 2), now.at[1] + box[1] + Math.floor(box[3] / 2)]);
    } finally {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        /* gone */
      }
      await waitFor(() => !m.simWindow(addr), 10000, 'the launched window gone');
    }
  }, 120000);

  it('mousepad: keyboard typing, menu File > Save As… reports the dialog by its simulator address, file_dialog saves and sees it close', async () => {
    const { app, file } = await launchMousepadToSave('1', 'hypruse-simsave-', 'sim-note.txt');
    try {
      const addr = await m.addressOf(app.pid);
      await settledUi(server, addr);
      const typed = await server.call('keyboard', { action: 'type', text: 'saved through the Hyprland simulator\n', window: addr });
      expect(typed.isError, typed.text.join('\n')).toBe(false);
      const menu = await server.call('menu', { path: 'File > Save As…', window: addr });
      expect(menu.isError, menu.text.join('\n')).toBe(false);
      const dialog = ((menu.data.opened ?? []) as Array<{ kind: string; window: string; title: string }>).find((o) => o.kind === 'window')!;
      expect(dialog, menu.text.join('\n')).toBeTruthy();
      // the dialog is the simulator's entry for the real Save As window of the same process
      expect(m.simWindow(dialog.window)).toMatchObject({ pid: app.pid, title: 'Save As' });
      const before = m.sim.dispatches.length;
      const f = await server.call('file_dialog', { path: file, window: dialog.window });
      expect(f.isError, f.text.join('\n')).toBe(false);
      expect(f.data).toMatchObject({ path: file, closed: true, exists: true });
      expect(m.sim.dispatches.slice(before)).toContainEqual({ dialect: 'lua', name: 'focus', args: { window: `address:${dialog.window}` } });
      expect(readFileSync(file, 'utf8')).toBe('saved through the Hyprland simulator\n');
      expect(m.simWindow(dialog.window)).toBeUndefined();
      await waitFor(() => m.simWindow(addr)?.title.includes('sim-note.txt'), 10000, 'mousepad titled after the file in the simulator');
    } finally {
      await killFixture(app.pid).catch(() => undefined);
    }
  }, 240000);

  it('gtk3-widget-factory: act checks a check box by role and index, get_text reads the window the simulator names', async () => {
    const app = await launchFixture('widget-factory', { workspace: '1' });
    try {
      const addr = await m.addressOf(app.pid);
      await settledUi(server, addr);
      // the candidates in the order ui lists them (reading order), matched to libatspi's objects by their boxes
      const listed = (await server.call('ui', { window: addr, role: 'check box', name: 'checkbutton', format: 'flat' })).data.elements as Array<{ x: number; y: number }>;
      const con = (await swayNodes()).find((n) => n.pid === app.pid && n.type === 'con')!;
      const win = { x: con.rect.x + (con.window_rect?.x ?? 0), y: con.rect.y + (con.window_rect?.y ?? 0) };
      const checkboxes = async () => atPoints((await probe(app.pid)).filter((n) => n.role === 'check box' && n.name === 'checkbutton'), win, listed);
      const boxes = await checkboxes();
      expect(boxes.every(Boolean), 'every listed candidate is one libatspi reads').toBe(true);
      const i = boxes.findIndex((b) => b!.states.includes('sensitive') && !b!.states.includes('checked'));
      expect(i).toBeGreaterThanOrEqual(0);
      const before = m.sim.dispatches.length;
      const r = await server.call('act', { action: 'check', name: 'checkbutton', role: 'check box', index: i, window: addr });
      expect(r.isError, r.text.join('\n')).toBe(false);
      expect(r.data).toMatchObject({ action: 'check', verified: true, state: { checked: true } });
      expect((await checkboxes())[i]!.states).toContain('checked');
      expect(m.sim.dispatches.slice(before).every((d) => d.name === 'focus' || d.name === 'cursor.move')).toBe(true);

      const t = await server.call('get_text', { window: addr, limit: 100000 });
      expect(t.isError, t.text.join('\n')).toBe(false);
      const text = t.text.join('\n');
      // labels libatspi reads in the same window
      const labels = (await probe(app.pid)).filter((n) => n.role === 'label' && n.name.length > 3).map((n) => n.name);
      expect(labels.length).toBeGreaterThan(0);
      expect(labels.filter((l) => text.includes(l)).length).toBeGreaterThan(labels.length / 2);
    } finally {
      await killFixture(app.pid).catch(() => undefined);
    }
  }, 240000);
});

describe.skipIf(!desk)('element tools on the niri simulator in front of real GTK 3 apps', () => {
  let m: NiriMirror;
  let server: Server;
  beforeAll(async () => {
    m = await NiriMirror.start(desk!.env);
    server = await startServer(serverEnv(m.sim.env, 'niri'), { HYPRUSE_CONFIG: slowA11yConfig(), HYPRUSE_TAKEOVER_MS: '0' });
  });
  afterAll(async () => {
    await server?.close();
    await m?.stop();
  });

  it('a tiled zenity form (no position): ui, click_ui, menu and file_dialog refuse with the reason and send nothing; act (over AT-SPI, guarded by the window), get_text, wait_for and keyboard work; floating, the form takes 3 calls', async () => {
    const app = await launchFixture('zenity-forms', { workspace: '1' });
    try {
      const addr = await m.addressOf(app.pid);
      await waitFor(async () => (await probe(app.pid)).some((n) => n.role === 'push button' && n.name === 'OK'), 20000, "the form's OK button");
      const d = await server.call('desktop');
      const win = (d.data.windows as Array<Record<string, unknown>>).find((w) => w.address === addr)!;
      expect(win.at).toBeNull();
      for (const [tool, args] of [
        ['ui', { window: addr }],
        ['click_ui', { name: 'OK', window: addr }],
        ['menu', { path: 'File > Quit', window: addr }],
        ['file_dialog', { path: '/tmp/never-written.txt', window: addr }],
      ] as const) {
        const r = await server.call(tool, args);
        expect(r.isError, `${tool}: ${r.text.join('\n')}`).toBe(true);
        expect(r.text[0]).toMatch(new RegExp(`^unsupported: not supported on niri: .* of window ${addr} \\(niri reports no on-screen position for tiled windows`));
        expect(r.text.join('\n')).toMatch(/toggle_floating/);
      }
      expect(m.sim.requests.filter((q) => q.startsWith('Action'))).toEqual([]);

      // act reaches the element over AT-SPI with no point: set_text and focus work on the tiled form,
      // every guard deciding by its window; what is sent is read back with libatspi
      const st = await server.call('act', { action: 'set_text', name: 'First', text: 'Grace', window: addr });
      expect(st.isError, st.text.join('\n')).toBe(false);
      expect(st.data).toMatchObject({ action: 'set_text', via: 'atspi', verified: true });
      // the two fields top to bottom (GTK 3's grid lists its last row first)
      const fields = async () => (await probe(app.pid)).filter((n) => n.role === 'text').sort((a, b) => a.box![1] - b.box![1]);
      expect((await fields()).map((n) => n.text)).toEqual(['Grace', '']);
      const fo = await server.call('act', { action: 'focus', name: 'Last', window: addr });
      expect(fo.isError, fo.text.join('\n')).toBe(false);
      expect(fo.data).toMatchObject({ action: 'focus', via: 'atspi', verified: true });
      expect(m.sim.requests).toContain('Action FocusWindow');
      expect((await fields()).map((n) => n.states.includes('focused'))).toEqual([false, true]);
      // the trust layers decide by the window: confined elsewhere it refuses, in dry run nothing is sent
      for (const extra of [{ HYPRUSE_CONFINE: 'class:nothing-here' }, { HYPRUSE_DRYRUN: '1' }] as Array<Record<string, string>>) {
        const other = await startServer(serverEnv(m.sim.env, 'niri'), { HYPRUSE_CONFIG: slowA11yConfig(), HYPRUSE_TAKEOVER_MS: '0', ...extra });
        try {
          const r = await other.call('act', { action: 'set_text', name: 'Last', text: 'never', window: addr });
          if (extra.HYPRUSE_CONFINE) {
            expect(r.isError, r.text.join('\n')).toBe(true);
            expect(r.text[0]).toMatch(/^refused: confine: /);
          } else {
            expect(r.isError, r.text.join('\n')).toBe(false);
            expect(r.text.join('\n')).toMatch(/over AT-SPI \(the window has no reported position: no pointer fallback\)/);
          }
        } finally {
          await other.close();
        }
      }
      expect((await fields()).map((n) => n.text)).toEqual(['Grace', '']);

      // what needs no point works on it: reading its text, waiting on an element, typing into it
      const t = await server.call('get_text', { window: addr });
      expect(t.isError, t.text.join('\n')).toBe(false);
      expect(t.text.join('\n')).toMatch(/Who\?/);
      expect(t.text.join('\n')).toMatch(/First/);
      const w = await server.call('wait_for', { event: 'element', name: 'OK', role: 'push button', state: 'enabled', window: addr, timeout_s: 10 });
      expect(w.isError, w.text.join('\n')).toBe(false);
      expect(w.data).toMatchObject({ event: 'element', state: 'enabled', role: 'push button', name: 'OK' });
      const gone = await server.call('wait_for', { event: 'element', name: 'No Such Button', state: 'gone', window: addr, timeout_s: 2 });
      expect(gone.isError, gone.text.join('\n')).toBe(false);
      const k = await server.call('keyboard', { action: 'type', text: 'Kay', window: addr });
      expect(k.isError, k.text.join('\n')).toBe(false);
      expect(m.sim.requests).toContain('Action FocusWindow');
      await waitFor(async () => (await probe(app.pid)).some((n) => n.role === 'text' && n.text === 'Kay'), 10000, 'the typed text in the focused field (libatspi)');

      // floating (carried over to sway), niri reports its position: the same calls act on it
      const f = await server.call('wm', { action: 'toggle_floating', target: addr });
      expect(f.isError, f.text.join('\n')).toBe(false);
      expect(m.carried).toContain(`[con_id=${(await m.windowOf(app.pid)).real.con}] floating toggle`);
      await waitFor(async () => {
        const w = ((await server.call('desktop')).data.windows as Array<Record<string, unknown>>).find((x) => x.address === addr);
        return Array.isArray(w?.at) && (await m.windowOf(app.pid)).real.floating;
      }, 10000, 'the form floating with a position');
      const els = await settledUi(server, addr);
      const real = (await m.windowOf(app.pid)).real;
      const ok = els.find((e) => e.role === 'push button' && e.name === 'OK')!;
      const box = (await probe(app.pid)).find((n) => n.role === 'push button' && n.name === 'OK')!.box!;
      expect([ok.x, ok.y]).toEqual([real.at[0] + box[0] + Math.floor(box[2] / 2), real.at[1] + box[1] + Math.floor(box[3] / 2)]);
      const before = m.sim.requests.length;
      for (const [name, text] of [['First', 'Grace'], ['Last', 'Hopper']] as const) {
        const r = await server.call('act', { action: 'set_text', name, text, window: addr });
        expect(r.isError, r.text.join('\n')).toBe(false);
      }
      const c = await server.call('click_ui', { name: 'OK', window: addr });
      expect(c.isError, c.text.join('\n')).toBe(false);
      expect(m.sim.requests.slice(before)).toContain('Action FocusWindow');
      expect(await zenityAnswer(app)).toBe('Grace|Hopper\n');
      await waitFor(() => !m.sim.windows.has(Number(addr)), 10000, 'the form gone from the simulator');
    } finally {
      await killFixture(app.pid).catch(() => undefined);
    }
  }, 180000);
  it('mousepad made floating: keyboard, menu File > Save As… and file_dialog through niri\'s window ids, with the pointer placed over niri\'s output layout', async () => {
    const { app, file } = await launchMousepadToSave('1', 'hypruse-nirisave-', 'niri-note.txt');
    try {
      const addr = await m.addressOf(app.pid);
      const f = await server.call('wm', { action: 'toggle_floating', target: addr });
      expect(f.isError, f.text.join('\n')).toBe(false);
      await waitFor(async () => {
        const w = ((await server.call('desktop')).data.windows as Array<Record<string, unknown>>).find((x) => x.address === addr);
        return Array.isArray(w?.at) && (await m.windowOf(app.pid)).real.floating;
      }, 10000, 'mousepad floating with a position');
      await settledUi(server, addr);
      const typed = await server.call('keyboard', { action: 'type', text: 'saved through the niri simulator\n', window: addr });
      expect(typed.isError, typed.text.join('\n')).toBe(false);
      const menu = await server.call('menu', { path: 'File > Save As…', window: addr });
      expect(menu.isError, menu.text.join('\n')).toBe(false);
      const dialog = ((menu.data.opened ?? []) as Array<{ kind: string; window: string; title: string }>).find((o) => o.kind === 'window')!;
      expect(dialog, menu.text.join('\n')).toBeTruthy();
      expect(m.sim.windows.get(Number(dialog.window))).toMatchObject({ pid: app.pid, title: 'Save As' });
      const fd = await server.call('file_dialog', { path: file, window: dialog.window });
      expect(fd.isError, fd.text.join('\n')).toBe(false);
      expect(fd.data).toMatchObject({ path: file, closed: true, exists: true });
      expect(readFileSync(file, 'utf8')).toBe('saved through the niri simulator\n');
      expect(m.sim.windows.has(Number(dialog.window))).toBe(false);
    } finally {
      await killFixture(app.pid).catch(() => undefined);
    }
  }, 240000);
});
