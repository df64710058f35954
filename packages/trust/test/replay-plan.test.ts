import { describe, expect, it } from 'vitest';
import { defaultConfig } from '@hypruse/core';
import { digestText, paceMs, planReplay, type JournalRecord } from '../src/index.js';

const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const act = (seq: number, s: number, tool: string, args: Record<string, unknown>, extra: Partial<JournalRecord> = {}): JournalRecord => ({
  v: 1, seq, ts: t(s), kind: 'act', tool, args, outcome: 'ok', ms: 5, result: 'ok', ...extra,
});
const config = defaultConfig();
const live = new Set(['0xa']);

describe('replay plan', () => {
  it('replays ok actions in seq order with recorded gaps; skips observations, refusals, dry runs, replays and nested parts', () => {
    const records: JournalRecord[] = [
      act(3, 12, 'keyboard', { action: 'type', text: 'hi', window: '0xa', confirm: true, allow_auth: true }),
      { v: 1, seq: 1, ts: t(0), kind: 'session', event: 'start' },
      act(2, 10, 'pointer', { action: 'click', x: 1, y: 2 }),
      { v: 1, seq: 4, ts: t(13), kind: 'observe', tool: 'desktop', args: {}, outcome: 'ok', ms: 3 },
      act(5, 14, 'pointer', { action: 'click' }, { outcome: 'refused', error: 'TrustError: x' }),
      act(6, 15, 'pointer', { action: 'click' }, { dry: true }),
      act(7, 16, 'pointer', { action: 'click' }, { by: 'replay' }),
      act(8, 17, 'click_ui', { name: 'OK' }),
      act(9, 17, 'pointer', { action: 'click', x: 3, y: 3 }, { parent: 8 }),
      act(11, 20, 'keyboard', { action: 'key', keys: 'Return' }, { parent: 10 }),
      act(10, 20, 'sequence', { steps: [] }),
    ];
    const plan = planReplay(records, { config, liveWindows: live });
    expect(plan.problems).toEqual([]);
    expect(plan.steps.map((s) => [s.record.seq, s.tool, s.gapMs])).toEqual([
      [2, 'pointer', 0], [3, 'keyboard', 2000], [8, 'click_ui', 5000], [11, 'keyboard', 3000],
    ]);
    expect(plan.steps[1].args).toEqual({ action: 'type', text: 'hi', window: '0xa' }); // confirm/allow_auth are never replayed
    expect(Object.fromEntries(plan.skipped.map((s) => [s.seq, s.reason]))).toMatchObject({
      5: 'it was refused', 6: 'it was a dry run', 7: 'it was itself a replay', 9: expect.stringMatching(/inside click_ui #8/), 10: expect.stringMatching(/through its steps/),
    });
  });

  it('refuses up front: digest text, mark clicks, clipboard writes without the clipboard, newer records, read-only, dry run', () => {
    const records = [
      act(1, 0, 'keyboard', { action: 'type', text: digestText('secret') }),
      act(2, 1, 'click_ui', { mark: 4 }),
      act(3, 2, 'clipboard', { action: 'write', text: 'x' }),
      { ...act(4, 3, 'pointer', { action: 'click' }), v: 2 },
    ];
    const reasons = planReplay(records, { config: { ...config, readonly: true, dryRun: true }, liveWindows: live }).problems.map((p) => `${p.seq}: ${p.reason}`);
    expect(reasons).toEqual([
      expect.stringMatching(/^null: read-only/),
      expect.stringMatching(/^null: dry-run/),
      expect.stringMatching(/^1: keyboard typed text that was recorded as a digest/),
      expect.stringMatching(/^2: click_ui clicked mark 4/),
      expect.stringMatching(/^3: a clipboard write needs/),
      expect.stringMatching(/^4: written by a newer hypruse/),
    ]);
  });

  it('a recorded window that is gone refuses, or is skipped with --skip-missing; --from/--to select by seq', () => {
    const records = [act(1, 0, 'keyboard', { action: 'key', keys: 'a', window: '0xdead' }), act(2, 1, 'pointer', { action: 'click' }), act(3, 2, 'pointer', { action: 'click' })];
    expect(planReplay(records, { config, liveWindows: live }).problems[0].reason).toMatch(/0xdead no longer exists/);
    const skip = planReplay(records, { config, liveWindows: live, skipMissing: true });
    expect(skip.problems).toEqual([]);
    expect(skip.steps.map((s) => s.record.seq)).toEqual([2, 3]);
    expect(planReplay(records, { config, liveWindows: live, from: 2, to: 2 }).steps.map((s) => s.record.seq)).toEqual([2]);
    // unknown desktop: windows not checked (plan-only without a compositor)
    expect(planReplay(records, { config, liveWindows: null }).steps).toHaveLength(3);
  });

  it('refuses tools this hypruse does not have', () => {
    expect(planReplay([act(1, 0, 'pointer', {})], { config, liveWindows: null, knownTools: new Set(['keyboard']) }).problems[0].reason).toMatch(/not a tool/);
  });

  it('paces by the recorded gap, capped by --max-gap, divided by --speed', () => {
    expect(paceMs(4000, 1, 5)).toBe(4000);
    expect(paceMs(60000, 1, 5)).toBe(5000);
    expect(paceMs(4000, 2, 5)).toBe(2000);
    expect(paceMs(4000, 1, 0)).toBe(0);
  });
});
