// Private desks (`hypruse desk`, config `desk`): a headless sway of hypruse's
// own, with its own runtime dir, Wayland socket, session and AT-SPI buses.
// The test desktop plays the person's session: hypruse gets its variables,
// and nothing of the agent's may appear there. Effects are read from outside
// hypruse: the desk's sway and the person's sway over IPC, files the apps
// wrote, /proc by the recorded pids.
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import {
  deskServer, deskStatus, hypruse, swayAt, monitorCommand, personEnv, personRuntimeDir, pidsWithEnv, removeDir, running, swayWindows, type DeskStatus, type DeskUser,
} from '../support/desk.js';
import type { Server } from '../support/server.js';

const desk = await requireDesktop();
const user: DeskUser | null = desk ? desk.state.user : null;
const dirs: string[] = [];
const servers: Server[] = [];

afterAll(async () => {
  for (const s of servers) await s.close().catch(() => undefined);
  // whatever a failed test left: stopped through hypruse itself, by pid
  for (const d of dirs) {
    await hypruse(user!, personEnv(desk!, user!, d), ['desk', 'stop', '--all']).catch(() => undefined);
    removeDir(d);
  }
}, scaledMs(60000));

function freshPerson(extra: Record<string, string> = {}): { dir: string; env: Record<string, string> } {
  const dir = personRuntimeDir(user!);
  dirs.push(dir);
  return { dir, env: personEnv(desk!, user!, dir, extra) };
}

/** Every process of a desk, as recorded and as marked, is gone; so is its folder. */
async function expectGone(d: DeskStatus, alsoPids: number[] = []): Promise<void> {
  const recs = [...Object.values(d.pids), ...alsoPids.map((pid) => ({ pid }))];
  const cmd = (pid: number) => {
    try {
      return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'latin1').replace(/\0/g, ' ')}`;
    } catch {
      return `${pid} (gone)`;
    }
  };
  await waitFor(() => recs.every((r) => !running(r)), 10000, 'every process of the desk to end').catch((e: Error) => {
    throw new Error(`${e.message}; still running: ${recs.filter(running).map((r) => cmd(r.pid)).join('; ')}`);
  });
  expect(pidsWithEnv('HYPRUSE_DESK_INSTANCE', d.instance)).toEqual([]);
  expect(() => statSync(d.env.XDG_RUNTIME_DIR)).toThrow();
}

const personWindows = async () => (await swayNodes()).filter((n) => (n.type === 'con' || n.type === 'floating_con') && n.pid).map((n) => ({ pid: n.pid!, title: n.name ?? '' }));

/**
 * A small task in a desk: a zenity entry launched through the server writes
 * what its field holds when OK is pressed; the field is filled with act and
 * OK pressed with click_ui. Its window must be in the desk's sway only.
 */
async function entryTask(server: Server, d: DeskStatus, out: string, title: string, text: string): Promise<number> {
  const l = await server.call('launch', { command: `zenity --entry --title='${title}' --text=Name > ${out}` });
  expect(l.isError, l.text.join('\n')).toBe(false);
  const addr = String(l.data.address);
  const inDesk = (await swayWindows(d.env.SWAYSOCK)).find((w) => w.title === title);
  expect(inDesk, `the desk's sway has a window "${title}"`).toBeTruthy();
  const pid = inDesk!.pid;
  const s = await server.call('act', { action: 'set_text', name: 'Name', text, window: addr });
  expect(s.isError, s.text.join('\n')).toBe(false);
  const ok = await server.call('click_ui', { name: 'OK', window: addr });
  expect(ok.isError, ok.text.join('\n')).toBe(false);
  await waitFor(() => !running({ pid }), 5000, `zenity "${title}" to close after OK`);
  expect(readFileSync(out, 'utf8')).toBe(`${text}\n`);
  return pid;
}

/**
 * A desk's task suite, as the issue's person-at-the-seat tasks: the entry task; a form of a text
 * field and a drop-down filled by labels and sent (zenity prints what it holds); a document typed
 * into an editor and saved through its menu and file chooser (the file on disk). `tag` keeps the
 * titles, texts and files of two desks apart; each desk's sway must list only its own windows.
 */
