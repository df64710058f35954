import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { asArray, asLayer, asOutputs, asWindow, asWorkspace } from '../src/ipc/shapes.js';
import { layerKind } from '../src/model/layer-kind.js';
import { toDesktop } from '../src/model/to-desktop.js';
import { resolveWorkspace } from '../src/model/workspace-ref.js';

const load = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));

function desktopFrom(fixture: { outputs: unknown; workspaces: unknown; windows: unknown; layers?: unknown }) {
  return toDesktop({
    outputs: asOutputs(fixture.outputs),
    workspaces: asArray(fixture.workspaces, 'workspaces', asWorkspace),
    windows: asArray(fixture.windows, 'windows', asWindow),
    layers: fixture.layers ? asArray(fixture.layers, 'layers', asLayer) : null,
  });
}

describe('niri 26.x state → Desktop', () => {
  const d = desktopFrom(load('niri-26-state.json'));

  it('maps outputs to monitors with logical geometry, scale, transform, current mode; skips disabled outputs', () => {
    expect(d.monitors).toEqual([
      {
        name: 'eDP-1', geometry: { x: 0, y: 0, width: 1920, height: 1200 }, scale: 1.5, transform: 0, focused: true,
        activeWorkspace: '3', physical: { width: 2880, height: 1800 }, description: 'BOE 0x0BCA',
      },
      {
        name: 'DP-2', geometry: { x: 1920, y: -200, width: 1080, height: 1920 }, scale: 1, transform: 1, focused: false,
        activeWorkspace: '4', physical: { width: 1920, height: 1080 }, description: 'Dell Inc. U2720Q',
      },
    ]);
  });

  it('maps workspaces: id, configured name or index, output, counts, visibility, focus', () => {
    expect(d.workspaces.map((w) => [w.id, w.name, w.monitor, w.windows, w.visible, w.focused])).toEqual([
      ['4', '1', 'DP-2', 1, true, false],
      ['3', '1', 'eDP-1', 2, true, true],
      ['7', 'mail', 'eDP-1', 2, false, false],
      ['9', '3', 'eDP-1', 0, false, false],
    ]);
    expect(d.activeWorkspace).toBe('3');
  });

  it('gives a tiled window its size and says its position is unknown (niri reports none for tiled tiles)', () => {
    const w = d.windows.find((x) => x.address === '21')!;
    expect(w).toMatchObject({ class: 'foot', title: 'notes — vim', pid: 4242, workspace: '3', floating: false, fullscreen: false, visible: true, focused: true });
    expect(w.geometry).toMatchObject({ width: 934, height: 1165 });
    expect(w.positionUnknown).toMatch(/tiled windows/);
    expect(w.positionUnknown).toMatch(/tile_pos_in_workspace_view/);
    expect(w.extra).toMatchObject({ geometrySource: 'size-only', column: 1, tile: 1, monitor: 'eDP-1' });
    expect(d.activeWindow).toBe('21');
  });

  it('places floating windows exactly: output origin + tile position + offset in the tile (fractional kept)', () => {
    const w = d.windows.find((x) => x.address === '22')!;
    expect(w).toMatchObject({ floating: true, fullscreen: false, visible: true, geometry: { x: 782.5, y: 340.25, width: 360, height: 520 } });
    expect(w.positionUnknown).toBeUndefined();
    expect(w.extra?.geometrySource).toBe('layout');
    // a floating window on a hidden workspace keeps its position in that workspace's view, and is not visible
    const pip = d.windows.find((x) => x.address === '32')!;
    expect(pip).toMatchObject({ visible: false, geometry: { x: 1502, y: 902, width: 320, height: 180 } });
    expect(pip.positionUnknown).toBeUndefined();
  });

  it('infers fullscreen from a tiled tile covering the whole output, still without a position', () => {
    const w = d.windows.find((x) => x.address === '25')!;
    expect(w).toMatchObject({ fullscreen: true, visible: true, geometry: { width: 1080, height: 1920 } });
    expect(w.positionUnknown).toMatch(/tiled windows/);
  });

  it('a tiled window on a hidden workspace is not visible and has no position', () => {
    const w = d.windows.find((x) => x.address === '30')!;
    expect(w).toMatchObject({ visible: false, urgent: true, geometry: { width: 933, height: 1164 } });
    expect(w.positionUnknown).toMatch(/tiled/);
    expect(w.extra?.geometrySource).toBe('size-only');
    const orphan = d.windows.find((x) => x.address === '31')!;
    expect(orphan).toMatchObject({ workspace: null, class: '', title: '', pid: null, visible: false });
    expect(orphan.positionUnknown).toMatch(/no output/);
  });

  it('classifies layers by namespace and gives them their output box (niri reports no layer geometry)', () => {
    expect(d.layers!.map((l) => [l.namespace, l.kind, l.level, l.keyboardInteractive])).toEqual([
      ['wallpaper', 'background', 'background', false],
      ['waybar', 'bar', 'top', false],
      ['launcher', 'launcher', 'overlay', true],
      ['notifications', 'notification', 'overlay', false],
      ['swaylock', 'lock', 'overlay', true],
      ['wvkbd', 'osk', 'top', false],
      ['some-widget', 'other', 'bottom', true],
    ]);
    expect(d.layers![2].geometry).toEqual({ x: 0, y: 0, width: 1920, height: 1200 });
    expect(d.layers![4].monitor).toBe('DP-2');
  });

  it('has no cursor (niri cannot report it)', () => {
    expect(d.cursor).toBeNull();
    expect(d.compositor).toBe('niri');
  });
});

