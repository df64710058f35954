import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeBatch } from '../src/ipc/batch.js';
import { bindChord, mapBinds } from '../src/model/binds.js';
import { mapLayers } from '../src/model/layers.js';
import { classifyLayer } from '@hypruse/core';
import { SNAPSHOT_QUERIES, fullscreenMode, mapDesktop, mapMonitor, rawSnapshotFromBatch } from '../src/model/map-desktop.js';

const here = dirname(fileURLToPath(import.meta.url));
const fixture = (name: string) => readFileSync(join(here, 'fixtures', name), 'utf8');
const VERSIONS = ['0.50', '0.54', '0.56-hyprlang', 'main-lua'];

describe.each(VERSIONS)('snapshot mapping on Hyprland %s', (version) => {
  const text = fixture(`snapshot-${version}.txt`);
  const desktop = mapDesktop(rawSnapshotFromBatch(decodeBatch(text, SNAPSHOT_QUERIES.map((q) => `j/${q}`))));

  it('gives logical monitor sizes (physical / scale, axes swapped for odd transforms)', () => {
    expect(desktop.monitors.map((m) => [m.name, m.geometry, m.scale, m.transform])).toEqual([
      ['DP-1', { x: 0, y: 0, width: 1920, height: 1080 }, 1, 0],
      // 2880x1620 at 1.5 is 1920x1080 logical; transform 1 (90°) swaps it
      ['HDMI-A-1', { x: 1920, y: 0, width: 1080, height: 1920 }, 1.5, 1],
    ]);
    expect(desktop.monitors[1].physical).toEqual({ width: 2880, height: 1620 });
  });

  it('drops unmapped clients, keeps titles with commas, ignores unknown fields', () => {
    expect(desktop.windows.map((w) => w.class)).toEqual(['foot', 'firefox', 'mpv']);
    const foot = desktop.windows[0];
    expect(foot.title).toBe('vim notes, draft');
    expect(foot.pid).toBe(4101);
    expect(foot.address).toMatch(/^0x[0-9a-f]+$/);
    expect(foot.workspace).toBe('1');
    expect(foot).not.toHaveProperty('futureField');
  });

  it('reads fullscreen as int or bool, floating, visibility and focus', () => {
    const [foot, firefox, mpv] = desktop.windows;
    expect(mpv.fullscreen).toBe(true);
    expect(foot.fullscreen).toBe(false);
    expect(firefox.floating).toBe(true);
    expect(foot.visible).toBe(true);
    expect(firefox.visible).toBe(true); // workspace 2 is shown on HDMI-A-1
    expect(mpv.visible).toBe(false); // workspace 3 is not shown
    expect(desktop.activeWindow).toBe(foot.address);
    expect(foot.focused).toBe(true);
    expect(desktop.activeWorkspace).toBe('1');
    expect(desktop.workspaces.filter((w) => w.visible).map((w) => w.id)).toEqual(['1', '2']);
  });

  it('reads the cursor and classifies layers with levels', () => {
    expect(desktop.cursor).toEqual({ x: 812, y: 433, source: 'compositor' });
    expect(desktop.layers?.map((l) => [l.namespace, l.kind, l.level, l.monitor])).toEqual([
      ['hyprpaper', 'background', 'background', 'DP-1'],
      ['waybar', 'bar', 'top', 'DP-1'],
      ['rofi', 'launcher', 'overlay', 'DP-1'],
      ['notifications', 'notification', 'top', 'HDMI-A-1'],
    ]);
  });
});

