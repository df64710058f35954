// Process handling of the capture backends with stand-in executables (no
// desktop needed): missing tools, timeouts, cancellation, grim's stderr.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancelledError, HypruseError, scaledMs } from '@hypruse/core';
import { GrimCapture, WlClipboard } from '@hypruse/wayland';

let dir: string;
const target = { kind: 'output' as const, name: 'HEADLESS-1', geometry: { x: 0, y: 0, width: 2, height: 1 }, scale: 1 };

async function script(name: string, body: string): Promise<string> {
  const p = join(dir, name);
  await writeFile(p, `#!/bin/sh\n${body}\n`);
  await chmod(p, 0o755);
  return p;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hypruse-fakegrim-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('GrimCapture process handling', () => {
  it('grim missing: typed error.capture with an install hint', async () => {
    const cap = new GrimCapture({ env: process.env, grimPath: join(dir, 'no-such-grim') });
    const err = await cap.capture(target).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HypruseError);
    expect((err as HypruseError).code).toBe('error.capture');
    expect((err as HypruseError).message).toMatch(/not installed/);
    expect((err as HypruseError).hint).toMatch(/apt install grim/);
    await expect(cap.describe()).rejects.toMatchObject({ code: 'error.capture' });
  });

  it('grim failing: its stderr is in the message', async () => {
    const grim = await script('grim-fail', 'echo "compositor doesn\'t support wlr-screencopy-unstable-v1" >&2; exit 1');
    const err = await new GrimCapture({ env: process.env, grimPath: grim }).capture(target).catch((e: unknown) => e);
    expect((err as HypruseError).code).toBe('error.capture');
    expect((err as HypruseError).message).toMatch(/exit 1\): compositor doesn't support wlr-screencopy/);
  });

  it('passes PPM pixels through and names the grim arguments used', async () => {
    const grim = await script('grim-ok', 'echo "$@" > "$0.args"; printf "P6\\n2 1\\n255\\n\\001\\002\\003\\004\\005\\006"');
    const f = await new GrimCapture({ env: process.env, grimPath: grim }).capture(target);
    expect([f.width, f.height, f.channels, f.scale, f.source, [...f.data]]).toEqual([2, 1, 3, 1, 'output', [1, 2, 3, 4, 5, 6]]);
    const { readFile } = await import('node:fs/promises');
    expect((await readFile(`${grim}.args`, 'utf8')).trim()).toBe('-t ppm -o HEADLESS-1 -');
    await new GrimCapture({ env: process.env, grimPath: grim }).capture({ kind: 'region', rect: { x: -5, y: 2, width: 2, height: 1 }, scale: 1 });
    expect((await readFile(`${grim}.args`, 'utf8')).trim()).toBe('-t ppm -s 1 -g -5,2 2x1 -');
  });

  it('a hung grim is killed at the timeout', async () => {
    const grim = await script('grim-hang', 'echo $$ > "$0.pid"; exec sleep 30');
    const t0 = Date.now();
    const err = await new GrimCapture({ env: process.env, grimPath: grim, timeoutMs: 300 }).capture(target).catch((e: unknown) => e);
    expect(Date.now() - t0).toBeLessThan(scaledMs(2000));
    expect((err as HypruseError).code).toBe('error.capture');
    expect((err as HypruseError).message).toContain(`did not finish within ${scaledMs(300)} ms`);
    const { readFile } = await import('node:fs/promises');
    const pid = Number(await readFile(`${grim}.pid`, 'utf8'));
    await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid)).toBe(false);
  });

  it('an abort kills grim and rejects with CancelledError', async () => {
    const grim = await script('grim-slow', 'echo $$ > "$0.pid"; exec sleep 30');
    const ac = new AbortController();
    const p = new GrimCapture({ env: process.env, grimPath: grim }).capture(target, ac.signal);
    setTimeout(() => ac.abort(), 100);
    const t0 = Date.now();
    await expect(p).rejects.toBeInstanceOf(CancelledError);
    expect(Date.now() - t0).toBeLessThan(scaledMs(1000));
    const { readFile } = await import('node:fs/promises');
    const pid = Number(await readFile(`${grim}.pid`, 'utf8'));
    await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid)).toBe(false);
    const pre = new AbortController();
    pre.abort();
    await expect(new GrimCapture({ env: process.env, grimPath: grim }).capture(target, pre.signal)).rejects.toBeInstanceOf(CancelledError);
  });
});

describe('WlClipboard process handling', () => {
  it('wl-clipboard missing: typed error.clipboard with an install hint', async () => {
    const cb = new WlClipboard({ env: { PATH: join(dir, 'empty-path') } });
    for (const call of [() => cb.read(10), () => cb.write('x')]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HypruseError);
      expect((err as HypruseError).code).toBe('error.clipboard');
      expect((err as HypruseError).hint).toMatch(/wl-clipboard/);
    }
  });
});