describe('older niri without window layout', () => {
  it('falls back to the output box and marks the geometry unknown', () => {
    const d = desktopFrom(load('niri-25-01-windows.json'));
    expect(d.windows[0]).toMatchObject({ address: '5', geometry: { x: 0, y: 0, width: 1920, height: 1080 }, visible: true, fullscreen: false });
    expect('urgent' in d.windows[0]).toBe(false);
    expect(d.windows[0].extra?.geometrySource).toBe('unknown');
    expect(d.windows[0].positionUnknown).toMatch(/before 25\.08/);
    expect(d.layers).toBeNull();
  });
});

describe('fullscreen inference', () => {
  it('holds for a tiled window whose tile is the output size even outside the visible view, never for floating ones', () => {
    const fx = load('niri-26-state.json');
    const full = { pos_in_scrolling_layout: [2, 1], tile_size: [1920, 1200], window_size: [1920, 1200], tile_pos_in_workspace_view: null, window_offset_in_tile: [0, 0] };
    fx.windows.push({ id: 40, workspace_id: 7, is_focused: false, is_floating: false, layout: full }, { id: 41, workspace_id: 7, is_focused: false, is_floating: true, layout: full });
    const d = desktopFrom(fx);
    expect(d.windows.find((w) => w.address === '40')).toMatchObject({ fullscreen: true, visible: false, positionUnknown: expect.stringMatching(/tiled/) });
    expect(d.windows.find((w) => w.address === '41')!.fullscreen).toBe(false);
  });
});

describe('shape checks', () => {
  it('rejects a window without a numeric id and a layout that is not an object', () => {
    expect(() => asWindow({ id: '7', is_focused: false })).toThrow(/window.id/);
    expect(() => asWindow({ id: 7, is_focused: false, layout: 'x' })).toThrow(/layout/);
  });
});

describe('layer kinds', () => {
  it('uses the level for unnamed backgrounds and other kinds by namespace', () => {
    expect(layerKind('swaybg', 'background')).toBe('background');
    expect(layerKind('mystery', 'background')).toBe('background');
    expect(layerKind('mystery', 'top')).toBe('other');
    expect(layerKind('rofi', 'overlay')).toBe('launcher');
    expect(layerKind('mako', 'overlay')).toBe('notification');
    expect(layerKind('hyprlock', 'overlay')).toBe('lock');
  });
});

describe('workspace references', () => {
  const wss = asArray(load('niri-26-state.json').workspaces, 'workspaces', asWorkspace);
  it('resolves ids first, then names, then an index on the focused monitor', () => {
    expect(resolveWorkspace('7', wss).reference).toEqual({ Id: 7 });
    expect(resolveWorkspace('mail', wss).reference).toEqual({ Id: 7 });
    expect(resolveWorkspace('2', wss).reference).toEqual({ Id: 7 }); // idx 2 on eDP-1 (focused)
    expect(resolveWorkspace('5', wss).reference).toEqual({ Index: 5 });
  });
  it('refuses unknown names and malformed strings with typed errors', () => {
    expect(() => resolveWorkspace('nope', wss)).toThrow(expect.objectContaining({ code: 'not_found.workspace' }));
    expect(() => resolveWorkspace('a\nb', wss)).toThrow(expect.objectContaining({ code: 'usage.workspace' }));
    expect(() => resolveWorkspace('300', wss)).toThrow(expect.objectContaining({ code: 'usage.workspace' }));
  });
});
