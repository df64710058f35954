import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { environValue, parseProcStat, procfsTableAt, readProcStat } from '../src/process/proc.js';

describe('/proc parsing', () => {
  it('parses /proc/<pid>/stat even when the command name holds spaces and parentheses', () => {
    expect(parseProcStat('1234 (Web Content (x)) S 100 1234 99 0 -1 4194560')).toEqual({ pid: 1234, ppid: 100, pgrp: 1234, session: 99 });
    expect(parseProcStat('1 (systemd) S 0 1 1 0 -1')).toEqual({ pid: 1, ppid: 0, pgrp: 1, session: 1 });
  });

  it('refuses text that is not a stat line', () => {
    expect(parseProcStat('garbage')).toBeNull();
    expect(parseProcStat('12 (sh) S')).toBeNull();
    expect(parseProcStat('x (sh) S 1 2 3')).toBeNull();
  });

  it('reads one variable of an environ block, exactly by name', () => {
    const env = 'PATH=/bin\0HYPRUSE_LAUNCH_TOKEN_X=no\0HYPRUSE_LAUNCH_TOKEN=abc=d\0';
    expect(environValue(env, 'HYPRUSE_LAUNCH_TOKEN')).toBe('abc=d');
    expect(environValue(env, 'PATH')).toBe('/bin');
    expect(environValue(env, 'HOME')).toBeNull();
  });
});

describe('procfs table over a procfs-shaped folder', () => {
  const root = mkdtempSync(join(tmpdir(), 'hypruse-proc-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const proc = (pid: number, stat: string, environ?: string) => {
    mkdirSync(join(root, String(pid)));
    writeFileSync(join(root, String(pid), 'stat'), stat);
    if (environ !== undefined) writeFileSync(join(root, String(pid), 'environ'), environ);
  };
  proc(500, '500 (sh) S 1 500 500 0 -1');
  proc(510, '510 (my app) S 500 510 500 0 -1', 'A=1\0HYPRUSE_LAUNCH_TOKEN=t1\0');
  mkdirSync(join(root, 'self'));
  const table = procfsTableAt(root);

  it('lists numeric entries only and answers parent, group and environment', () => {
    expect(table.pids().sort()).toEqual([500, 510]);
    expect(table.parent(510)).toBe(500);
    expect(table.group?.(510)).toEqual({ pgrp: 510, session: 500 });
    expect(table.envVar(510, 'HYPRUSE_LAUNCH_TOKEN')).toBe('t1');
    expect(readProcStat(500, root)).toEqual({ pid: 500, ppid: 1, pgrp: 500, session: 500 });
  });

  it('answers null for a process that is gone or unreadable', () => {
    expect(table.parent(999)).toBeNull();
    expect(table.group?.(999)).toBeNull();
    expect(table.envVar(500, 'HYPRUSE_LAUNCH_TOKEN')).toBeNull(); // no environ file
    expect(procfsTableAt(join(root, 'missing')).pids()).toEqual([]);
  });

  it('reads a process\'s arguments (a program that rewrote its command line into one string stays one), and none for a pid that is not one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hypruse-proc-args-'));
    mkdirSync(join(dir, '41'));
    writeFileSync(join(dir, '41', 'cmdline'), 'chromium\0--force-renderer-accessibility\0http://x/\0');
    mkdirSync(join(dir, '42'));
    writeFileSync(join(dir, '42', 'cmdline'), '/usr/lib/chromium/chromium --type=renderer --disable-frame-rate-limit ');
    mkdirSync(join(dir, '43'));
    writeFileSync(join(dir, '43', 'cmdline'), '');
    const table = procfsTableAt(dir);
    expect(table.args?.(41)).toEqual(['chromium', '--force-renderer-accessibility', 'http://x/']);
    expect(table.args?.(42)).toEqual(['/usr/lib/chromium/chromium --type=renderer --disable-frame-rate-limit ']);
    expect(table.program?.(41)?.argv0).toBe('chromium');
    for (const pid of [43, 44, 0, -1, 1.5]) expect(table.args?.(pid), String(pid)).toBeNull();
    rmSync(dir, { recursive: true, force: true });
  });
});
