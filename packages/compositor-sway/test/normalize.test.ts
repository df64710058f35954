import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { normalizeSwayEvent } from '../src/events/normalize.js';
import { EventQueue } from '@hypruse/core';
import type { SwayEventName } from '../src/ipc/message-types.js';
import { HypruseError } from '@hypruse/core';

// Recorded from a live sway 1.7 while a foot window (app_id evtest) was opened, toggled
// fullscreen and floating, marked, moved to workspace 5, made urgent and killed.
const recorded = JSON.parse(readFileSync(new URL('./fixtures/events.json', import.meta.url), 'utf8')) as Array<{ event: SwayEventName; payload: unknown }>;

describe('normalizeSwayEvent on recorded events', () => {
  const events = recorded.flatMap((r) => normalizeSwayEvent(r.event, r.payload));
  const addr = String((recorded[0].payload as { container: { id: number } }).container.id);

  it('maps the lifecycle of one window in order', () => {
    const own = events.filter((e) => 'address' in e && e.address === addr).map((e) => e.type);
    expect(own).toEqual(['window_open', 'title_change', 'focus', 'fullscreen', 'fullscreen', 'floating', 'floating', 'window_move', 'focus', 'urgent', 'window_close']);
  });

  it('carries class, title and pid on window_open', () => {
    const open = events[0];
    expect(open).toMatchObject({ type: 'window_open', address: addr, class: 'evtest' });
    expect(open.type === 'window_open' && typeof open.pid).toBe('number');
  });

  it('reports fullscreen and floating state from the container', () => {
    expect(events.filter((e) => e.type === 'fullscreen').map((e) => e.type === 'fullscreen' && e.fullscreen)).toEqual([true, false]);
    expect(events.filter((e) => e.type === 'floating').map((e) => e.type === 'floating' && e.floating)).toEqual([true, false]);
  });

  it('maps workspace focus to workspace events with name and output; other changes to other', () => {
    const ws = events.filter((e) => e.type === 'workspace');
    expect(ws.map((e) => e.type === 'workspace' && e.name)).toEqual(['5', '1']);
    expect(ws[0]).toMatchObject({ id: '5', monitor: expect.any(String) });
    expect(events.filter((e) => e.type === 'other').map((e) => e.type === 'other' && e.name)).toEqual(['window_mark', 'workspace_init', 'workspace_urgent', 'workspace_empty']);
  });
});

describe('normalizeSwayEvent on documented payloads (sway-ipc(7))', () => {
  it('binding: command and combo from modifiers and symbol or keycode', () => {
    expect(normalizeSwayEvent('binding', { change: 'run', binding: { command: 'exec foot', event_state_mask: ['Mod4'], input_code: 0, symbol: 'Return', input_type: 'keyboard' } }))
      .toEqual([{ type: 'binding', command: 'exec foot', combo: 'Mod4+Return' }]);
    expect(normalizeSwayEvent('binding', { change: 'run', binding: { command: 'workspace 7', event_state_mask: [], input_code: 38, symbol: null, input_type: 'keyboard' } }))
      .toEqual([{ type: 'binding', command: 'workspace 7', combo: 'code:38' }]);
  });

  it('shutdown and output', () => {
    expect(normalizeSwayEvent('shutdown', { change: 'exit' })).toEqual([{ type: 'shutdown' }]);
    expect(normalizeSwayEvent('output', { change: 'unspecified' })).toEqual([{ type: 'monitor', name: '*', change: 'changed' }]);
  });
});

describe('EventQueue', () => {
  it('buffers, hands events to waiters, times out with null and throws once failed', async () => {
    let closed = 0;
    const q = new EventQueue(() => closed++);
    q.push({ type: 'shutdown' });
    expect(await q.next(10)).toEqual({ type: 'shutdown' });
    const t0 = Date.now();
    expect(await q.next(30)).toBeNull();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(25);
    const waiting = q.next(1000);
    q.push({ type: 'focus', address: '3' });
    expect(await waiting).toEqual({ type: 'focus', address: '3' });
    const ac = new AbortController();
    const aborted = q.next(1000, ac.signal);
    ac.abort();
    expect(await aborted).toBeNull();
    const dying = q.next(1000);
    q.fail(new HypruseError('error.events', 'gone'));
    await expect(dying).rejects.toMatchObject({ code: 'error.events' });
    await expect(q.next(10)).rejects.toMatchObject({ code: 'error.events' });
    q.close();
    expect(closed).toBe(1);
  });
});
