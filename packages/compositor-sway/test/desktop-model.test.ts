import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contentGeometry, desktopFromTree, transformNumber, windowClass } from '../src/model/desktop-model.js';
import type { SwayNode } from '../src/model/raw-types.js';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));

// Recorded from a live headless sway 1.7: HEADLESS-1 1280x800 @1, HEADLESS-2 1920x1080 @1.5 at x=1280;
// workspace 7 (HEADLESS-1) has tiled termA|termB; workspace 1 (HEADLESS-2) has tiled termE and floating,
// focused, marked termC; termD sits in the scratchpad.
const tree: SwayNode = fixture('two-outputs.get_tree.json');

describe('desktopFromTree on a recorded two-output sway', () => {
  const d = desktopFromTree(tree, null);

  it('maps outputs to monitors with logical rects, scale, physical mode and focus', () => {
    expect(d.monitors).toEqual([
      { name: 'HEADLESS-1', geometry: { x: 0, y: 0, width: 1280, height: 800 }, scale: 1, transform: 0, focused: false, activeWorkspace: '7', physical: { width: 1280, height: 800 }, description: 'headless headless' },
      { name: 'HEADLESS-2', geometry: { x: 1280, y: 0, width: 1280, height: 720 }, scale: 1.5, transform: 0, focused: true, activeWorkspace: '1', physical: { width: 1920, height: 1080 }, description: 'headless headless' },
    ]);
  });

  it('agrees with GET_OUTPUTS recorded at the same moment', () => {
    const outputs = fixture('two-outputs.get_outputs.json') as Array<{ name: string; rect: unknown; scale: number; focused: boolean; current_workspace: string }>;
    for (const o of outputs) {
      const m = d.monitors.find((x) => x.name === o.name)!;
      expect(m.geometry).toEqual(o.rect);
      expect(m.scale).toBe(o.scale);
      expect(m.focused).toBe(o.focused);
      expect(m.activeWorkspace).toBe(o.current_workspace);
    }
  });

  it('lists workspaces by name with window counts, visibility, focus, and the scratchpad as special', () => {
    expect(d.workspaces).toEqual([
      { id: '7', name: '7', monitor: 'HEADLESS-1', windows: 2, visible: true, focused: false },
      { id: '1', name: '1', monitor: 'HEADLESS-2', windows: 2, visible: true, focused: true },
      { id: '__i3_scratch', name: '__i3_scratch', monitor: null, windows: 1, visible: false, focused: false, special: true },
    ]);
    const ws = fixture('two-outputs.get_workspaces.json') as Array<{ name: string; visible: boolean; focused: boolean; output: string }>;
    for (const w of ws) expect(d.workspaces.find((x) => x.id === w.name)).toMatchObject({ visible: w.visible, focused: w.focused, monitor: w.output });
    expect(d.activeWorkspace).toBe('1');
  });

  it('maps windows: con id address, app_id, title, pid, content geometry, floating, visibility, focus, marks', () => {
    const byClass = Object.fromEntries(d.windows.map((w) => [w.class, w]));
    expect(Object.keys(byClass).sort()).toEqual(['termA', 'termB', 'termC', 'termD', 'termE']);
    expect(byClass.termA).toMatchObject({ address: '7', title: 'Term A', pid: 11949, workspace: '7', floating: false, fullscreen: false, visible: true, focused: false });
    // rect {0,27,640,773} + window_rect {2,0,636,771}
    expect(byClass.termA.geometry).toEqual({ x: 2, y: 27, width: 636, height: 771 });
    expect(byClass.termC).toMatchObject({ address: '9', workspace: '1', floating: true, focused: true, visible: true });
    expect(byClass.termC.geometry).toEqual({ x: 1432, y: 127, width: 700, height: 500 });
    expect(byClass.termC.extra).toMatchObject({ marks: ['hx'], shell: 'xdg_shell' });
    expect(byClass.termD).toMatchObject({ workspace: '__i3_scratch', floating: true, visible: false, hidden: true });
    expect(d.activeWindow).toBe('9');
    expect(d.windows.filter((w) => w.focused)).toHaveLength(1);
  });

  it('cannot read layers or the cursor: layers null, cursor is what hypruse last set', () => {
    expect(d.layers).toBeNull();
    expect(d.cursor).toBeNull();
    expect(desktopFromTree(tree, { x: 5, y: 6, source: 'hypruse' }).cursor).toEqual({ x: 5, y: 6, source: 'hypruse' });
  });
});

describe('desktopFromTree on a recorded fullscreen window', () => {
  const d = desktopFromTree(fixture('fullscreen.get_tree.json'), null);
  it('marks the fullscreen window and hides the one behind it', () => {
    const a = d.windows.find((w) => w.class === 'termA')!;
    const b = d.windows.find((w) => w.class === 'termB')!;
    expect(a.fullscreen).toBe(true);
    expect(a.geometry).toEqual({ x: 0, y: 0, width: 1280, height: 800 });
    expect(b.fullscreen).toBe(false);
    expect(b.visible).toBe(false);
    expect(d.windows.filter((w) => w.fullscreen)).toHaveLength(1);
  });
});

describe('helpers', () => {
  it('maps transform strings to wl_output numbers', () => {
    expect(['normal', '90', '180', '270', 'flipped', 'flipped-90', 'flipped-180', 'flipped-270'].map(transformNumber)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('uses the X11 class for XWayland windows (app_id null)', () => {
    const n = { id: 1, type: 'con', name: 't', rect: { x: 0, y: 0, width: 1, height: 1 }, focused: false, nodes: [], floating_nodes: [], app_id: null, shell: 'xwayland', window_properties: { class: 'Gimp', instance: 'gimp' } } as SwayNode;
    expect(windowClass(n)).toBe('Gimp');
  });

  it('falls back to rect when window_rect is empty', () => {
    const n = { id: 1, type: 'con', name: 't', rect: { x: 3, y: 4, width: 5, height: 6 }, window_rect: { x: 0, y: 0, width: 0, height: 0 }, focused: false, nodes: [], floating_nodes: [] } as SwayNode;
    expect(contentGeometry(n)).toEqual({ x: 3, y: 4, width: 5, height: 6 });
  });

  it('derives the focused output from root focus order when an empty workspace has focus', () => {
    const t = fixture('two-outputs.get_tree.json') as SwayNode;
    const clear = (n: SwayNode) => {
      n.focused = false;
      [...n.nodes, ...n.floating_nodes].forEach(clear);
    };
    clear(t);
    t.focus = [3, 5];
    const d = desktopFromTree(t, null);
    expect(d.monitors.find((m) => m.focused)?.name).toBe('HEADLESS-1');
    expect(d.activeWorkspace).toBe('7');
    expect(d.activeWindow).toBeNull();
  });
});
