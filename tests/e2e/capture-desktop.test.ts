// Capture, imaging and clipboard against the real headless sway desktop
// (tests/desktop/harness.mjs): HEADLESS-1 1280x800 @1 at 0,0 and HEADLESS-2
// 1920x1080 @1.5 at 1280,0. Pixels are checked against grim's own PNG output
// decoded independently, sizes against sway's own output list.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancelledError, HypruseError, regionScale, type CaptureTarget, type Frame, type Monitor, scaledMs } from '@hypruse/core';
import { GrimCapture, SharpImaging, WlClipboard } from '@hypruse/wayland';
import { saveShot, stableCapture } from '@hypruse/core';
import { killFixture, launchFixture, requireDesktop, swayNodes, swaymsg, waitFor, type LaunchedFixture } from '../support/desktop.js';

const desk = await requireDesktop();

interface SwayOutput {
  name: string;
  scale: number;
  rect: { x: number; y: number; width: number; height: number };
  current_mode: { width: number; height: number };
  current_workspace: string;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, encoding: 'buffer' | 'utf8' = 'utf8'): Promise<Buffer | string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { env, encoding, maxBuffer: 64 << 20, timeout: 10000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')}: ${String(stderr) || err.message}`));
      else resolve(stdout);
    });
  });
}

/** Independent oracle: grim's own PNG, decoded by sharp to raw RGB. */
async function grimPngPixels(env: NodeJS.ProcessEnv, args: string[]): Promise<{ data: Buffer; width: number; height: number }> {
  const png = (await run('grim', [...args, '-'], env, 'buffer')) as Buffer;
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

function px(f: { data: Buffer; width: number }, x: number, y: number): number[] {
  const i = (y * f.width + x) * 3;
  return [...f.data.subarray(i, i + 3)];
}

describe.skipIf(!desk)('capture on the headless sway desktop', () => {
  const env = { ...process.env, ...desk?.env };
  const capture = new GrimCapture({ env });
  const imaging = new SharpImaging();
  let outputs: SwayOutput[];
  let monitors: Monitor[];
  let term: LaunchedFixture | undefined;
  const outTarget = (name: string): CaptureTarget => {
    const o = outputs.find((x) => x.name === name)!;
    return { kind: 'output', name, geometry: o.rect, scale: o.scale };
  };

  beforeAll(async () => {
    outputs = await swaymsg<SwayOutput[]>('-t', 'get_outputs');
    monitors = outputs.map((o) => ({ name: o.name, scale: o.scale, geometry: o.rect }) as unknown as Monitor);
    // A terminal full of text on the fractional-scale monitor, so pixels are not a flat background.
    const ws = outputs.find((o) => o.name === 'HEADLESS-2')!.current_workspace;
    term = await launchFixture('foot', { workspace: ws, args: ['sh', '-c', 'ls -l /usr/bin | head -60; exec sleep 600'] });
    // wait for the text to be drawn and still
    await waitFor(async () => (await stableCapture(capture, imaging, outTarget('HEADLESS-2'), { intervalMs: 100, timeoutMs: 1500 })).stable, 8000, 'a still terminal');
  });

  afterAll(async () => {
    if (term) await killFixture(term.pid);
  });

  it('the desktop has the two outputs the tests assume', () => {
    expect(outputs.map((o) => [o.name, o.scale, o.rect.x, o.rect.width, o.rect.height]).sort()).toEqual([
      ['HEADLESS-1', 1, 0, 1280, 800],
      ['HEADLESS-2', 1.5, 1280, 1280, 720],
    ]);
  });

  it('describe names the grim path and its window capture ability', async () => {
    expect(await capture.describe()).toMatch(/^grim 1\.4 \(ppm → sharp\), no toplevel capture/);
  });

  it('HEADLESS-1 captures at 1280x800, scale 1, pixel-identical to grim PNG', async () => {
    const f = await capture.capture(outTarget('HEADLESS-1'));
    expect([f.width, f.height, f.scale, f.channels, f.source, f.via]).toEqual([1280, 800, 1, 3, 'output', 'grim']);
    expect(f.geometry).toEqual({ x: 0, y: 0, width: 1280, height: 800 });
    const oracle = await grimPngPixels(env, ['-o', 'HEADLESS-1']);
    expect(f.data.equals(oracle.data)).toBe(true);
  });

  it('HEADLESS-2 captures at its native 1920x1080 with scale 1.5, pixel-identical to grim PNG', async () => {
    const f = await capture.capture(outTarget('HEADLESS-2'));
    expect([f.width, f.height, f.scale]).toEqual([1920, 1080, 1.5]);
    expect(f.geometry).toEqual({ x: 1280, y: 0, width: 1280, height: 720 });
    const oracle = await grimPngPixels(env, ['-o', 'HEADLESS-2']);
    expect(f.data.equals(oracle.data)).toBe(true);
    // the terminal's text is there: many distinct colours
    const colours = new Set<number>();
    for (let i = 0; i < f.data.length; i += 3 * 97) colours.add(f.data.readUIntBE(i, 3));
    expect(colours.size).toBeGreaterThan(4);
  });

  it('a region across the seam renders at the greater scale and lines up with both outputs', async () => {
    const rect = { x: 1200, y: 100, width: 200, height: 100 };
    const scale = regionScale(monitors, rect);
    expect(scale).toBe(1.5);
    const f = await capture.capture({ kind: 'region', rect, scale });
    expect([f.width, f.height, f.scale, f.source]).toEqual([300, 150, 1.5, 'region']);
    const h1 = await capture.capture(outTarget('HEADLESS-1'));
    const h2 = await capture.capture(outTarget('HEADLESS-2'));
    // Right part (x ≥ 1280) comes from HEADLESS-2 unscaled: pixel (px,py) = H2 pixel (px-120, py+150).
    let same = 0;
    let total = 0;
    for (let py = 0; py < 150; py += 3) {
      for (let pxl = 120; pxl < 300; pxl += 3) {
        total++;
        if (px(f, pxl, py).join() === px(h2, pxl - 120, py + 150).join()) same++;
      }
    }
    expect(same).toBe(total);
    // Left part (x < 1280) is HEADLESS-1 upscaled: global = origin + pixel / scale.
    for (const [pxl, py] of [[0, 0], [60, 75], [118, 149]]) {
      const gx = Math.floor(rect.x + pxl / f.scale);
      const gy = Math.floor(rect.y + py / f.scale);
      expect(px(f, pxl, py)).toEqual(px(h1, gx, gy));
    }
  });

  it('a window capture is a crop of the screen at the window geometry (source: crop)', async () => {
    const node = (await swayNodes()).find((n) => n.pid === term!.pid || (n.app_id === 'foot' && n.output === 'HEADLESS-2'));
    expect(node).toBeTruthy();
    const g = node!.rect;
    const f = await capture.capture({ kind: 'window', address: String(node!.id), geometry: g, scale: 1.5 });
    expect([f.source, f.width, f.height, f.scale]).toEqual(['crop', Math.floor(g.width * 1.5), Math.floor(g.height * 1.5), 1.5]);
    const region = await capture.capture({ kind: 'region', rect: g, scale: 1.5 });
    expect(f.data.equals(region.data)).toBe(true);
  });

  it('capture → JPEG → file: the saved file decodes to the frame size', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hypruse-shots-'));
    try {
      const f = await capture.capture(outTarget('HEADLESS-2'));
      const img = await imaging.encode(f, { format: 'jpeg' });
      const path = await saveShot(dir, img);
      const meta = await sharp(await readFile(path)).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 1920, 1080]);
      expect(img.scale).toBe(1.5);
      const fitted = await imaging.encode(f, { format: 'jpeg', maxEdge: 1568, maxBytes: 700_000 });
      expect(fitted.width).toBe(1568);
      expect(fitted.data.length).toBeLessThanOrEqual(700_000);
      expect(fitted.scale).toBeCloseTo(1568 / 1280, 9);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a still screen is reported stable', async () => {
    const t0 = Date.now();
    const r = await stableCapture(capture, imaging, outTarget('HEADLESS-1'));
    expect(r.stable).toBe(true);
    expect(Date.now() - t0).toBeLessThan(scaledMs(1500));
    expect(r.frame.width).toBe(1280);
  });

  it('an unknown output is error.capture carrying grim\'s message', async () => {
    const err = await capture.capture({ kind: 'output', name: 'NOPE-9', geometry: { x: 0, y: 0, width: 10, height: 10 }, scale: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HypruseError);
    expect((err as HypruseError).code).toBe('error.capture');
    expect((err as HypruseError).message).toMatch(/NOPE-9/);
  });

  it('an aborted capture rejects with CancelledError', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(capture.capture(outTarget('HEADLESS-1'), ac.signal)).rejects.toBeInstanceOf(CancelledError);
  });
});