async function deskSuite(server: Server, d: DeskStatus, dir: string, tag: string): Promise<number[]> {
  const pids = [await entryTask(server, d, join(dir, `${tag}-entry.out`), `task of ${tag}`, `typed by ${tag}`)];
  const formOut = join(dir, `${tag}-form.out`);
  const f = await server.call('launch', { command: `zenity --forms --title='form of ${tag}' --text=Order --add-entry=City --add-combo=Size --combo-values='Small|Medium|Large' > ${formOut}` });
  expect(f.isError, f.text.join('\n')).toBe(false);
  const form = String(f.data.address);
  for (const [args, what] of [
    [{ action: 'set_text', name: 'City', text: `City of ${tag}` }, 'City'],
    [{ action: 'select', name: 'Size', option: 'Large' }, 'Size'],
  ] as const) {
    const r = await server.call('act', { ...args, window: form });
    expect(r.isError, `${what}: ${r.text.join('\n')}`).toBe(false);
  }
  const formPid = (await swayWindows(d.env.SWAYSOCK)).find((w) => w.title === `form of ${tag}`)!.pid;
  const ok = await server.call('click_ui', { name: 'OK', window: form });
  expect(ok.isError, ok.text.join('\n')).toBe(false);
  await waitFor(() => !running({ pid: formPid }), 5000, `the form of ${tag} to close after OK`);
  expect(readFileSync(formOut, 'utf8')).toBe(`City of ${tag}|Large\n`);
  pids.push(formPid);

  const m = await server.call('launch', { command: 'mousepad', wait_s: 30 });
  expect(m.isError, m.text.join('\n')).toBe(false);
  const editor = String(m.data.address);
  const text = `notes of ${tag}`;
  const t = await server.call('keyboard', { action: 'type', text, window: editor });
  expect(t.isError, t.text.join('\n')).toBe(false);
  const menu = await server.call('menu', { path: 'File > Save As', window: editor });
  expect(menu.isError, menu.text.join('\n')).toBe(false);
  const file = join(dir, `${tag}-notes.txt`);
  const save = await server.call('file_dialog', { path: file });
  expect(save.isError, save.text.join('\n')).toBe(false);
  await waitFor(() => {
    try {
      return readFileSync(file, 'utf8').trim() === text;
    } catch {
      return false;
    }
  }, 10000, `${tag}'s notes on disk`);
  const mine = await swayWindows(d.env.SWAYSOCK);
  expect(mine.some((w) => w.pid === Number(m.data.pid) || /Mousepad/.test(w.title)), 'the editor is in this desk').toBe(true);
  pids.push(Number(m.data.pid));
  return pids;
}

