// The monitor's frame loop keeps (and announces) a frame only when an
// output's pixels changed, and follows outputs coming and going; the journal
// tail passes on appended records exactly as written, across rotation.
import { appendFileSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Capture, CaptureTarget, Frame, Imaging } from '@hypruse/core';
import { FrameLoop, type FrameMeta, type OutputInfo } from '../src/monitor/frames.js';
import { JournalTail } from '../src/monitor/feed.js';

function solid(rgb: number, w = 4, h = 2): Buffer {
  const b = Buffer.alloc(w * h * 4);
  for (let i = 0; i < w * h; i++) b.writeUInt32BE((rgb << 8) | 0xff, i * 4);
  return b;
}

class FakeCapture implements Capture {
  pixels = new Map<string, Buffer>();
  calls = 0;
  async describe() {
    return 'fake';
  }
  async capture(t: CaptureTarget): Promise<Frame> {
    this.calls++;
    if (t.kind !== 'output') throw new Error('outputs only');
    return { data: this.pixels.get(t.name)!, width: 4, height: 2, channels: 4, geometry: t.geometry, scale: t.scale, source: 'output', via: 'fake' };
  }
}

const imaging = {
  encoded: 0,
  async encode(f: Frame) {
    this.encoded++;
    return { data: Buffer.concat([Buffer.from('PNG:'), f.data]), mime: 'image/png' as const, format: 'png' as const, width: f.width, height: f.height, scale: f.scale };
  },
  async raw(f: Frame) {
    return f;
  },
  async crop(f: Frame) {
    return f;
  },
  async drawMarks(f: Frame) {
    return f;
  },
} satisfies Imaging & { encoded: number };

describe('monitor frame loop', () => {
  it('keeps a frame only when the pixels changed, one output at a time', async () => {
    const cap = new FakeCapture();
    const outs: OutputInfo[] = [
      { name: 'A', geometry: { x: 0, y: 0, width: 4, height: 2 }, scale: 1 },
      { name: 'B', geometry: { x: 4, y: 0, width: 4, height: 2 }, scale: 1 },
    ];
    cap.pixels.set('A', solid(0x112233));
    cap.pixels.set('B', solid(0x445566));
    const frames: FrameMeta[] = [];
    const lists: string[][] = [];
    imaging.encoded = 0;
    const loop = new FrameLoop({ capture: cap, imaging, outputs: async () => outs, intervalMs: 10, onFrame: (m) => frames.push(m), onOutputs: (n) => lists.push(n), onError: () => undefined });
    await loop.round();
    expect(frames.map((f) => [f.output, f.version])).toEqual([['A', 1], ['B', 2]]);
    expect(lists).toEqual([['A', 'B']]);
    await loop.round();
    await loop.round();
    expect(frames).toHaveLength(2); // nothing changed: nothing encoded, nothing announced
    expect(imaging.encoded).toBe(2);
    expect(cap.calls).toBe(6);
    cap.pixels.set('B', solid(0x445567));
    await loop.round();
    expect(frames.map((f) => [f.output, f.version])).toEqual([['A', 1], ['B', 2], ['B', 3]]);
    expect(loop.latest('B')!.png.subarray(4).equals(solid(0x445567))).toBe(true);
    expect(loop.latest('A')!.version).toBe(1);
    expect(loop.stats).toMatchObject({ rounds: 4, kept: 3, unchanged: 5 });

    outs.pop();
    await loop.round();
    expect(lists.at(-1)).toEqual(['A']);
    expect(loop.latest('B')).toBeUndefined();
    expect(loop.all().map((f) => f.output)).toEqual(['A']);
  });

  it('captures only between start and stop, and reports a failing desktop once', async () => {
    const cap = new FakeCapture();
    cap.pixels.set('A', solid(1));
    let fail = false;
    const errors: Array<string | null> = [];
    const loop = new FrameLoop({
      capture: cap,
      imaging,
      outputs: async () => {
        if (fail) throw new Error('compositor gone');
        return [{ name: 'A', geometry: { x: 0, y: 0, width: 4, height: 2 }, scale: 1 }];
      },
      intervalMs: 5,
      onFrame: () => undefined,
      onOutputs: () => undefined,
      onError: (m) => errors.push(m),
    });
    const until = async (f: () => boolean) => {
      for (let i = 0; i < 1000 && !f(); i++) await new Promise((r) => setTimeout(r, 5));
      expect(f()).toBe(true);
    };
    loop.start();
    await until(() => cap.calls > 2);
    fail = true;
    await until(() => errors.length === 1);
    await new Promise((r) => setTimeout(r, 30)); // more failing rounds: still one report
    fail = false;
    await until(() => errors.length === 2);
    await loop.stop();
    const calls = cap.calls;
    expect(calls).toBeGreaterThan(2);
    expect(errors[0]).toMatch(/compositor gone/);
    expect(errors.filter((e) => e !== null)).toHaveLength(1);
    expect(errors.at(-1)).toBeNull();
    await new Promise((r) => setTimeout(r, 40));
    expect(cap.calls).toBe(calls);
  });
});

describe('monitor journal tail', () => {
  const rec = (seq: number, extra: Record<string, unknown> = {}) => `${JSON.stringify({ v: 1, seq, ts: '2026-12-01T00:00:00.000Z', kind: 'act', tool: 'keyboard', outcome: 'ok', ...extra })}\n`;

  it('starts from the end of the journal, passes on appended records as written, across a torn line and rotation', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hypruse-monitor-tail-'));
    const path = join(dir, 'journal.ndjson');
    writeFileSync(path, rec(1) + rec(2, { args: { text: { len: 5, sha256: 'ab12' } } }));
    const got: number[] = [];
    const seen: Array<Record<string, unknown>> = [];
    const tail = new JournalTail({ path, pollMs: 100000, onRecords: (rs) => rs.forEach((r) => (got.push(r.seq), seen.push(r as unknown as Record<string, unknown>))) });
    await tail.start();
    try {
      expect(tail.backlog().map((r) => r.seq)).toEqual([1, 2]);
      expect(tail.backlog()[1].args).toEqual({ text: { len: 5, sha256: 'ab12' } });
      const line = rec(3, { outcome: 'refused', code: 'refused.stopped', error: 'TrustError: stopped — «ü»' });
      const bytes = Buffer.from(line);
      // a record written in two pieces, the cut inside a multi-byte character
      const cut = bytes.indexOf(Buffer.from('ü')) + 1;
      appendFileSync(path, bytes.subarray(0, cut));
      await tail.poll();
      expect(got).toEqual([]);
      appendFileSync(path, bytes.subarray(cut));
      await tail.poll();
      expect(got).toEqual([3]);
      expect(seen[0].error).toBe('TrustError: stopped — «ü»');
      renameSync(path, `${path}.1`);
      writeFileSync(path, rec(4));
      await tail.poll();
      expect(got).toEqual([3, 4]);
      expect(tail.backlog().map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    } finally {
      tail.stop();
    }
  });

  it('waits for a journal that does not exist yet', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hypruse-monitor-tail-'));
    const path = join(dir, 'journal.ndjson');
    const got: number[] = [];
    const tail = new JournalTail({ path, pollMs: 100000, onRecords: (rs) => rs.forEach((r) => got.push(r.seq)) });
    await tail.start();
    try {
      await tail.poll();
      writeFileSync(path, rec(7));
      await tail.poll();
      expect(got).toEqual([7]);
    } finally {
      tail.stop();
    }
  });
});
