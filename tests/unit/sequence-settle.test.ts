import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeSession, type FakeSession } from '../support/fake-session.js';

process.env.XDG_RUNTIME_DIR ??= mkdtempSync(join(tmpdir(), 'hypruse-seq-'));

let session: FakeSession | null = null;
afterEach(async () => {
  await session?.dispose();
  session = null;
});

const moves = (n: number) => Array.from({ length: n }, (_, k) => ({ op: 'pointer', action: 'move', x: 110 + k, y: 120 }));

/** Make the fake compositor emit `event` `delayMs` after the cursor reaches x. */
function openWindowAfterMove(s: FakeSession, x: number, delayMs: number) {
  const comp = s.fake.compositor;
  const move = comp.moveCursor.bind(comp);
  comp.moveCursor = async (p) => {
    await move(p);
    if (p.x === x) setTimeout(() => comp.emit({ type: 'window_open', address: '99', class: 'intruder' }), delayMs);
  };
}

describe('sequence settle: a compositor round trip, then a quiet period', () => {
  it('runs every step and looks at the compositor after each one', async () => {
    session = await fakeSession();
    const comp = session.fake.compositor;
    let snapshots = 0;
    const snap = comp.snapshot.bind(comp);
    comp.snapshot = async () => {
      snapshots++;
      return snap();
    };
    const r = await session.pipeline.call('sequence', { steps: moves(5), then: 'none' });
    expect(r.text[0]).toBe('sequence: all 5/5 steps ran');
    expect(session.fake.compositor.actions.filter((a) => a.startsWith('cursor '))).toHaveLength(5);
    // one round trip after each of the 5 steps (the settle), besides what guards and tools read
    expect(snapshots).toBeGreaterThanOrEqual(5);
  });

  it('stops on a window that opens during a step', async () => {
    session = await fakeSession();
    openWindowAfterMove(session, 111, 0);
    await expect(session.pipeline.call('sequence', { steps: moves(5), then: 'none' })).rejects.toThrow(/stopped after 2\/5 steps, desktop changed \(window_open 99\) before step 3/);
    expect(session.fake.compositor.actions.filter((a) => a.startsWith('cursor '))).toHaveLength(2);
  });

  it('stops on a window that opens within the quiet period after a step', async () => {
    session = await fakeSession({ sequence: { maxSteps: 30, maxSeconds: 60, quietMs: 150 } });
    openWindowAfterMove(session, 111, 60);
    await expect(session.pipeline.call('sequence', { steps: moves(5), then: 'none' })).rejects.toThrow(/stopped after 2\/5 steps, desktop changed \(window_open 99\) before step 3/);
  });
});
