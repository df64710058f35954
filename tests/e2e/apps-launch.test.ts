// Launching real apps from a server whose host stripped the environment (only
// HOME, PATH and XDG_RUNTIME_DIR): a Qt 5 app gets a whole Wayland session and
// its window comes back; a command that fails at start is reported at once with
// its exit status and its own error output; an Electron-like program gets the
// Chromium accessibility switch from the app-family table. Judged by sway's
// tree, /proc (the launched process's environment and arguments) and libatspi.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import { appSuite, stopLaunched } from '../support/apps.js';

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
  const app = appSuite('apps', () => desk!.env.XDG_RUNTIME_DIR);
  const { home, pids } = app;

  it('a Qt 5 app (featherpad) starts on Wayland and its window comes back, with the session environment', async () => {
    const l = await app.server.call('launch', { command: 'featherpad', wait_s: 20 });
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
    const c = await app.server.call('wm', { action: 'close_window', target: String(l.data.address) });
    expect(c.isError, c.text.join('\n')).toBe(false);
  }, 60000);

  it('a program that fails at start is reported at once with its exit status and last error output', async () => {
    // QT_QPA_PLATFORM=xcb: Qt finds no X display and aborts, as it did for every Qt app before the session environment
    const t0 = Date.now();
    const l = await app.server.call('launch', { command: 'QT_QPA_PLATFORM=xcb speedcrunch', wait_s: 20 });
    const ms = Date.now() - t0;
    expect(l.isError).toBe(true);
    expect(l.text.join('\n')).toMatch(/^error: .*ended \(exit status 134 \(SIGABRT\)|killed by SIGABRT/);
    expect(l.text.join('\n')).toMatch(/qt\.qpa\.xcb: could not connect to display/);
    expect(ms, 'answered long before the 20 s wait').toBeLessThan(scaledMs(3000));

    const m = await app.server.call('launch', { command: 'no-such-program-here --x' });
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
    const l = await app.server.call('launch', { command: `${join(dir, 'notes-app')} --open today` });
    expect(l.isError, l.text.join('\n')).toBe(false);
    pids.push(Number(l.data.pid));
    await waitFor(() => readFileSync(argsFile, 'utf8'), 5000, 'the arguments file');
    expect(readFileSync(argsFile, 'utf8').split('\n').filter(Boolean)).toEqual(['--force-renderer-accessibility', '--open', 'today']);
    expect(String(l.data.note)).toMatch(/--force-renderer-accessibility \(electron accessibility\)/);
    await app.server.call('wm', { action: 'close_window', target: String(l.data.address) });
  }, 60000);

  it('a single-instance app (mousepad): the window that stays comes back, and a second launch is a hand-off to the first instance', async () => {
    const a = await app.server.call('launch', { command: 'mousepad', wait_s: 20 });
    expect(a.isError, a.text.join('\n')).toBe(false);
    const pid = Number(a.data.pid);
    pids.push(pid);
    // the answer is the window that stays (mousepad often replaces its first window within a second)
    await new Promise((r) => setTimeout(r, scaledMs(1500)));
    const nodes = (await swayNodes()).filter((n) => n.pid === pid);
    expect(nodes.map((n) => String(n.id)), 'the returned window is still the one mousepad shows').toEqual([String(a.data.address)]);

    const b = await app.server.call('launch', { command: 'mousepad', wait_s: 20 });
    expect(b.isError, b.text.join('\n')).toBe(false);
    expect(b.data).toMatchObject({ address: a.data.address, handed_to: pid });
    expect(b.text[0]).toMatch(/handed over to the running instance \(pid \d+\), which showed it in its existing window/);
    const after = (await swayNodes()).find((n) => String(n.id) === String(a.data.address));
    expect(after?.name, 'the running instance opened a second document').toMatch(/^Untitled 2 - Mousepad$/);
    await stopLaunched(pid);
  }, 90000);

  it('LibreOffice Writer: the splash is skipped, the document window comes back with the first-start dialog over it', async () => {
    const l = await app.server.call('launch', { command: 'libreoffice --writer', wait_s: 30 });
    expect(l.isError, l.text.join('\n')).toBe(false);
    const pid = Number(l.data.pid);
    pids.push(pid);
    expect(l.data).toMatchObject({ class: 'libreoffice-writer', title: 'Untitled 1 - LibreOffice Writer' });
    const nodes = await swayNodes();
    const doc = nodes.find((n) => String(n.id) === String(l.data.address));
    expect(doc?.app_id).toBe('libreoffice-writer');
    expect(nodes.some((n) => n.app_id === 'soffice' && /^LibreOffice [0-9.]+$/.test(n.name ?? '')), 'the splash is gone').toBe(false);
    const dialogs = (l.data.dialogs ?? []) as Array<{ address: string; title: string }>;
    expect(dialogs.map((d) => d.title)).toEqual([expect.stringMatching(/^Tip of the Day/)]);
    expect(nodes.find((n) => String(n.id) === dialogs[0]!.address)?.name).toMatch(/^Tip of the Day/);
    await stopLaunched(pid);
  }, 90000);
});
