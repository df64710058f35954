// launch answers with a settled window: the fake compositor lists the new window at one place,
// then moves it (as sway adds a title bar 120-190 ms after mapping); launch reports, and remembers
// as observed, where it ended up, not where it first appeared.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Compositor } from '@hypruse/core';
import { fakeSession, type FakeSession } from '../support/fake-session.js';

process.env.XDG_RUNTIME_DIR ??= mkdtempSync(join(tmpdir(), 'hypruse-launch-'));

let session: FakeSession | null = null;
afterEach(async () => {
  await session?.dispose();
  session = null;
});

function launchOpensMoving(s: FakeSession, moves: Array<{ afterMs: number; y: number }>): { movedAt: number[] } {
  const comp = s.fake.compositor;
  const seen = { movedAt: [] as number[] };
  (comp as { launch: Compositor['launch'] }).launch = async () => {
    const w = { address: '33', class: 'gtk3-widget-factory', title: 'gtk3-widget-factory', pid: 300, geometry: { x: 0, y: 0, width: 1280, height: 800 }, workspace: '1', floating: false, fullscreen: false, visible: true, focused: true };
    comp.desktop.windows.push(w);
    for (const m of moves) setTimeout(() => { w.geometry = { ...w.geometry, y: m.y, height: 800 - m.y }; seen.movedAt.push(Date.now()); }, m.afterMs);
    return { pid: 300, window: structuredClone(w) };
  };
  return seen;
}

describe('launch waits for the window to settle', () => {
  it('reports the position after the move, not the first one', async () => {
    session = await fakeSession();
    // the move comes at launch's first look after the window appeared (not on a timer, which a loaded machine
    // can fire after launch has answered)
    const seen = launchOpensMoving(session, []);
    const comp = session.fake.compositor;
    const snapshot = comp.snapshot.bind(comp);
    comp.snapshot = async () => {
      const w = comp.desktop.windows.find((x) => x.address === '33');
      if (w && seen.movedAt.length === 0) {
        w.geometry = { ...w.geometry, y: 27, height: 773 };
        seen.movedAt.push(Date.now());
      }
      return snapshot();
    };
    const r = await session.pipeline.call('launch', { command: 'gtk3-widget-factory' });
    const answered = Date.now();
    expect(r.data!).toMatchObject({ address: '33', at: [0, 27], size: [1280, 773] });
    expect(r.data!.note).toBeUndefined();
    // the quiet period (250 ms) ran after the move, measured from when the move really happened (a loaded
    // machine fires the fake's timer late, and launch may first see the window already moved)
    expect(seen.movedAt).toHaveLength(1);
    expect(answered - seen.movedAt[0]!).toBeGreaterThanOrEqual(250 - 2);
    expect(session.state.observed.get('33')).toEqual({ x: 0, y: 27, width: 1280, height: 773 });
  });

  it('a window that keeps moving is answered at the cap, with a note saying so', async () => {
    session = await fakeSession();
    // it moves between every two looks (not on a timer: a loaded machine can hold timers back past the quiet period)
    launchOpensMoving(session, []);
    const comp = session.fake.compositor;
    const snapshot = comp.snapshot.bind(comp);
    let looks = 0;
    comp.snapshot = async () => {
      const w = comp.desktop.windows.find((x) => x.address === '33');
      if (w) w.geometry = { ...w.geometry, y: looks++ % 2 ? 10 : 20 };
      return snapshot();
    };
    const r = await session.pipeline.call('launch', { command: 'restless' });
    expect(String(r.data!.note)).toMatch(/^the window was still moving after \d+(\.\d)?s; read its points again before acting$/);
  });
});
