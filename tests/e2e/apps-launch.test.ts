// Launching real apps from a server whose host stripped the environment (only
// HOME, PATH and XDG_RUNTIME_DIR): a Qt 5 app gets a whole Wayland session and
// its window comes back; a command that fails at start is reported at once with
// its exit status and its own error output; an Electron-like program gets the
// Chromium accessibility switch from the app-family table. Judged by sway's
// tree, /proc (the launched process's environment and arguments) and libatspi.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { killFixture, requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import { startServerExactEnv, type Server } from '../support/server.js';
import { alive } from '../support/tools.js';

const desk = await requireDesktop();

function environ(pid: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
    const i = kv.indexOf('=');
    if (i > 0) out[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return out;
}

describe.skipIf(!desk)('launch from a server with only HOME, PATH and XDG_RUNTIME_DIR', () => {
  let server: Server;
  const pids: number[] = [];
  const home = mkdtempSync(join(tmpdir(), 'hypruse-apps-home-'));

  beforeAll(async () => {
    server = await startServerExactEnv({ HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin', XDG_RUNTIME_DIR: desk!.env.XDG_RUNTIME_DIR, HYPRUSE_INDICATOR: '0' });
  }, 60000);
  afterAll(async () => {
    for (const pid of pids) if (alive(pid)) await killFixture(pid).catch(() => undefined);
    await server?.close();
  });

  it('a Qt 5 app (featherpad) starts on Wayland and its window comes back, with the session environment', async () => {
    const l = await server.call('launch', { command: 'featherpad', wait_s: 20 });
    expect(l.isError, l.text.join('\n')).toBe(false);
    const pid = Number(l.data.pid);
    pids.push(pid);
    const node = (await swayNodes()).find((n) => String(n.id) === String(l.data.address));
    expect(node?.app_id, 'sway lists the window as a native Wayland window of featherpad').toBe('featherpad');
    expect(node?.pid).toBe(pid);
    const env = environ(pid);
    expect(env).toMatchObject({
      XDG_SESSION_TYPE: 'wayland',
      XDG_CURRENT_DESKTOP: 'sway',
      WAYLAND_DISPLAY: desk!.env.WAYLAND_DISPLAY,
      XDG_RUNTIME_DIR: desk!.env.XDG_RUNTIME_DIR,
      DBUS_SESSION_BUS_ADDRESS: desk!.env.DBUS_SESSION_BUS_ADDRESS,
      QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1',
    });
    const c = await server.call('wm', { action: 'close_window', target: String(l.data.address) });
    expect(c.isError, c.text.join('\n')).toBe(false);
  }, 60000);

  it('a program that fails at start is reported at once with its exit status and last error output', async () => {
    // QT_QPA_PLATFORM=xcb: Qt finds no X display and aborts, as it did for every Qt app before the session environment
    const t0 = Date.now();
    const l = await server.call('launch', { command: 'QT_QPA_PLATFORM=xcb speedcrunch', wait_s: 20 });
    const ms = Date.now() - t0;
    expect(l.isError).toBe(true);
    expect(l.text.join('\n')).toMatch(/^error: .*ended \(exit status 134 \(SIGABRT\)|killed by SIGABRT/);
    expect(l.text.join('\n')).toMatch(/qt\.qpa\.xcb: could not connect to display/);
    expect(ms, 'answered long before the 20 s wait').toBeLessThan(scaledMs(3000));

    const m = await server.call('launch', { command: 'no-such-program-here --x' });
    expect(m.isError).toBe(true);
    expect(m.text.join('\n')).toMatch(/exit status 127.*\n.*no-such-program-here: not found/);
  }, 60000);

  it('an Electron program (recognised by the app.asar beside it) gets the renderer-accessibility switch', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hypruse-electron-'));
    chmodSync(dir, 0o755);
    mkdirSync(join(dir, 'resources'));
    writeFileSync(join(dir, 'resources', 'app.asar'), '');
    const argsFile = join(dir, 'args');
    // stands in for the Electron runtime: records its arguments, then opens a window
    writeFileSync(join(dir, 'notes-app'), `#!/bin/sh\nprintf '%s\\n' "$@" > ${argsFile}\nexec zenity --info --text=electron-stand-in\n`);
    chmodSync(join(dir, 'notes-app'), 0o755);
    const l = await server.call('launch', { command: `${join(dir, 'notes-app')} --open today` });
    expect(l.isError, l.text.join('\n')).toBe(false);
    pids.push(Number(l.data.pid));
    await waitFor(() => readFileSync(argsFile, 'utf8'), 5000, 'the arguments file');
    expect(readFileSync(argsFile, 'utf8').split('\n').filter(Boolean)).toEqual(['--force-renderer-accessibility', '--open', 'today']);
    expect(String(l.data.note)).toMatch(/--force-renderer-accessibility \(electron accessibility\)/);
    await server.call('wm', { action: 'close_window', target: String(l.data.address) });
  }, 60000);
});
