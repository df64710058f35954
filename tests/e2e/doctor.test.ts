// `hypruse doctor` from the built binary: every check [ok] on the real
// headless sway desktop; with no desktop, or with a desktop that accepts
// connections but never answers, a report of what is missing and how to fix
// it, within 5 seconds, exit 1.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { BIN } from '../support/server.js';
import { killFixture, launchFixture, requireDesktop, swaymsg } from '../support/desktop.js';

const CHECKS = ['config', 'compositor', 'wayland', 'events', 'pointer', 'keyboard', 'capture', 'wtype', 'a11y', 'a11y-switches', 'clipboard', 'takeover', 'chord', 'indicator', 'monitor', 'trust'];

interface Run {
  code: number | null;
  out: string;
  err: string;
  ms: number;
  /** ms after start at which each stdout line arrived */
  arrivals: number[];
}

function doctor(env: Record<string, string>, args: string[] = []): Promise<Run> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [BIN, 'doctor', ...args], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...env }, cwd: env.HOME });
    let out = '';
    let err = '';
    const arrivals: number[] = [];
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      for (let i = 0; i < d.toString().split('\n').length - 1; i++) arrivals.push(Date.now() - t0);
    });
    child.stderr.on('data', (d) => (err += d));
    const kill = setTimeout(() => child.kill('SIGKILL'), 15000);
    child.on('close', (code) => {
      clearTimeout(kill);
      resolve({ code, out, err, ms: Date.now() - t0, arrivals });
    });
  });
}

const lines = (out: string) => out.split('\n').filter((l) => /^\[(ok|FAIL)\]/.test(l));
const nameOf = (l: string) => l.slice(7).trim().split(/\s+/)[0];

function bareEnv(): Record<string, string> {
  return { HOME: mkdtempSync(join(tmpdir(), 'hypruse-doc-home-')), XDG_RUNTIME_DIR: mkdtempSync(join(tmpdir(), 'hypruse-doc-run-')) };
}

describe('hypruse doctor without a desktop', () => {
  it('reports what is missing, with a fix for each failure, within 5 s, exit 1', async () => {
    const r = await doctor(bareEnv());
    expect(r.code).toBe(1);
    expect(r.ms).toBeLessThan(scaledMs(5000));
    const ls = lines(r.out);
    expect(ls.map(nameOf)).toEqual(CHECKS);
    const failed = ls.filter((l) => l.startsWith('[FAIL]')).map(nameOf);
    expect(failed).toEqual(expect.arrayContaining(['compositor', 'wayland', 'events', 'pointer', 'keyboard', 'capture', 'a11y']));
    for (const name of failed) {
      const i = r.out.split('\n').findIndex((l) => l.startsWith('[FAIL]') && nameOf(l) === name);
      expect(r.out.split('\n')[i + 1], `fix line after ${name}`).toMatch(/^ {7}fix: \S/);
    }
    expect(r.out).toMatch(/\[FAIL\] compositor +none found \(hyprland: .*sway: .*niri: .*\)/);
    expect(r.out).toMatch(/\[FAIL\] wayland +no Wayland socket at .*wayland-0/);
    expect(r.out).toMatch(/\[ok\] +trust +read-only off, confine off, auth guard on/);
    expect(r.out).toMatch(/^\d+ of 16 checks failed/m);
  });

  it('--json is the same report as one object', async () => {
    const r = await doctor(bareEnv(), ['--json']);
    expect(r.code).toBe(1);
    const j = JSON.parse(r.out);
    expect(j.ok).toBe(false);
    expect(j.checks.map((c: { name: string }) => c.name)).toEqual(CHECKS);
    expect(j.checks.find((c: { name: string }) => c.name === 'wayland')).toMatchObject({ ok: false, fix: expect.any(String) });
  });

  describe('with sockets that accept but never answer (a hung desktop)', () => {
    const servers: Server[] = [];
    const sockets: Socket[] = [];
    afterAll(async () => {
      for (const s of sockets) s.destroy();
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    });
    const silent = async (path: string) => {
      const s = createServer((c) => sockets.push(c)); // accepts, reads, never writes
      await new Promise<void>((r) => s.listen(path, r));
      servers.push(s);
    };

    it('every check is bounded: the report still ends within 5 s, naming what did not answer', async () => {
      const env = bareEnv();
      const run = env.XDG_RUNTIME_DIR;
      await silent(join(run, 'sway.sock'));
      await silent(join(run, 'wayland-9'));
      await silent(join(run, 'bus'));
      const r = await doctor({ ...env, SWAYSOCK: join(run, 'sway.sock'), WAYLAND_DISPLAY: 'wayland-9', DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(run, 'bus')}` });
      expect(r.code).toBe(1);
      expect(r.ms).toBeLessThan(scaledMs(5000));
      expect(lines(r.out).map(nameOf)).toEqual(CHECKS);
      expect(r.out).toMatch(/\[FAIL\] compositor .*(did not answer|timed out|timeout)/i);
      expect(r.out).toMatch(/\[FAIL\] events /);
      expect(r.out).toMatch(/\[FAIL\] wayland /);
    });
  });
});

const desk = await requireDesktop();

describe.skipIf(!desk)('hypruse doctor on the real desktop', () => {
  it('reports every check [ok], exit 0, listing the apps that publish a tree', async () => {
    const app = await launchFixture('zenity-entry');
    try {
      const r = await doctor({ ...desk!.env, HOME: mkdtempSync(join(tmpdir(), 'hypruse-doc-home-')) });
      expect(r.err).toBe('');
      expect(r.code, r.out).toBe(0);
      const ls = lines(r.out);
      expect(ls.map(nameOf)).toEqual(CHECKS);
      for (const l of ls) expect(l, l).toMatch(/^\[ok\]/);
      // checked against sway itself
      const v = await swaymsg<{ human_readable: string }>('-t', 'get_version');
      expect(r.out).toMatch(new RegExp(`\\[ok\\] +compositor +sway ${v.human_readable.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} via plugin "sway"`));
      expect(r.out).toContain(`zenity (pid ${app.pid})`);
      expect(r.out).toMatch(/\[ok\] +pointer +virtual pointer created and destroyed/);
      expect(r.out).toMatch(/\[ok\] +capture +.*test capture 8x8 px/);
      // sway 1.7 advertises org_kde_kwin_idle (ext-idle-notify-v1 comes with 1.8)
      expect(r.out).toMatch(/\[ok\] +takeover +org_kde_kwin_idle, pauses 1500 ms after the person's input; sees .*cannot see which device/);
      expect(r.out).toMatch(/\[ok\] +chord +super\+alt\+Escape in sway: .*; state running/);
      expect(r.out).toMatch(/\[ok\] +indicator +indicator possible: zwlr_layer_shell_v1 v\d+: click-through overlay surfaces/);
      expect(r.out).toMatch(/^all 16 checks passed/m);
      expect(r.ms).toBeLessThan(scaledMs(5000));
      // progress: the lines did not all arrive at once at the end
      expect(r.arrivals.length).toBeGreaterThanOrEqual(13);
    } finally {
      await killFixture(app.pid);
    }
  });
});
