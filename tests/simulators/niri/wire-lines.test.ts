// The lines tests/niri-ipc-check feeds to niri's own types: the scenario must
// cover every request the plugin sends and every event the simulator emits,
// and carry state checkpoints (the type check itself runs in a Debian sid
// rootfs: tests/niri-ipc-check/check.sh).
import { scaledMs } from '@hypruse/core';
import { describe, expect, it } from 'vitest';
import { produce } from '../../niri-ipc-check/produce.js';

describe('niri-ipc-check wire lines', () => {
  it('cover every request kind of the plugin, the simulator events, state checkpoints and the state fixture', async () => {
    const lines = await produce('25.08');
    const labels = new Set(lines.map((l) => `${l.kind} ${l.label}`));
    for (const r of ['Version', 'Outputs', 'Workspaces', 'Windows', 'Layers', 'FocusedWindow', 'EventStream', 'Action FocusWindow', 'Action FocusWorkspace', 'Action MoveWindowToWorkspace', 'Action ToggleWindowFloating', 'Action FullscreenWindow', 'Action CloseWindow']) {
      expect(labels, r).toContain(`request plugin ${r}`);
    }
    const plugin = lines.filter((l) => l.label.startsWith('plugin '));
    expect(plugin.some((l) => l.json.includes('"Index":'))).toBe(true);
    expect(plugin.some((l) => l.json.includes('"focus":false'))).toBe(true);
    const events = new Set(lines.filter((l) => l.kind === 'event').map((l) => Object.keys(JSON.parse(l.json))[0]));
    for (const e of ['WorkspacesChanged', 'WindowsChanged', 'KeyboardLayoutsChanged', 'OverviewOpenedOrClosed', 'ConfigLoaded', 'WorkspaceActivated', 'WorkspaceActiveWindowChanged', 'WindowOpenedOrChanged', 'WindowClosed', 'WindowFocusChanged', 'WindowUrgencyChanged', 'WindowLayoutsChanged']) {
      expect(events, e).toContain(e);
    }
    expect(events.has('CastsChanged')).toBe(false); // not in niri-ipc 25.8
    expect(lines.filter((l) => l.kind === 'state').length).toBe(4);
    expect(lines.filter((l) => l.label.startsWith('fixture ')).length).toBe(4);
    // no request that is not niri's (the simulator-only SimClient) is offered to niri's types
    expect(lines.some((l) => l.kind === 'request' && l.json.includes('SimClient'))).toBe(false);
    // every tiled window the simulator reports has no tile position, as in niri
    for (const l of lines.filter((x) => x.kind === 'reply' && x.json.includes('"Windows"') && !x.label.startsWith('fixture'))) {
      for (const w of JSON.parse(l.json).Ok.Windows) expect(w.is_floating || w.layout.tile_pos_in_workspace_view === null).toBe(true);
    }
  }, scaledMs(30000));
});