describe.skipIf(!desk)('clipboard on the headless sway desktop', () => {
  const env = { ...process.env, ...desk?.env };
  const clip = new WlClipboard({ env });

  it('write then read round-trips text, and wl-paste sees the same', async () => {
    const text = `hypruse ✓ clipboard ${Date.now()}\nsecond line`;
    await clip.write(text);
    expect(await clip.read(100_000)).toEqual({ kind: 'text', text, truncated: false, totalChars: [...text].length });
    expect(await run('wl-paste', ['--no-newline'], env)).toBe(text);
  });

  it('truncates long text and reports the total', async () => {
    await clip.write('abcdefghij'.repeat(10));
    expect(await clip.read(15)).toEqual({ kind: 'text', text: 'abcdefghijabcde', truncated: true, totalChars: 100 });
  });

  it('names non-text content by MIME type and size', async () => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#123456' } }).png().toBuffer();
    await new Promise<void>((resolve, reject) => {
      const child = spawn('wl-copy', ['--type', 'image/png'], { env, stdio: ['pipe', 'ignore', 'ignore'] });
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`wl-copy exit ${code}`))));
      child.stdin.end(png);
    });
    expect(await clip.read(100)).toEqual({ kind: 'binary', mime: ['image/png'], bytes: png.length });
  });

  it('an empty clipboard reads as empty', async () => {
    await run('wl-copy', ['--clear'], env);
    expect(await clip.read(100)).toEqual({ kind: 'empty' });
  });

  it('describe names wl-clipboard', async () => {
    expect(await clip.describe()).toMatch(/^wl-clipboard \d+\.\d+/);
  });
});
