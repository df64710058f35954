// The simulator's 0.57 replies and events held to what a real Hyprland 0.57.0
// (Lua config, in the real-compositor guest) answered: for every JSON request
// the plugin sends, the same keys in the same order with the same value types
// (recursively; arrays by their elements), and for socket2 the same events with
// the same field counts, in the order the real one sends them for the same
// action. Recordings: tests/simulators/recorded/hyprland-0.57/.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeJsonValues } from '@hypruse/compositor-hyprland';
import { HyprlandSimulator } from './index.js';

const dir = join(import.meta.dirname, '../recorded/hyprland-0.57');
const recorded = (name: string) => readFileSync(join(dir, name), 'utf8');

/** The shape of a JSON value: types, object keys in order, arrays by the union of their elements' shapes. */
type Shape = string | { obj: Array<[string, Shape]> } | { arr: Shape | null };
export function shapeOf(v: unknown): Shape {
  if (v === null) return 'null';
  if (Array.isArray(v)) return { arr: v.length ? shapeOf(v[0]) : null };
  if (typeof v === 'object') return { obj: Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, shapeOf(x)] as [string, Shape]) };
  return typeof v;
}

/** Differences between two shapes, as readable paths ("clients[].workspace.type: missing"). */
function diff(real: Shape, sim: Shape, path: string, out: string[]): void {
  if (typeof real === 'string' || typeof sim === 'string') {
    if (JSON.stringify(real) !== JSON.stringify(sim)) out.push(`${path}: real ${typeof real === 'string' ? real : 'arr' in real ? 'array' : 'object'}, simulator ${typeof sim === 'string' ? sim : 'arr' in sim ? 'array' : 'object'}`);
    return;
  }
  if ('arr' in real || 'arr' in sim) {
    if (!('arr' in real && 'arr' in sim)) return void out.push(`${path}: array on one side only`);
    if (real.arr && sim.arr) diff(real.arr, sim.arr, `${path}[]`, out);
    return;
  }
  const rk = real.obj.map(([k]) => k);
  const sk = sim.obj.map(([k]) => k);
  if (rk.join(',') !== sk.join(',')) out.push(`${path}: keys real [${rk.join(', ')}] vs simulator [${sk.join(', ')}]`);
  for (const [k, s] of real.obj) {
    const other = sim.obj.find(([x]) => x === k);
    if (other) diff(s, other[1], `${path}.${k}`, out);
  }
}

const one = (text: string, what: string) => {
  const v = decodeJsonValues(text, what);
  expect(v, what).toHaveLength(1);
  return v[0];
};

async function simulator() {
  const sim = new HyprlandSimulator({ version: 'main', configProvider: 'lua', processes: 'fake' });
  // what the recording had: a foot window focused on workspace 1, another on top
  sim.openWindow({ class: 'foot', title: 'foot' });
  sim.openWindow({ class: 'foot', title: 'foot' });
  return sim;
}

describe('Hyprland simulator 0.57 replies match the recorded real ones', () => {
  it.each(['monitors', 'workspaces', 'clients', 'activewindow', 'cursorpos', 'layers', 'binds', 'version', 'status', 'locked'])(
    'j/%s: same keys, order and types',
    async (q) => {
      const sim = await simulator();
      const real = one(recorded(`j-${q}.txt`), `recorded j/${q}`);
      const mine = one(sim.handle(`j/${q}`), `simulated j/${q}`);
      const out: string[] = [];
      // layers are keyed by monitor name: compare one monitor's value
      const pick = (v: unknown) => (q === 'layers' ? Object.values(v as Record<string, unknown>)[0] : v);
      diff(shapeOf(pick(real)), shapeOf(pick(mine)), q, out);
      expect(out).toEqual([]);
    },
  );

  it('the legacy dispatch grammar fails on 0.57 the way the real one does; the Lua form answers ok', async () => {
    const sim = await simulator();
    expect(sim.handle('dispatch exec foot').trim()).toBe(recorded('hyprctl-dispatch-legacy-exec.txt').trim());
    expect(sim.handle('dispatch hl.dsp.exec_cmd("true")').trim()).toBe(recorded('hyprctl-dispatch-lua-exec.txt').trim());
    // recorded: a focus on a window that does not exist, and keyword on a Lua-only build
    expect(sim.handle('dispatch hl.dsp.focus({ window = "address:0xdead" })')).toBe('warning: =[C]:-1: hl.focus: window not found');
    expect(sim.handle('keyword windowrule match:tag x, border_color rgb(ff5555)')).toBe('unknown request');
  });
});

describe('Hyprland simulator 0.57 events match the recorded socket2 stream', () => {
  const lines = recorded('socket2-events.txt').split('\n').filter(Boolean);
  const fields = new Map<string, Set<number>>();
  for (const l of lines) {
    const [name, data = ''] = l.split('>>');
    if (!fields.has(name)) fields.set(name, new Set());
    fields.get(name)!.add(data === '' ? 0 : data.split(',').length);
  }
  /** Names of the events that followed each `openwindow`'s window, up to the next different action, as recorded. */
  const firstOpen = lines.slice(0, 5).map((l) => l.split('>>')[0]);

  it('opening a window emits the recorded events in the recorded order', async () => {
    const sim = await simulator();
    const from = sim.emitted.length;
    sim.openWindow({ class: 'foot', title: 'foot' });
    const names = sim.emitted.slice(from).map((l) => l.split('>>')[0]);
    expect(firstOpen).toEqual(['windowtitle', 'windowtitlev2', 'openwindow', 'activewindow', 'activewindowv2']);
    expect(names).toEqual(firstOpen);
  });

  it('every event the simulator emits in a scripted scenario exists in the real stream with the same field count', async () => {
    const sim = await simulator();
    const from = sim.emitted.length;
    const w = sim.openWindow({ class: 'foot', title: 'foot' });
    sim.handle(`dispatch hl.dsp.window.move({ workspace = "2", follow = false, window = "address:${w.address}" })`);
    sim.handle(`dispatch hl.dsp.window.move({ workspace = "3", follow = true, window = "address:${w.address}" })`);
    sim.handle(`dispatch hl.dsp.window.float({ action = "toggle", window = "address:${w.address}" })`);
    sim.handle(`dispatch hl.dsp.window.close({ window = "address:${w.address}" })`);
    sim.handle('dispatch hl.dsp.focus({ workspace = "1" })');
    // (fullscreen is not in the recorded stream: its event is held to the sources, C.1.6, not to a recording)
    const bad: string[] = [];
    for (const l of sim.emitted.slice(from)) {
      const [name, data = ''] = l.split('>>');
      const n = data === '' ? 0 : data.split(',').length;
      const real = fields.get(name);
      if (!real) bad.push(`${l}: no such event in the real stream`);
      else if (!real.has(n)) bad.push(`${l}: ${n} fields, real ${[...real].join('/')}`);
    }
    expect(bad).toEqual([]);
  });
});
