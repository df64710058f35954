import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HypruseError, defaultConfig } from '@hypruse/core';
import { formatResult, runChecks, trustSummary, which, withTimeout, type CheckResult, type DoctorCheck } from '../src/commands/doctor.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('doctor checks', () => {
  it('report lines come in list order as soon as a check and those before it finish', async () => {
    const seen: Array<[string, number]> = [];
    const t0 = Date.now();
    const checks: DoctorCheck[] = [
      { name: 'slow', fix: '', run: async () => (await sleep(150), 'slow done') },
      { name: 'fast', fix: '', run: async () => 'fast done' },
      { name: 'later', fix: '', run: async () => (await sleep(300), 'later done') },
    ];
    const results = await runChecks(checks, (r) => seen.push([r.name, Date.now() - t0]));
    expect(results.map((r) => r.name)).toEqual(['slow', 'fast', 'later']);
    expect(seen.map(([n]) => n)).toEqual(['slow', 'fast', 'later']);
    // fast is printed with slow (not before it), later on its own, after
    expect(seen[1][1] - seen[0][1]).toBeLessThan(50);
    expect(seen[2][1]).toBeGreaterThanOrEqual(290);
    // they ran concurrently: the whole run took about the slowest check, not the sum
    expect(Date.now() - t0).toBeLessThan(440);
  });

  it('a hanging check fails at its timeout, its signal aborted, without holding the others', async () => {
    let aborted = false;
    const checks: DoctorCheck[] = [
      {
        name: 'hang',
        fix: 'start the thing',
        timeoutMs: 100,
        run: (signal) =>
          new Promise<string>(() => {
            signal.addEventListener('abort', () => (aborted = true));
          }),
      },
      { name: 'ok', fix: '', run: async () => 'fine' },
    ];
    const t0 = Date.now();
    const [hang, ok] = await runChecks(checks);
    expect(Date.now() - t0).toBeLessThan(400);
    expect(hang).toMatchObject({ name: 'hang', ok: false, detail: 'hang did not answer within 100 ms', timedOut: true });
    // a timeout is told apart from a missing component: the advice is the time scale, not the check's install fix
    expect(hang.fix).toMatch(/^no answer within 100 ms; the machine may be slow: set HYPRUSE_TIME_SCALE=\d+/);
    expect(hang.fix).not.toContain('start the thing');
    expect(aborted).toBe(true);
    expect(ok).toMatchObject({ ok: true, detail: 'fine' });
  });

  it("a failure's fix is the error's hint when it has one, else the check's own fix; details are one line", async () => {
    const [a, b] = await runChecks([
      { name: 'a', fix: 'default fix', run: async () => Promise.reject(new HypruseError('error.capture', 'grim\nfailed', { hint: 'install grim' })) },
      { name: 'b', fix: 'default fix', run: async () => Promise.reject(new Error('plain')) },
    ]);
    expect(a).toMatchObject({ ok: false, detail: 'grim failed', fix: 'install grim' });
    expect(b).toMatchObject({ ok: false, detail: 'plain', fix: 'default fix' });
  });

  it("a backend's own timeout gets the time-scale advice; a missing tool keeps its install hint", async () => {
    const [slow, slowText, missing, dependent] = await runChecks([
      {
        name: 'capture',
        fix: 'install grim',
        run: async () => Promise.reject(new HypruseError('error.capture', 'screencopy of HEADLESS-1 did not complete within 3000 ms', { data: { timeoutMs: 3000 } })),
      },
      { name: 'wayland', fix: 'start it', run: async () => Promise.reject(new HypruseError('error.wayland', 'cannot connect to /run/user/1000/wayland-1: no answer within 2700 ms')) },
      { name: 'grim', fix: 'install grim', run: async () => Promise.reject(new HypruseError('error.capture', 'grim is not installed (not found on PATH)', { hint: 'install grim (apt install grim)' })) },
      { name: 'events', fix: 'x', run: async () => Promise.reject(new HypruseError('error.internal', 'no session: session setup did not answer within 1500 ms', { hint: 'fix the config check above first' })) },
    ]);
    expect(slow).toMatchObject({ ok: false, timedOut: true });
    expect(slow.fix).toMatch(/^no answer within 3000 ms; the machine may be slow: set HYPRUSE_TIME_SCALE=/);
    expect(slowText).toMatchObject({ timedOut: true });
    expect(slowText.fix).toMatch(/^no answer within 2700 ms; the machine may be slow/);
    expect(missing).toMatchObject({ ok: false, fix: 'install grim (apt install grim)' });
    expect(missing.timedOut).toBeUndefined();
    expect(dependent).toMatchObject({ fix: 'fix the config check above first' });
    expect(dependent.timedOut).toBeUndefined();
  });

  it('formats [ok]/[FAIL] lines with the name padded and the fix on its own line', () => {
    const ok: CheckResult = { name: 'wayland', ok: true, detail: 'wayland-1: 38 globals', ms: 4 };
    const bad: CheckResult = { name: 'a11y', ok: false, detail: 'no bus', fix: 'start it', ms: 9 };
    expect(formatResult(ok)).toBe('[ok]   wayland      wayland-1: 38 globals');
    expect(formatResult(bad)).toBe('[FAIL] a11y         no bus\n       fix: start it');
  });

  it('withTimeout hands a value that arrives too late to `late` (so streams get closed)', async () => {
    let closed = '';
    await expect(withTimeout(sleep(80).then(() => 'stream'), 20, 'events', undefined, (v) => (closed = v))).rejects.toThrow(/events did not answer within 20 ms/);
    await sleep(100);
    expect(closed).toBe('stream');
  });

  it('the trust line names every effective trust setting', () => {
    const c = defaultConfig();
    expect(trustSummary(c)).toBe('read-only off, confine off, auth guard on, strict off, mark off, journal off, dry run off, clipboard off, screenshots file');
    const d = { ...c, readonly: true, confine: ['class:foot', 'launched'], authGuard: 'strict' as const, journal: { ...c.journal, path: 'default', text: true }, dryRun: true };
    expect(trustSummary(d)).toMatch(/^read-only on, confine class:foot,launched, auth guard strict, strict off, mark off, journal default \(text verbatim\), dry run on/);
  });

  it('which finds executables on PATH only', () => {
    const d = mkdtempSync(join(tmpdir(), 'hypruse-which-'));
    writeFileSync(join(d, 'tool'), '#!/bin/sh\n');
    writeFileSync(join(d, 'data'), '');
    chmodSync(join(d, 'tool'), 0o755);
    expect(which('tool', { PATH: `/nonexistent:${d}` })).toBe(join(d, 'tool'));
    expect(which('data', { PATH: d })).toBeNull();
    expect(which('tool', { PATH: '' })).toBeNull();
  });
});
