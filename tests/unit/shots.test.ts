import { mkdtemp, readdir, rm, stat, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Capture, CaptureTarget, EncodedImage, Frame } from '@hypruse/core';
import { CancelledError } from '@hypruse/core';
import { SharpImaging } from '@hypruse/wayland';
import { pruneShots, saveShot, shotName, stableCapture } from '@hypruse/core';
import { solidFrame } from '../../packages/wayland/test/capture-fixtures/frames.js';

const img = (n: number, format: 'jpeg' | 'png' = 'jpeg'): EncodedImage => ({
  data: Buffer.from(`image ${n}`),
  mime: format === 'png' ? 'image/png' : 'image/jpeg',
  format,
  width: 1,
  height: 1,
  scale: 1,
});

describe('saveShot', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hypruse-shot-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes <runtime>/hypruse/shot-<ms>-<seq>.<fmt> with private permissions', async () => {
    const before = Date.now();
    const path = await saveShot(dir, img(1, 'png'));
    expect(path.startsWith(join(dir, 'hypruse', 'shot-'))).toBe(true);
    const m = /^shot-(\d+)-(\d{4})\.png$/.exec(basename(path));
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThanOrEqual(before);
    expect(await readFile(path, 'utf8')).toBe('image 1');
    expect((await stat(join(dir, 'hypruse'))).mode & 0o777).toBe(0o700);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('keeps only the newest `keep` shots and never touches other files', async () => {
    await saveShot(dir, img(0));
    await writeFile(join(dir, 'hypruse', 'cli-state.json'), '{}');
    const paths: string[] = [];
    for (let i = 1; i <= 6; i++) paths.push(await saveShot(dir, img(i), 3));
    const left = (await readdir(join(dir, 'hypruse'))).sort();
    expect(left).toEqual(['cli-state.json', ...paths.slice(-3).map((p) => basename(p))].sort());
    expect(await readFile(paths[5], 'utf8')).toBe('image 6');
  });

  it('names sort in write order within one millisecond', () => {
    const names = [shotName(1700000000000, 9, 'png'), shotName(1700000000000, 10, 'jpeg'), shotName(1700000000001, 0, 'png')];
    expect([...names].sort()).toEqual(names);
  });

  it('pruneShots ignores files that are not shots', async () => {
    await saveShot(dir, img(1));
    await writeFile(join(dir, 'hypruse', 'shot-notes.txt'), 'x');
    expect(await pruneShots(join(dir, 'hypruse'), 0)).toHaveLength(1);
    expect(await readdir(join(dir, 'hypruse'))).toEqual(['shot-notes.txt']);
  });
});

/** A fake Capture replaying a list of frames (the last one repeats). */
class ScriptedCapture implements Capture {
  calls = 0;
  constructor(private readonly frames: Frame[]) {}
  async describe(): Promise<string> {
    return 'scripted';
  }
  async capture(_t: CaptureTarget, signal?: AbortSignal): Promise<Frame> {
    if (signal?.aborted) throw new CancelledError();
    return this.frames[Math.min(this.calls++, this.frames.length - 1)];
  }
}

describe('stableCapture', () => {
  const target: CaptureTarget = { kind: 'region', rect: { x: 0, y: 0, width: 4, height: 4 }, scale: 1 };
  const a = solidFrame(4, 4, [1, 1, 1]);
  const b = solidFrame(4, 4, [2, 2, 2]);
  const c = solidFrame(4, 4, [3, 3, 3]);
  const imaging = new SharpImaging();

  it('returns once two consecutive frames are identical', async () => {
    const cap = new ScriptedCapture([a, b, c, { ...c, data: Buffer.from(c.data) }]);
    const r = await stableCapture(cap, imaging, target, { intervalMs: 5, timeoutMs: 1000 });
    expect(r.stable).toBe(true);
    expect(cap.calls).toBe(4);
    expect(r.frame.data.equals(c.data)).toBe(true);
  });

  it('gives up with stable:false and the last frame when the screen keeps changing', async () => {
    let n = 0;
    const cap: Capture = {
      describe: async () => 'changing',
      capture: async () => solidFrame(4, 4, [n, n++, 0]),
    };
    const t0 = Date.now();
    const r = await stableCapture(cap, imaging, target, { intervalMs: 10, timeoutMs: 120 });
    expect(r.stable).toBe(false);
    expect(Date.now() - t0).toBeLessThan(400);
    expect(n).toBeGreaterThan(3);
    expect(r.frame.data[0]).toBe(n - 1);
  });

  it('frames of different size never count as stable', async () => {
    const small = solidFrame(2, 8, [1, 1, 1]); // same byte count as a
    const cap = new ScriptedCapture([a, small, a, a]);
    const r = await stableCapture(cap, imaging, target, { intervalMs: 5, timeoutMs: 1000 });
    expect(r.stable).toBe(true);
    expect(cap.calls).toBe(4);
  });

  it('honours the AbortSignal while waiting', async () => {
    const ac = new AbortController();
    const cap = new ScriptedCapture([a, b, c]);
    setTimeout(() => ac.abort(), 30);
    await expect(stableCapture(cap, imaging, target, { intervalMs: 1000, timeoutMs: 5000, signal: ac.signal })).rejects.toBeInstanceOf(CancelledError);
  });
});
