import { afterEach, describe, expect, it } from 'vitest';
import {
  GLOW_DEPTH, LABEL_TOP, LayerShellIndicator, RING_HALF, RING_RADIUS, indicatorBlocker, indicatorElements, labelBox, labelSvg, rgbaToShmArgb,
} from '../src/index.js';
import { FakeCompositor } from './input-support/fake-compositor.js';

describe('indicator drawing', () => {
  it('places a ring centred on each target of this monitor, in monitor-local coordinates, and leaves out the others', () => {
    const out = { x: 1280, y: 0, width: 1280, height: 800 };
    const els = indicatorElements(out, { label: 'agent · clicking', points: [{ x: 1380.4, y: 250 }, { x: 100, y: 100 }] });
    expect(els.map((e) => e.key)).toEqual(['glow-top', 'glow-bottom', 'glow-left', 'glow-right', 'ring-0', 'label']);
    const ring = els.find((e) => e.key === 'ring-0')!;
    expect(ring.box).toEqual({ x: 100 - RING_HALF, y: 250 - RING_HALF, width: 2 * RING_HALF, height: 2 * RING_HALF });
    expect(ring.svg(1)).toContain(`<circle cx="${RING_HALF}" cy="${RING_HALF}" r="${RING_RADIUS}"`);
    expect(els.find((e) => e.key === 'glow-right')!.box).toEqual({ x: 1280 - GLOW_DEPTH, y: GLOW_DEPTH, width: GLOW_DEPTH, height: 800 - 2 * GLOW_DEPTH });
  });

  it('keeps a ring near an edge whole inside the monitor', () => {
    const ring = indicatorElements({ x: 0, y: 0, width: 640, height: 400 }, { label: '', points: [{ x: 2, y: 399 }] }).find((e) => e.key === 'ring-0')!;
    expect(ring.box.x).toBe(0);
    expect(ring.box.y + ring.box.height).toBe(400);
  });

  it('renders at the buffer scale in logical units', () => {
    const label = indicatorElements({ x: 0, y: 0, width: 640, height: 400 }, { label: 'agent · typing', points: [] }).find((e) => e.key === 'label')!;
    expect(label.svg(2)).toMatch(new RegExp(`width="${label.box.width * 2}" height="${label.box.height * 2}" viewBox="0 0 ${label.box.width} ${label.box.height}"`));
  });

  it('centres the label pill at the top, inside the glow, sized by its length', () => {
    const a = labelBox(1280, 'agent · typing');
    const b = labelBox(1280, 'agent · typing into a much longer label');
    expect(a.y).toBe(LABEL_TOP);
    expect(Math.abs(a.x + a.width / 2 - 640)).toBeLessThanOrEqual(0.5);
    expect(b.width).toBeGreaterThan(a.width);
    expect(labelBox(100, 'x'.repeat(80)).width).toBe(100 - 2 * GLOW_DEPTH);
  });

  it('escapes markup in labels', () => {
    expect(labelSvg('agent · clicking "<b>&"', 400)).toContain('&quot;&lt;b&gt;&amp;&quot;');
  });

  it('converts straight RGBA to premultiplied ARGB8888 (B, G, R, A in memory), with a fade factor', () => {
    const rgba = Buffer.from([255, 128, 0, 255, 200, 100, 50, 128, 9, 9, 9, 0]);
    expect([...rgbaToShmArgb(rgba)]).toEqual([0, 128, 255, 255, 25, 50, 100, 128, 0, 0, 0, 0]);
    expect([...rgbaToShmArgb(rgba, 0.5).subarray(0, 4)]).toEqual([0, 64, 128, 128]);
  });
});

describe('indicator on a compositor without layer shell', () => {
  let fake: FakeCompositor | null = null;
  afterEach(async () => {
    await fake?.stop();
    fake = null;
  });

  it('says why it is not possible, and neither delays nor breaks acting or capture', async () => {
    fake = new FakeCompositor({ globals: [{ iface: 'wl_compositor', version: 4 }, { iface: 'wl_shm', version: 1 }, { iface: 'zxdg_output_manager_v1', version: 3 }] });
    await fake.start();
    const warnings: string[] = [];
    const ind = new LayerShellIndicator({ env: { WAYLAND_DISPLAY: fake.path }, enabled: true, timeoutMs: 500, logger: { debug() {}, info() {}, warn: (m) => warnings.push(m), error() {} } });
    expect(await ind.probe()).toEqual({ possible: false, detail: 'no zwlr_layer_shell_v1' });
    const t0 = performance.now();
    ind.acting({ label: 'agent · typing', points: [] });
    ind.idle();
    expect(performance.now() - t0).toBeLessThan(50); // returns at once
    const show = await ind.hideForCapture();
    show();
    await fake.until(() => warnings.length > 0);
    expect(warnings[0]).toBe('on-screen indicator not possible: no zwlr_layer_shell_v1');
    // once known impossible, it tries no more
    const conns = fake.connections;
    ind.acting({ label: 'agent · typing', points: [] });
    await new Promise((r) => setTimeout(r, 50));
    expect(fake.connections).toBe(conns);
    await ind.dispose();
  });

  it('names each missing piece', () => {
    const all = new Set(['zwlr_layer_shell_v1', 'wl_compositor', 'wl_shm', 'zxdg_output_manager_v1']);
    expect(indicatorBlocker(all, true)).toBeNull();
    expect(indicatorBlocker(new Set([...all].filter((i) => i !== 'wl_shm')), true)).toBe('no wl_shm');
    expect(indicatorBlocker(all, false)).toMatch(/^wl_shm buffers need file-descriptor passing/);
  });

  it('shows nothing when it is off, and a capture does not wait for it', async () => {
    const ind = new LayerShellIndicator({ env: { WAYLAND_DISPLAY: '/nonexistent/wayland-9' }, enabled: false });
    ind.acting({ label: 'agent · typing', points: [] });
    expect(ind.state.phase).toBe('off');
    const show = await ind.hideForCapture();
    show();
    expect((await ind.probe()).possible).toBe(false);
  });
});

describe('indicator on a compositor that describes no monitor', () => {
  it('draws nothing, and a capture does not wait for it', async () => {
    const fake = new FakeCompositor({
      globals: [{ iface: 'wl_compositor', version: 4 }, { iface: 'wl_shm', version: 1 }, { iface: 'zxdg_output_manager_v1', version: 3 }, { iface: 'zwlr_layer_shell_v1', version: 4 }, { iface: 'wl_output', version: 4 }],
    });
    await fake.start();
    try {
      const warnings: string[] = [];
      const ind = new LayerShellIndicator({ env: { WAYLAND_DISPLAY: fake.path }, enabled: true, timeoutMs: 300, logger: { debug() {}, info() {}, warn: (m) => warnings.push(m), error() {} } });
      ind.acting({ label: 'agent · typing', points: [] });
      const t0 = performance.now();
      const show = await ind.hideForCapture();
      show();
      expect(performance.now() - t0).toBeLessThan(2000);
      await ind.dispose();
    } finally {
      await fake.stop();
    }
  });
});