describe.skipIf(!desk)('private desks', () => {
  it('desk start (CLI): its own 0700 runtime dir, buses and sway; a server using it launches there, never on the person\'s session; desk stop ends every process by pid', async () => {
    const { dir, env } = freshPerson();
    const before = await personWindows();
    const started = await hypruse(user!, env, ['desk', 'start', 'alpha', '--size', '1024x768', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const [d] = (await deskStatus(user!, env)).filter((x) => x.name === 'alpha');
    expect(d, 'desk status lists it').toBeTruthy();
    expect(d!.healthy, String(d!.problem)).toBe(true);
    expect(d!.owner).toBeNull();
    // its own runtime dir, private, under the person's, with its own sockets
    const rt = d!.env.XDG_RUNTIME_DIR;
    expect(rt.startsWith(join(dir, 'hypruse', 'desks', 'alpha'))).toBe(true);
    expect(statSync(rt).mode & 0o777).toBe(0o700);
    expect(statSync(rt).uid).toBe(user!.uid);
    for (const sock of [join(rt, 'bus'), join(rt, 'at-spi', 'bus'), join(rt, d!.env.WAYLAND_DISPLAY), d!.env.SWAYSOCK]) expect(statSync(sock).isSocket(), sock).toBe(true);
    for (const r of Object.values(d!.pids)) expect(running(r), `pid ${r.pid}`).toBe(true);
    expect(Object.keys(d!.pids).sort()).toEqual(['a11y', 'compositor', 'dbus']);
    const outputs = await (await import('../support/desk.js')).swayAt<Array<{ name: string; rect: { width: number; height: number } }>>(d!.env.SWAYSOCK, '-t', 'get_outputs');
    expect(outputs.map((o) => [o.name, o.rect.width, o.rect.height])).toEqual([['HEADLESS-1', 1024, 768]]);

    const server = await deskServer(user!, { ...env, HYPRUSE_DESK: 'alpha' });
    servers.push(server);
    const desktop = await server.call('desktop');
    expect(desktop.isError, desktop.text.join('\n')).toBe(false);
    expect((desktop.data.monitors as Array<{ name: string }>).map((m) => m.name)).toEqual(['HEADLESS-1']);
    const out = join(dir, 'alpha.out');
    const appPid = await entryTask(server, d!, out, 'desk alpha task', 'written in alpha');
    // a second app stays open: desk stop must end it
    const l = await server.call('launch', { command: "zenity --question --title='desk alpha left open' --text=Still?" });
    expect(l.isError, l.text.join('\n')).toBe(false);
    const left = (await swayWindows(d!.env.SWAYSOCK)).find((w) => w.title === 'desk alpha left open')!;
    expect(left).toBeTruthy();
    const after = await personWindows();
    expect(after.filter((w) => !before.some((b) => b.pid === w.pid))).toEqual([]);
    expect(after.some((w) => w.title.startsWith('desk alpha') || w.pid === appPid || w.pid === left.pid)).toBe(false);
    await server.close();
    servers.splice(servers.indexOf(server), 1);

    // the monitor page shows the desk (its one 1024x768 output), not the person's session
    const monitor = spawn(...monitorCommand(user!, { ...env, HYPRUSE_DESK: 'alpha' }), { stdio: ['ignore', 'pipe', 'pipe'] });
    let said = '';
    monitor.stdout!.on('data', (b: Buffer) => (said += b.toString()));
    try {
      const url = (await waitFor(() => /^monitor page: (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]+\/)$/m.exec(said)?.[1], 20000, 'the monitor address'))!;
      // frames are captured while a page listens to the events stream
      const listening = new AbortController();
      void fetch(`${url}events`, { signal: listening.signal }).catch(() => undefined);
      onTestFinished(() => listening.abort());
      const frame = await waitFor(async () => {
        const r = await fetch(`${url}frame/HEADLESS-1`);
        return r.status === 200 ? r : null;
      }, 20000, "a frame of the desk's output");
      const g = JSON.parse(frame.headers.get('x-hypruse-frame')!).geometry;
      expect(Array.isArray(g) ? g : [g.x, g.y, g.width, g.height]).toEqual([0, 0, 1024, 768]);
      const none = await fetch(`${url}frame/HEADLESS-2`); // the person's second monitor is not the desk's
      expect(none.status).toBe(404);
      expect(await none.text()).toContain('outputs: HEADLESS-1');
    } finally {
      monitor.kill('SIGTERM');
    }

    const stopped = await hypruse(user!, env, ['desk', 'stop', 'alpha']);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout).toMatch(/^desk alpha stopped: \d+ processes ended \([1-9]\d* apps?\)/);
    await expectGone(d!, [left.pid]);
    expect(await deskStatus(user!, env)).toEqual([]);
  });

  it('a sway with a second seat (sway `seat NAME` adds a wl_seat): keys go to the default seat, whose focus the window has; the text arrives', async () => {
    const { dir, env } = freshPerson();
    const started = await hypruse(user!, env, ['desk', 'start', 'seats', '--size', '1024x768', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const [d] = (await deskStatus(user!, env)).filter((x) => x.name === 'seats');
    try {
      // a second seat, announced after seat0 (a wl_seat global of its own, with no devices and no focus)
      await swayAt(d!.env.SWAYSOCK, 'seat', 'other-seat', 'fallback', 'false');
      const seats = await swayAt<Array<{ name: string }>>(d!.env.SWAYSOCK, '-t', 'get_seats');
      expect(seats.map((x) => x.name).sort()).toEqual(['other-seat', 'seat0']);
      const server = await deskServer(user!, { ...env, HYPRUSE_DESK: 'seats' });
      servers.push(server);
      const out = join(dir, 'seats.out');
      const l = await server.call('launch', { command: `zenity --entry --title='two seats' --text=Name > ${out}` });
      expect(l.isError, l.text.join('\n')).toBe(false);
      const pid = (await swayWindows(d!.env.SWAYSOCK)).find((w) => w.title === 'two seats')!.pid;
      // a window mapped later takes the focus of every seat; focusing the first again over IPC moves seat0's
      // alone, so keys sent on the other seat would land in this one
      const decoyOut = join(dir, 'decoy.out');
      const decoy = await server.call('launch', { command: `zenity --entry --title='decoy' --text=Decoy > ${decoyOut}` });
      expect(decoy.isError, decoy.text.join('\n')).toBe(false);
      // typed on the virtual keyboard (bound to the first seat announced): the app's own output judges it
      const t = await server.call('keyboard', { action: 'type', text: 'seat zero', window: String(l.data.address) });
      expect(t.isError, t.text.join('\n')).toBe(false);
      const k = await server.call('keyboard', { action: 'key', keys: 'Return', window: String(l.data.address) });
      expect(k.isError, k.text.join('\n')).toBe(false);
      await waitFor(() => !running({ pid }), 5000, 'zenity to close on Return');
      expect(readFileSync(out, 'utf8')).toBe('seat zero\n');
      expect(readFileSync(decoyOut, 'utf8'), 'nothing reached the window the other seat focuses').toBe('');
      await server.close();
      servers.splice(servers.indexOf(server), 1);
    } finally {
      const stopped = await hypruse(user!, env, ['desk', 'stop', 'seats']);
      expect(stopped.code, stopped.stderr).toBe(0);
    }
    await expectGone(d!);
  });

  it('desk: private: the MCP server starts a desk of its own; hypruse stop ends the server, the desk and its apps', async () => {
    const { env } = freshPerson({ HYPRUSE_DESK: 'private' });
    const before = await personWindows();
    const server = await deskServer(user!, env);
    servers.push(server);
    const l = await server.call('launch', { command: "zenity --question --title='private desk app' --text=Here?" });
    expect(l.isError, l.text.join('\n')).toBe(false);
    const [d] = await deskStatus(user!, env);
    expect(d, 'the server started a desk').toBeTruthy();
    expect(d!.owner).toBe(server.pid);
    const app = (await swayWindows(d!.env.SWAYSOCK)).find((w) => w.title === 'private desk app')!;
    expect(app, 'the window is in the desk').toBeTruthy();
    expect(d!.apps).toContain(app.pid);
    expect((await personWindows()).filter((w) => !before.some((b) => b.pid === w.pid))).toEqual([]);

    const stop = await hypruse(user!, env, ['stop']);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain(`stopped hypruse (pid ${server.pid}, mcp)`);
    await expectGone(d!, [app.pid, server.pid!]);
    expect(await deskStatus(user!, env)).toEqual([]);
  });

  it('two servers, each with its own private desk, run a task suite at the same time without interfering (an entry, a form, a document saved through menu and file chooser)', async () => {
    const { dir, env } = freshPerson({ HYPRUSE_DESK: 'private' });
    const before = await personWindows();
    const [a, b] = await Promise.all([deskServer(user!, env), deskServer(user!, env)]);
    servers.push(a, b);
    // the first call builds each server's session, and with it its desk
    const [da, db] = await Promise.all([a.call('desktop'), b.call('desktop')]);
    expect(da.isError || db.isError, [...da.text, ...db.text].join('\n')).toBe(false);
    const desks = await deskStatus(user!, env);
    expect(desks.length).toBe(2);
    const of = (s: Server) => desks.find((x) => x.owner === s.pid)!;
    expect(of(a).name).not.toBe(of(b).name);
    expect(of(a).env.XDG_RUNTIME_DIR).not.toBe(of(b).env.XDG_RUNTIME_DIR);
    const [pa, pb] = await Promise.all([deskSuite(a, of(a), dir, 'a'), deskSuite(b, of(b), dir, 'b')]);
    expect(pa.filter((p) => pb.includes(p)), 'no process of one desk is the other\'s').toEqual([]);
    // neither desk's sway shows a window of the other's tasks
    for (const [s, other] of [[a, 'b'], [b, 'a']] as const) {
      const titles = (await swayWindows(of(s).env.SWAYSOCK)).map((w) => w.title);
      expect(titles.filter((x) => x.includes(`of ${other}`)), `desk of ${other === 'a' ? 'b' : 'a'}: ${titles.join(', ')}`).toEqual([]);
    }
    // each desk saw only its own window; the person's session none
    expect((await personWindows()).filter((w) => !before.some((x) => x.pid === w.pid))).toEqual([]);
    await Promise.all([a.close(), b.close()]);
    servers.length = 0;
    // a server that ends stops its own desk
    await expectGone(of(a));
    await expectGone(of(b));
  }, scaledMs(180000));

  it('errors: a missing compositor names its package; a plugin without a headless mode, root, an unknown desk say so', async () => {
    const { env } = freshPerson();
    const noSway = await hypruse(user!, { ...env, PATH: '/nonexistent' }, ['desk', 'start']);
    expect(noSway.code).toBe(1);
    expect(noSway.stderr).toContain('unsupported: cannot start a private desk: sway (the sway compositor) is not installed');
    expect(noSway.stderr).toContain('apt-get install sway');
    const hypr = await hypruse(user!, env, ['desk', 'start', '--compositor', 'hyprland']);
    expect(hypr.code).toBe(1);
    expect(hypr.stderr).toContain('the hyprland plugin cannot run a private desk');
    const unknown = await hypruse(user!, { ...env, HYPRUSE_DESK: 'nosuch' }, ['desktop']);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain('no private desk named "nosuch" is running');
    const badName = await hypruse(user!, env, ['desk', 'start', 'Bad/Name']);
    expect(badName.code).toBe(2);
    const cliPrivate = await hypruse(user!, { ...env, HYPRUSE_DESK: 'private' }, ['desktop']);
    expect(cliPrivate.code).toBe(2);
    expect(cliPrivate.stderr).toContain('hypruse desk start NAME');
    if (process.getuid?.() === 0) {
      const { BIN } = await import('../support/server.js');
      const { spawnSync } = await import('node:child_process');
      const r = spawnSync(process.execPath, [BIN, 'desk', 'start'], { env: { ...env, HOME: '/root' }, encoding: 'utf8' });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('cannot start a private desk as root: sway refuses to run as root');
    }
    expect(await deskStatus(user!, env)).toEqual([]);
  });
});