describe('version-specific shapes', () => {
  it('0.50 has `pseudo` and no stableId; 0.54+ has stableId', () => {
    expect(fixture('snapshot-0.50.txt')).toContain('"pseudo"');
    expect(fixture('snapshot-0.50.txt')).not.toContain('"stableId"');
    const d = mapDesktop(rawSnapshotFromBatch(decodeBatch(fixture('snapshot-0.54.txt'), SNAPSHOT_QUERIES.map((q) => `j/${q}`))));
    expect(typeof d.windows[0].extra?.stableId).toBe('string');
  });

  it('fullscreen: bool (<0.42) and enum (0 none, 1 maximized, 2 fullscreen, 3 both)', () => {
    expect([true, false, 0, 1, 2, 3, undefined].map(fullscreenMode)).toEqual(['fullscreen', 'none', 'none', 'maximized', 'fullscreen', 'fullscreen', 'none']);
  });

  it('monitor without scale or with transform 3 (270°)', () => {
    expect(mapMonitor({ name: 'X', width: 2560, height: 1600, x: 0, y: 0, scale: 1.6, transform: 3 }).geometry).toEqual({ x: 0, y: 0, width: 1000, height: 1600 });
    expect(mapMonitor({ name: 'Y', width: 1280, height: 800 }).geometry).toEqual({ x: 0, y: 0, width: 1280, height: 800 });
  });

  it('a scale printed with two decimals (<= 0.56.1, `{:.2f}`) gives the exact logical size of the k/120 scale behind it', () => {
    // 2560x1440 at 4/3 prints as 1.33: 1920x1080, not 1925x1083
    const m = mapMonitor({ name: 'DP-2', width: 2560, height: 1440, x: 0, y: 0, scale: 1.33, transform: 0 });
    expect(m.geometry).toEqual({ x: 0, y: 0, width: 1920, height: 1080 });
    expect(m.scale).toBeCloseTo(4 / 3, 9);
    // 5/3 prints as 1.67 (2560x1600 -> 1536x960); 1.07 is 128/120 on 2560x1440 (-> 2400x1350)
    expect(mapMonitor({ name: 'A', width: 2560, height: 1600, scale: 1.67 }).geometry).toMatchObject({ width: 1536, height: 960 });
    expect(mapMonitor({ name: 'B', width: 2560, height: 1440, scale: 1.07 }).geometry).toMatchObject({ width: 2400, height: 1350 });
    // exact prints (0.56.2+) and clean scales pass through
    expect(mapMonitor({ name: 'C', width: 2560, height: 1440, scale: 1.3333333333333333 }).geometry).toMatchObject({ width: 1920, height: 1080 });
    expect(mapMonitor({ name: 'D', width: 2880, height: 1620, scale: 1.5 }).scale).toBe(1.5);
  });

  it("0.55+ `visible` (mapped and not transparent) does not make a window on a hidden workspace visible", () => {
    const mon = { id: 0, name: 'M', width: 1920, height: 1080, x: 0, y: 0, scale: 1, activeWorkspace: { id: 1, name: '1' }, focused: true };
    const client = (address: string, ws: number, visible: boolean) => ({ address, mapped: true, hidden: false, visible, at: [0, 0], size: [100, 100], workspace: { id: ws, name: String(ws) }, class: 'c', title: 't', pid: 1 });
    const d = mapDesktop(rawSnapshotFromBatch([[mon], [], [client('0x1', 1, true), client('0x2', 3, true), client('0x3', 1, false)], {}, null, null]));
    expect(d.windows.map((w) => [w.address, w.visible])).toEqual([['0x1', true], ['0x2', false], ['0x3', false]]);
  });

  it('activewindow {} means no active window; layers missing means null', () => {
    const d = mapDesktop(rawSnapshotFromBatch([[], [], [], {}, { x: 1, y: 2 }, 'not an object']));
    expect(d.activeWindow).toBeNull();
    expect(d.layers).toBeNull();
  });
});

describe('layer classification', () => {
  it('by namespace prefix in order, background by level', () => {
    expect(classifyLayer('wofi', 'top')).toBe('launcher');
    expect(classifyLayer('ags-bar', 'top')).toBe('bar');
    expect(classifyLayer('swaync-control-center', 'overlay')).toBe('notification');
    expect(classifyLayer('hyprlock', 'overlay')).toBe('lock');
    expect(classifyLayer('squeekboard', 'top')).toBe('osk');
    expect(classifyLayer('swww-daemon', 'background')).toBe('background');
    expect(classifyLayer('something', 'background')).toBe('background');
    expect(classifyLayer('something', 'top')).toBe('other');
    expect(mapLayers({ 'DP-1': { levels: { '7': [{ namespace: 'x', x: 1, y: 2, w: 3, h: 4, pid: 0 }] } } })).toEqual([
      { namespace: 'x', kind: 'background', level: 'background', monitor: 'DP-1', geometry: { x: 1, y: 2, width: 3, height: 4 }, pid: null },
    ]);
  });
});

