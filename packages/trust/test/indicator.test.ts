import { describe, expect, it } from 'vitest';
import { Tokens, type Indicator, type IndicatorAct, type TrustCall } from '@hypruse/core';
import { LABEL_MAX, indicatorLabel, indicatorLayer } from '../src/index.js';
import { fakeCall, fakeNext, run } from './fakes.js';

class RecordingIndicator implements Indicator {
  events: Array<['acting', IndicatorAct] | ['idle']> = [];
  acting(act: IndicatorAct): void {
    this.events.push(['acting', act]);
  }
  idle(): void {
    this.events.push(['idle']);
  }
  async hideForCapture(): Promise<() => void> {
    return () => undefined;
  }
  async probe() {
    return { possible: true, detail: 'test' };
  }
  async dispose(): Promise<void> {}
}

function withIndicator(call: TrustCall, ind: Indicator): TrustCall {
  const inner = call.services;
  return {
    ...call,
    intent: call.intent,
    services: { get: <T,>(t: symbol) => (t === Tokens.Indicator ? (ind as T) : inner.get<T>(t)), has: (t) => t === Tokens.Indicator || inner.has(t) },
  };
}

describe('indicator label', () => {
  it('says what the agent does, never the typed text', () => {
    expect(indicatorLabel('keyboard', { action: 'type', text: 'hunter2' }, { summary: 'type 7 characters', input: 'keyboard', text: 'hunter2' })).toBe('agent · typing');
    expect(indicatorLabel('keyboard', { action: 'key', keys: 'ctrl+s' }, null)).toBe('agent · pressing ctrl+s');
    expect(indicatorLabel('click_ui', { name: 'Save' }, { summary: 'click', input: 'pointer', control: { role: 'push button', name: 'Save' } })).toBe('agent · clicking "Save"');
    expect(indicatorLabel('pointer', { action: 'click', double: true }, null)).toBe('agent · double-clicking');
    expect(indicatorLabel('pointer', { action: 'drag' }, null)).toBe('agent · dragging');
    expect(indicatorLabel('pointer', { action: 'scroll' }, null)).toBe('agent · scrolling');
    expect(indicatorLabel('pointer', { action: 'move' }, null)).toBe('agent · moving the pointer');
    expect(indicatorLabel('launch', { command: '/usr/bin/foot -e top' }, null)).toBe('agent · launching foot');
    expect(indicatorLabel('wm', { action: 'focus' }, { summary: 'focus window 0x55d0c0a0 (foot)', input: 'none' })).toBe('agent · focus window (foot)');
  });

  it('cuts long control names and labels to one line', () => {
    const l = indicatorLabel('click_ui', {}, { summary: '', control: { role: 'button', name: 'x'.repeat(200) } });
    expect(l.length).toBeLessThanOrEqual(LABEL_MAX);
    expect(l).toMatch(/^agent · clicking "x+…"$/);
  });
});

describe('indicator layer', () => {
  it('shows the act with its pointer targets while delivery runs, then starts the fade clock', async () => {
    const ind = new RecordingIndicator();
    const seen: number[] = [];
    const call = withIndicator(fakeCall({ tool: 'pointer', rawArgs: { action: 'click' }, intent: { summary: 'click', input: 'pointer', points: [{ x: 10, y: 20 }] } }), ind);
    const next = fakeNext();
    await run(indicatorLayer, call, async () => {
      seen.push(ind.events.length);
      return next();
    });
    expect(seen).toEqual([1]); // shown before delivery
    expect(ind.events).toEqual([['acting', { label: 'agent · clicking', points: [{ x: 10, y: 20 }] }], ['idle']]);
  });

  it('starts the fade clock when the call fails too, and lets the failure through', async () => {
    const ind = new RecordingIndicator();
    const call = withIndicator(fakeCall({ tool: 'keyboard', rawArgs: { action: 'type' } }), ind);
    await expect(run(indicatorLayer, call, async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(ind.events.map((e) => e[0])).toEqual(['acting', 'idle']);
  });

  it('stays out of observations, dry runs, plans, resume and nested calls of a tool (click_ui keeps its own label)', async () => {
    const ind = new RecordingIndicator();
    const parentUi = fakeCall({ tool: 'click_ui' });
    const parentPlan = fakeCall({ tool: 'sequence' });
    const skipped = [
      fakeCall({ tool: 'screenshot', kind: 'observe' }),
      fakeCall({ tool: 'pointer', dryRun: true }),
      fakeCall({ tool: 'sequence' }),
      fakeCall({ tool: 'resume' }),
      fakeCall({ tool: 'pointer', parent: parentUi }),
    ];
    for (const c of skipped) await run(indicatorLayer, withIndicator(c, ind), fakeNext());
    expect(ind.events).toEqual([]);
    await run(indicatorLayer, withIndicator(fakeCall({ tool: 'keyboard', rawArgs: { action: 'type' }, parent: parentPlan }), ind), fakeNext());
    expect(ind.events[0]).toEqual(['acting', { label: 'agent · typing', points: [] }]);
  });

  it('acts normally without an indicator, and when the intent cannot be resolved', async () => {
    const next = fakeNext();
    await run(indicatorLayer, fakeCall({ tool: 'pointer' }), next);
    const ind = new RecordingIndicator();
    await run(indicatorLayer, withIndicator(fakeCall({ tool: 'pointer', intent: async () => { throw new Error('no window'); } }), ind), next);
    expect(next.calls).toBe(2);
    expect(ind.events).toEqual([]);
  });
});
