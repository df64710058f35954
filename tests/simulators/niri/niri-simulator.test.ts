import { createConnection } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NiriSimulator } from './niri-simulator.js';

let sim: NiriSimulator;
beforeEach(async () => {
  sim = await NiriSimulator.start();
});
afterEach(async () => {
  await sim.stop();
});

/** Write raw lines on one connection, collect `n` reply lines. */
function exchange(lines: string[], n: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const sock = createConnection(sim.socketPath, () => sock.write(lines.map((l) => `${l}\n`).join('')));
    let buf = '';
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`got only: ${buf}`));
    }, 1000);
    sock.on('data', (d) => {
      buf += d.toString();
      const got = buf.split('\n').filter(Boolean);
      if (got.length >= n) {
        clearTimeout(timer);
        sock.destroy();
        resolve(got.slice(0, n));
      }
    });
  });
}

describe('niri simulator wire behaviour', () => {
  it('answers pipelined requests on one connection in order', async () => {
    const [a, b, c] = await exchange(['"Version"', '"FocusedWindow"', '{"Nope":1}'], 3);
    expect(JSON.parse(a)).toEqual({ Ok: { Version: '26.04 (niri-simulator)' } });
    expect(JSON.parse(b).Ok.FocusedWindow).toMatchObject({ id: 10, is_focused: true, layout: { window_size: [932, 1044] } });
    expect(JSON.parse(c).Err).toMatch(/unknown variant/);
  });

  it('starts an event stream with Handled and the full-state burst, then stops reading requests', async () => {
    const lines = await exchange(['"EventStream"', '"Version"'], 7);
    expect(JSON.parse(lines[0])).toEqual({ Ok: 'Handled' });
    expect(lines.slice(1).map((l) => Object.keys(JSON.parse(l))[0])).toEqual([
      'WorkspacesChanged', 'WindowsChanged', 'KeyboardLayoutsChanged', 'OverviewOpenedOrClosed', 'ConfigLoaded', 'CastsChanged',
    ]);
    expect(sim.requests).toEqual(['EventStream']);
  });

  it('emits niri events for a focus change across outputs', async () => {
    const events: unknown[] = [];
    sim.on('event', (e) => events.push(e));
    const [r] = await exchange(['{"Action":{"FocusWindow":{"id":11}}}'], 1);
    expect(JSON.parse(r)).toEqual({ Ok: 'Handled' });
    expect(events).toEqual([{ WorkspaceActivated: { id: 4, focused: true } }, { WindowFocusChanged: { id: 11 } }]);
  });

  it('gives only floating windows a tile position, as niri does (tiled and fullscreen tiles: null)', async () => {
    const [r] = await exchange(['"Windows"'], 1);
    for (const w of JSON.parse(r).Ok.Windows) {
      expect(w.is_floating).toBe(false);
      expect(w.layout.tile_pos_in_workspace_view).toBeNull();
      expect(w.layout.pos_in_scrolling_layout).toEqual([1, 1]);
    }
    await exchange(['{"Action":{"FullscreenWindow":{"id":10}}}'], 1);
    const [f] = await exchange(['"FocusedWindow"'], 1);
    expect(JSON.parse(f).Ok.FocusedWindow.layout).toMatchObject({ tile_size: [1920, 1080], tile_pos_in_workspace_view: null });
    await exchange(['{"Action":{"ToggleWindowFloating":{"id":11}}}'], 1);
    const [g] = await exchange(['"Windows"'], 1);
    const floating = JSON.parse(g).Ok.Windows.find((w: { id: number }) => w.id === 11);
    // on a hidden workspace or not, a floating tile has its position in its workspace's view
    expect(floating.layout).toMatchObject({ pos_in_scrolling_layout: null, tile_pos_in_workspace_view: [(1706 - 644) / 2, (1066 - 404) / 2] });
  });
});

describe('niri simulator release shapes', () => {
  async function withVersion(version: '25.05' | '25.08' | '25.11', fn: () => Promise<void>): Promise<void> {
    await sim.stop();
    sim = await NiriSimulator.start({ version });
    await fn();
  }

  it('25.05: windows without layout and no WindowLayoutsChanged', () =>
    withVersion('25.05', async () => {
      const [r] = await exchange(['"Windows"'], 1);
      expect(Object.keys(JSON.parse(r).Ok.Windows[0]).sort()).toEqual(['app_id', 'id', 'is_floating', 'is_focused', 'is_urgent', 'pid', 'title', 'workspace_id']);
      const events: Record<string, unknown>[] = [];
      sim.on('event', (e) => events.push(e));
      await exchange(['{"Action":{"ToggleWindowFloating":{"id":10}}}'], 1);
      expect(events.map((e) => Object.keys(e)[0])).not.toContain('WindowLayoutsChanged');
    }));

  it('25.08: layout, but no focus_timestamp, no Casts and no CastsChanged (niri-ipc 25.8 has none)', () =>
    withVersion('25.08', async () => {
      const [v, w, c] = await exchange(['"Version"', '"Windows"', '"Casts"'], 3);
      expect(JSON.parse(v).Ok.Version).toMatch(/^25\.08/);
      const win = JSON.parse(w).Ok.Windows[0];
      expect(win.layout).toBeDefined();
      expect('focus_timestamp' in win).toBe(false);
      expect(JSON.parse(c).Err).toMatch(/unknown variant/);
      const lines = await exchange(['"EventStream"'], 6);
      expect(lines.slice(1).map((l) => Object.keys(JSON.parse(l))[0])).toEqual(['WorkspacesChanged', 'WindowsChanged', 'KeyboardLayoutsChanged', 'OverviewOpenedOrClosed', 'ConfigLoaded']);
    }));

  it('25.11: focus_timestamp', () =>
    withVersion('25.11', async () => {
      const [w] = await exchange(['"Windows"'], 1);
      expect('focus_timestamp' in JSON.parse(w).Ok.Windows[0]).toBe(true);
    }));
});