describe('binds', () => {
  it('decodes modmask in SUPER CTRL SHIFT ALT order, drops mouse binds, keeps keycode binds and submaps', () => {
    const binds = mapBinds(JSON.parse(fixture('binds-0.54.json')));
    expect(binds.map((b) => b.combo)).toEqual(['SUPER+Q', 'SUPER+Return', 'SUPER+SHIFT+1', 'SUPER+ALT+F', 'code:191', 'escape']);
    expect(binds[1]).toEqual({ combo: 'SUPER+Return', keys: { kind: 'key', modifiers: ['logo'], key: 'return' }, action: 'exec', arg: 'foot', description: 'Terminal' });
    expect(binds[5].mode).toBe('resize');
    expect(binds.some((b) => b.lua)).toBe(false);
  });

  it('Lua binds recorded from real 0.57 carry the chord that runs them from the virtual keyboard', () => {
    const raw = JSON.parse(readFileSync(join(here, '../../../tests/simulators/recorded/hyprland-0.57/j-binds.txt'), 'utf8'));
    const binds = mapBinds(raw);
    expect(binds.find((b) => b.combo === 'SUPER+Return')).toMatchObject({ lua: true, action: 'lua', chord: 'super+Return' });
    expect(binds.filter((b) => b.lua).every((b) => typeof b.chord === 'string')).toBe(true);
    // single letters as their lowercase keysym; submap, release, mouse and raw-keycode binds have no chord
    expect(bindChord({ modmask: 64, key: 'Q', dispatcher: 'HL.Dispatcher(close)' })).toBe('super+q');
    expect(bindChord({ modmask: 65, key: '2' })).toBe('super+shift+2');
    expect(bindChord({ modmask: 64, key: 'Q', submap: 'resize' })).toBeNull();
    expect(bindChord({ modmask: 64, key: 'Q', release: true })).toBeNull();
    expect(bindChord({ modmask: 64, key: 'code:24' })).toBeNull();
    expect(bindChord({ modmask: 128, key: 'x' })).toBeNull();
  });

  it('flags Lua binds (0.56 `__lua` with a registry index, main `HL.Dispatcher(...)` / `function: 0x...`)', () => {
    for (const file of ['binds-0.56-lua.json', 'binds-main-lua.json']) {
      const binds = mapBinds(JSON.parse(fixture(file)));
      expect(binds.map((b) => b.combo)).toEqual(['SUPER+Q', 'SUPER+Return', 'SUPER+SHIFT+1']);
      expect(binds.every((b) => b.lua === true && b.action === 'lua' && b.arg === '')).toBe(true);
      expect(binds[1].description).toBe('Terminal');
    }
    expect(mapBinds(JSON.parse(fixture('binds-main-lua.json')))[0].description).toBe('Lua dispatcher close');
  });
});

describe('the window handle of hyprland_toplevel_export_manager_v1', () => {
  it('is named by the plugin (the low 32 bits of the address), so the capture backend parses no address', () => {
    const d = mapDesktop({
      monitors: [], workspaces: [], activewindow: {}, cursorpos: null, layers: null,
      clients: [{ address: '0x55a4479a1200', class: 'foot', title: 't', pid: 1, at: [0, 0], size: [10, 10], workspace: { id: 1, name: '1' }, mapped: true }] as never,
    });
    expect(d.windows[0].extra?.exportHandle).toBe(Number(0x4479a1200n & 0xffffffffn) | 0);
  });
});

describe('special workspaces as Hyprland 0.57 lists them (no id; address and type instead)', () => {
  // trimmed from `hyprctl -j clients|workspaces|monitors` on real Hyprland 0.57 after
  // exec_cmd(..., { workspace = "special:hypruse-agent-1 silent" })
  const agent = { address: 'special:hypruse-agent-1', type: 'special', name: 'special:hypruse-agent-1' };
  const raw = {
    monitors: [
      { id: 0, name: 'Virtual-1', width: 1920, height: 1080, x: 0, y: 0, scale: 1, focused: true, activeWorkspace: { address: '1', id: 1, type: 'normal', name: '1' }, specialWorkspace: { address: '', type: '', name: '' } },
    ],
    workspaces: [
      { address: '1', id: 1, type: 'normal', name: '1', monitor: 'Virtual-1', windows: 0 },
      { ...agent, monitor: 'Virtual-1', windows: 1 },
    ],
    clients: [{ address: '0x55addcef4f50', mapped: true, at: [21, 21], size: [1878, 1038], workspace: agent, class: 'hypruse.contract.launch', title: 'probe', pid: 558 }],
    activewindow: {},
    cursorpos: null,
    layers: null,
  };

  it('places the window on the special workspace, listed and not shown', () => {
    const d = mapDesktop(raw as never);
    const w = d.windows.find((x) => x.address === '0x55addcef4f50')!;
    expect(w.workspace).toBe('special:hypruse-agent-1');
    expect(w.visible).toBe(false);
    const ws = d.workspaces.find((x) => x.id === 'special:hypruse-agent-1');
    expect(ws).toMatchObject({ name: 'special:hypruse-agent-1', special: true, visible: false, windows: 1 });
    expect(d.workspaces.map((x) => x.id)).toEqual(['1', 'special:hypruse-agent-1']);
    expect(d.activeWorkspace).toBe('1');
  });

  it('counts a special workspace a monitor shows as visible', () => {
    const shown = { ...raw, monitors: [{ ...raw.monitors[0], specialWorkspace: agent }] };
    const d = mapDesktop(shown as never);
    expect(d.windows[0].visible).toBe(true);
    expect(d.workspaces.find((x) => x.id === 'special:hypruse-agent-1')!.visible).toBe(true);
  });
});
