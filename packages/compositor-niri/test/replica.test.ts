import { describe, expect, it } from 'vitest';
import { NiriReplica } from '../src/events/niri-replica.js';

const out = { 'DP-1': { name: 'DP-1', logical: { x: 0, y: 0, width: 1000, height: 800, scale: 1, transform: 'Normal' } } };
const ws = (id: number, extra: Record<string, unknown> = {}) => ({ id, idx: id, name: null, output: 'DP-1', is_active: id === 1, is_focused: id === 1, active_window_id: null, ...extra });
const win = (id: number, extra: Record<string, unknown> = {}) => ({
  id, title: `w${id}`, app_id: 'app', pid: 100 + id, workspace_id: 1, is_focused: false, is_floating: false, is_urgent: false,
  layout: { pos_in_scrolling_layout: [1, 1], tile_size: [400, 700], window_size: [396, 696], tile_pos_in_workspace_view: [16, 16], window_offset_in_tile: [2, 2] },
  ...extra,
});

function synced(windows = [win(1, { is_focused: true })]) {
  const r = new NiriReplica();
  r.setOutputs(out);
  r.beginSync();
  const burst = [
    ...r.apply({ WorkspacesChanged: { workspaces: [ws(1), ws(2)] } }),
    ...r.apply({ WindowsChanged: { windows } }),
    ...r.apply({ KeyboardLayoutsChanged: { keyboard_layouts: { names: ['us'], current_idx: 0 } } }),
    ...r.apply({ ConfigLoaded: { failed: false } }),
  ];
  return { r, burst };
}

describe('NiriReplica', () => {
  it('absorbs the initial burst silently and is synced after workspaces and windows', () => {
    const r = new NiriReplica();
    r.beginSync();
    expect(r.synced).toBe(false);
    r.apply({ WorkspacesChanged: { workspaces: [ws(1)] } });
    expect(r.synced).toBe(false);
    const { burst, r: r2 } = synced();
    expect(burst).toEqual([]);
    expect(r2.synced).toBe(true);
    expect(r2.windows.size).toBe(1);
  });

  it('tells a new window from a title change, a move, floating and urgency', () => {
    const { r } = synced();
    expect(r.apply({ WindowOpenedOrChanged: { window: win(2, { workspace_id: 2 }) } })).toEqual([
      { type: 'window_open', address: '2', class: 'app', title: 'w2', workspace: '2', pid: 102 },
    ]);
    expect(r.apply({ WindowOpenedOrChanged: { window: win(2, { workspace_id: 2, title: 'renamed' }) } })).toEqual([
      { type: 'title_change', address: '2', title: 'renamed' },
    ]);
    expect(r.apply({ WindowOpenedOrChanged: { window: win(2, { workspace_id: 1, title: 'renamed' }) } })).toEqual([
      { type: 'window_move', address: '2', workspace: '1' },
    ]);
    expect(r.apply({ WindowOpenedOrChanged: { window: win(2, { title: 'renamed', is_floating: true }) } })).toEqual([
      { type: 'floating', address: '2', floating: true },
    ]);
    expect(r.apply({ WindowUrgencyChanged: { id: 2, urgent: true } })).toEqual([{ type: 'urgent', address: '2' }]);
    expect(r.windows.get(2)!.is_urgent).toBe(true);
  });

  it('tracks focus, closes and workspace activation', () => {
    const { r } = synced([win(1, { is_focused: true }), win(2)]);
    expect(r.apply({ WindowFocusChanged: { id: 2 } })).toEqual([{ type: 'focus', address: '2' }]);
    expect(r.focusedWindowId()).toBe(2);
    expect(r.apply({ WindowFocusChanged: { id: 2 } })).toEqual([]);
    expect(r.apply({ WindowClosed: { id: 2 } })).toEqual([{ type: 'window_close', address: '2' }]);
    expect(r.apply({ WindowClosed: { id: 2 } })).toEqual([]);
    expect(r.apply({ WorkspaceActivated: { id: 2, focused: true } })).toEqual([{ type: 'workspace', name: '2', id: '2', monitor: 'DP-1' }]);
    expect(r.workspaces.get(1)!.is_active).toBe(false);
    expect(r.workspaces.get(2)!.is_focused).toBe(true);
    expect(r.desktop().activeWorkspace).toBe('2');
  });

  it('reports fullscreen from layout changes', () => {
    const { r } = synced();
    const full = { pos_in_scrolling_layout: [1, 1], tile_size: [1000, 800], window_size: [1000, 800], tile_pos_in_workspace_view: [0, 0], window_offset_in_tile: [0, 0] };
    expect(r.apply({ WindowLayoutsChanged: { changes: [[1, full], [99, full]] } })).toEqual([{ type: 'fullscreen', address: '1', fullscreen: true }]);
    expect(r.desktop().windows[0]).toMatchObject({ fullscreen: true, geometry: { x: 0, y: 0, width: 1000, height: 800 } });
  });

  it('after a reconnect, diffs the new burst against what it had (missed opens and closes)', () => {
    const { r } = synced([win(1, { is_focused: true }), win(2)]);
    r.beginSync();
    const events = [
      ...r.apply({ WorkspacesChanged: { workspaces: [ws(1), ws(2)] } }),
      ...r.apply({ WindowsChanged: { windows: [win(1, { is_focused: true, title: 'changed' }), win(3)] } }),
      ...r.apply({ ConfigLoaded: { failed: false } }),
    ];
    expect(events).toEqual([
      { type: 'window_close', address: '2' },
      { type: 'title_change', address: '1', title: 'changed' },
      { type: 'window_open', address: '3', class: 'app', title: 'w3', workspace: '1', pid: 103 },
    ]);
  });

  it('passes unknown and later full-state events through as other, and throws on malformed known ones', () => {
    const { r } = synced();
    expect(r.apply({ SomethingNew: { x: 1 } })).toEqual([{ type: 'other', name: 'SomethingNew', data: { x: 1 } }]);
    expect(r.apply({ ConfigLoaded: { failed: true } })).toEqual([{ type: 'other', name: 'ConfigLoaded', data: { failed: true } }]);
    expect(r.apply({ WindowFocusTimestampChanged: { id: 1, focus_timestamp: null } })).toEqual([]);
    expect(() => r.apply({ WindowClosed: { id: 'x' } })).toThrow(/id/);
    expect(() => r.apply({ WindowOpenedOrChanged: { window: { title: 'no id' } } })).toThrow(/window.id/);
  });
});
