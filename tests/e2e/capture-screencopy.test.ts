// In-process wlr-screencopy (wl_shm through sendmsg) against the real
// headless sway desktop, checked pixel for pixel against grim.
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancelledError, HypruseError, type CaptureTarget } from '@hypruse/core';
import { GrimCapture, ScreencopyCapture, SharpImaging } from '@hypruse/wayland';
import { stableCapture } from '@hypruse/core';
import { killFixture, launchFixture, requireDesktop, swaymsg, waitFor, type LaunchedFixture } from '../support/desktop.js';

const desk = await requireDesktop();

describe.skipIf(!desk)('in-process screencopy on the headless sway desktop', () => {
  const env = { ...process.env, ...desk?.env };
  const grim = new GrimCapture({ env });
  const sc = new ScreencopyCapture({ env, fallback: grim });
  const H1: CaptureTarget = { kind: 'output', name: 'HEADLESS-1', geometry: { x: 0, y: 0, width: 1280, height: 800 }, scale: 1 };
  const H2: CaptureTarget = { kind: 'output', name: 'HEADLESS-2', geometry: { x: 1280, y: 0, width: 1280, height: 720 }, scale: 1.5 };
  let term: LaunchedFixture | undefined;

  beforeAll(async () => {
    const outputs = await swaymsg<Array<{ name: string; current_workspace: string }>>('-t', 'get_outputs');
    const ws = outputs.find((o) => o.name === 'HEADLESS-2')!.current_workspace;
    term = await launchFixture('foot', { workspace: ws, args: ['sh', '-c', 'ls -l /usr/lib | head -60; exec sleep 600'] });
    await waitFor(async () => (await stableCapture(grim, new SharpImaging(), H2, { intervalMs: 100, timeoutMs: 1500 })).stable, 8000, 'a still terminal');
  });
  afterAll(async () => {
    sc.close();
    if (term) await killFixture(term.pid);
  });

  it('describe names the in-process path and the grim fallback', async () => {
    expect(await sc.describe()).toMatch(/^zwlr_screencopy_manager_v1 v3 in-process .*grim 1\.4/);
  });

  it.each([
    ['HEADLESS-1', H1, 1280, 800, 1],
    ['HEADLESS-2', H2, 1920, 1080, 1.5],
  ] as const)('%s: screencopy frame equals grim pixel for pixel', async (_n, target, w, h, scale) => {
    const a = await sc.capture(target);
    const b = await grim.capture(target);
    expect([a.via, a.width, a.height, a.scale, a.source, a.channels]).toEqual(['screencopy', w, h, scale, 'output', 3]);
    expect(a.geometry).toEqual(target.kind === 'output' ? target.geometry : null);
    expect(a.data.equals(b.data)).toBe(true);
  });

  it('a region inside the fractional monitor: 720x540 px for 480x360 logical, equal to grim', async () => {
    const t: CaptureTarget = { kind: 'region', rect: { x: 1680, y: 180, width: 480, height: 360 }, scale: 1.5 };
    const a = await sc.capture(t);
    const b = await grim.capture(t);
    expect([a.via, a.width, a.height, a.scale, a.source]).toEqual(['screencopy', 720, 540, 1.5, 'region']);
    expect(a.geometry).toEqual({ x: 1680, y: 180, width: 480, height: 360 });
    expect(a.data.equals(b.data)).toBe(true);
  });

  it('a region across the seam goes to grim (one screencopy frame covers one output)', async () => {
    const f = await sc.capture({ kind: 'region', rect: { x: 1200, y: 100, width: 200, height: 100 }, scale: 1.5 });
    expect([f.via, f.width, f.height, f.scale]).toEqual(['grim', 300, 150, 1.5]);
  });

  it('a scale other than the output\'s goes to grim, which resamples', async () => {
    const f = await sc.capture({ kind: 'region', rect: { x: 1680, y: 180, width: 480, height: 360 }, scale: 1 });
    expect([f.via, f.width, f.height, f.scale]).toEqual(['grim', 480, 360, 1]);
  });

  it('a window is a crop taken by grim (no toplevel capture here)', async () => {
    const f = await sc.capture({ kind: 'window', address: 'x', geometry: { x: 100, y: 100, width: 50, height: 40 }, scale: 1 });
    expect([f.via, f.source, f.width, f.height]).toEqual(['grim', 'crop', 50, 40]);
  });

  it('repeated captures keep working and leak no file descriptors (shm files are closed)', async () => {
    await sc.capture(H1);
    const fds = readdirSync('/proc/self/fd').length;
    for (let i = 0; i < 8; i++) {
      const f = await sc.capture(i % 2 ? H1 : H2);
      expect(f.via).toBe('screencopy');
    }
    expect(readdirSync('/proc/self/fd').length).toBeLessThanOrEqual(fds);
  });

  it('an aborted capture rejects with CancelledError', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(sc.capture(H2, ac.signal)).rejects.toBeInstanceOf(CancelledError);
  });

  it('without a reachable compositor the fallback reports the failure as error.capture', async () => {
    const broken = new ScreencopyCapture({ env: { ...env, WAYLAND_DISPLAY: 'wayland-nope' }, fallback: new GrimCapture({ env: { ...env, WAYLAND_DISPLAY: 'wayland-nope' } }) });
    const err = await broken.capture(H1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HypruseError);
    expect((err as HypruseError).code).toBe('error.capture');
    expect(await broken.describe()).toMatch(/in-process screencopy unavailable/);
  });
});
