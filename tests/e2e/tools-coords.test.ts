// The coordinate contract through the MCP tools on a scale-1 and a scale-1.5
// monitor side by side: `ui` points, `screenshot` geometry/scale, `zoom`
// boxes. Every effect is verified outside the tool's own answer: sway says
// where a window landed, a fresh AT-SPI read says whether a check box
// toggled, the PNG pixels (decoded with sharp) show the indicator change and
// grim's own capture shows what a zoom box must contain.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchFixture, requireDesktop, swayNodes, type LaunchedFixture } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';
import { settled, slowA11yConfig, ui, type El, type Meta } from '../support/tools.js';


const desk = await requireDesktop();

const MONITORS = [
  { output: 'HEADLESS-1', workspace: '1', geometry: [0, 0, 1280, 800], scale: 1, image: [1280, 800] },
  { output: 'HEADLESS-2', workspace: '2', geometry: [1280, 0, 1280, 720], scale: 1.5, image: [1920, 1080] },
] as const;

/** The check box at exactly (x, y) in a fresh read. */
async function checkBoxAt(server: Server, window: string, x: number, y: number): Promise<El> {
  const el = (await ui(server, window)).find((e) => e.role === 'check box' && e.x === x && e.y === y);
  if (!el) throw new Error(`no check box at ${x},${y} any more`);
  return el;
}

/**
 * AT-SPI reports a new state before GTK has repainted it (the frame clock
 * runs after the signal, later still on a loaded machine): give the app a
 * few frames before looking at pixels.
 */
const settle = () => new Promise((r) => setTimeout(r, 500));

/** RGB pixels of an image file (sharp, lazily imported like the product does). */
async function pixels(path: string): Promise<{ data: Buffer; width: number; height: number; channels: number }> {
  const sharp = (await import('sharp')).default;
  const { data, info } = await sharp(path).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/** Pixels of two same-sized images that differ (any channel by more than `tol`) inside the box [x0,x1)x[y0,y1). */
function diffCount(a: Awaited<ReturnType<typeof pixels>>, b: Awaited<ReturnType<typeof pixels>>, box: [number, number, number, number], tol = 8): number {
  const [x0, y0, x1, y1] = box.map((v) => Math.round(v));
  let n = 0;
  for (let y = Math.max(0, y0); y < Math.min(a.height, y1); y++) {
    for (let x = Math.max(0, x0); x < Math.min(a.width, x1); x++) {
      const i = (y * a.width + x) * a.channels;
      if (Math.abs(a.data[i] - b.data[i]) > tol || Math.abs(a.data[i + 1] - b.data[i + 1]) > tol || Math.abs(a.data[i + 2] - b.data[i + 2]) > tol) n++;
    }
  }
  return n;
}

/** A whole output at native resolution straight from grim (PNG), independent of the product's capture path. */
function grimOutput(output: string, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('grim', ['-t', 'png', '-o', output, file], { env: { ...process.env, ...desk!.env }, timeout: 10000 }, (err) => (err ? reject(err) : resolve()));
  });
}

describe.skipIf(!desk)('coordinates on a scale-1 and a scale-1.5 monitor (ui, pointer, screenshot, zoom)', () => {
  let server: Server;
  const apps = new Map<string, { app: LaunchedFixture; address: string }>();

  beforeAll(async () => {
    server = await startServer(desk!.env, { HYPRUSE_CONFIG: slowA11yConfig(), HYPRUSE_INDICATOR: '0' });
    for (const m of MONITORS) {
      const app = await launchFixture('widget-factory', { workspace: m.workspace });
      const node = (await swayNodes()).find((n) => n.pid === app.pid && n.type === 'con');
      if (!node) throw new Error(`widget-factory ${app.pid} is not in sway's tree`);
      apps.set(m.output, { app, address: String(node.id) });
    }
    // a new widget-factory re-lays itself out for a moment after mapping: wait until two reads agree
    for (const { address } of apps.values()) await settled(server, address);
  }, 90000);

  afterAll(async () => {
    await server?.close();
  });

  for (const m of MONITORS) {
    describe(`${m.output} (scale ${m.scale})`, () => {
      it('widget-factory landed on this output (sway says so)', async () => {
        const { app } = apps.get(m.output)!;
        const node = (await swayNodes()).find((n) => n.pid === app.pid && n.type === 'con')!;
        expect(node.output).toBe(m.output);
        expect(node.workspace).toBe(m.workspace);
      });

      it('ui lists buttons, entries, sliders with value and percent, check boxes with checked, all inside the window', async () => {
        const { app, address } = apps.get(m.output)!;
        const els = await ui(server, address);
        const node = (await swayNodes()).find((n) => n.pid === app.pid && n.type === 'con')!;
        const r = node.rect;
        for (const e of els) {
          expect(e.x, `${e.role} '${e.name}' x`).toBeGreaterThanOrEqual(r.x);
          expect(e.x, `${e.role} '${e.name}' x`).toBeLessThan(r.x + r.width);
          expect(e.y, `${e.role} '${e.name}' y`).toBeGreaterThanOrEqual(r.y);
          expect(e.y, `${e.role} '${e.name}' y`).toBeLessThan(r.y + r.height);
        }
        expect(els.some((e) => e.role === 'push button' && e.name !== '')).toBe(true);
        expect(els.some((e) => e.role === 'toggle button' && e.name === 'togglebutton' && typeof e.checked === 'boolean')).toBe(true);
        const entries = els.filter((e) => e.role === 'text' && typeof e.value === 'string');
        expect(entries.map((e) => e.value)).toContain('entry');
        const sliders = els.filter((e) => e.role === 'slider');
        expect(sliders.length).toBeGreaterThanOrEqual(3);
        for (const s of sliders) {
          expect(typeof s.value).toBe('number');
          expect(s.percent).toBeGreaterThanOrEqual(0);
          expect(s.percent).toBeLessThanOrEqual(100);
        }
        // gtk3-widget-factory's horizontal scales start at 50 of 0..100
        expect(sliders.some((s) => s.value === 50 && Math.abs(s.percent! - 50) <= 1)).toBe(true);
        const boxes = els.filter((e) => e.role === 'check box');
        expect(boxes.length).toBeGreaterThanOrEqual(3);
        expect(boxes.every((b) => typeof b.checked === 'boolean')).toBe(true);
        expect(boxes.some((b) => b.checked) && boxes.some((b) => !b.checked)).toBe(true);
      }, 60000);

      it('pointer click at a check box point from ui toggles exactly that check box (fresh AT-SPI read)', async () => {
        const { address } = apps.get(m.output)!;
        const before = await ui(server, address);
        const box = before.find((e) => e.role === 'check box' && e.clickable)!;
        expect(box).toBeTruthy();
        const c = await server.call('pointer', { action: 'click', x: box.x, y: box.y });
        expect(c.isError, c.text.join('\n')).toBe(false);
        expect(c.text[0]).toBe(`click ok; cursor now at (${box.x}, ${box.y})`);
        const after = await ui(server, address);
        const now = after.find((e) => e.role === 'check box' && e.x === box.x && e.y === box.y)!;
        expect(now.checked).toBe(!box.checked);
        // nothing else flipped
        const othersBefore = before.filter((e) => e.role === 'check box' && e !== box).map((e) => `${e.x},${e.y}=${e.checked}`);
        const othersAfter = after.filter((e) => e.role === 'check box' && !(e.x === box.x && e.y === box.y)).map((e) => `${e.x},${e.y}=${e.checked}`);
        expect(othersAfter).toEqual(othersBefore);
      }, 60000);

      it('screenshot metadata holds the contract; a ui point mapped to a pixel and back clicks the control', async () => {
        const { address } = apps.get(m.output)!;
        const s = await server.call('screenshot', { monitor: m.output });
        expect(s.isError, s.text.join('\n')).toBe(false);
        const meta = s.data as unknown as Meta;
        expect(meta.geometry).toEqual(m.geometry);
        expect(meta.scale).toBe(m.scale);
        expect(meta.image).toEqual(m.image);
        const file = await pixels(meta.path!);
        expect([file.width, file.height]).toEqual(m.image);

        const box = (await ui(server, address)).find((e) => e.role === 'check box' && e.clickable)!;
        // what an agent does: read the control off the image (an integer pixel), convert back with the formula
        const px = Math.round((box.x - meta.geometry[0]) * meta.scale);
        const py = Math.round((box.y - meta.geometry[1]) * meta.scale);
        expect(px).toBeGreaterThanOrEqual(0);
        expect(px).toBeLessThan(meta.image[0]);
        expect(py).toBeLessThan(meta.image[1]);
        const gx = meta.geometry[0] + px / meta.scale;
        const gy = meta.geometry[1] + py / meta.scale;
        expect(Math.abs(gx - box.x)).toBeLessThan(1);
        expect(Math.abs(gy - box.y)).toBeLessThan(1);
        const c = await server.call('pointer', { action: 'click', x: gx, y: gy });
        expect(c.isError, c.text.join('\n')).toBe(false);
        expect((await checkBoxAt(server, address, box.x, box.y)).checked).toBe(!box.checked);
      }, 60000);

      it('lossless capture: the pixels at the check box mapped position change with its state, a neighbour stays the same', async () => {
        const { address } = apps.get(m.output)!;
        // the top two sensitive check boxes (the third one is drawn "inconsistent" whatever its state)
        const boxes = (await ui(server, address)).filter((e) => e.role === 'check box' && e.clickable).sort((p, q) => p.y - q.y);
        expect(boxes.length).toBeGreaterThanOrEqual(2);
        const [box, neighbour] = boxes;
        // first click gives the box keyboard focus too, so both shots below carry the same focus ring
        await server.call('pointer', { action: 'click', x: box.x, y: box.y });
        const a = await checkBoxAt(server, address, box.x, box.y);
        await settle();
        const shotA = await server.call('screenshot', { monitor: m.output, lossless: true });
        await server.call('pointer', { action: 'click', x: box.x, y: box.y });
        const b = await checkBoxAt(server, address, box.x, box.y);
        expect(b.checked).toBe(!a.checked);
        await settle();
        const shotB = await server.call('screenshot', { monitor: m.output, lossless: true });
        const metaA = shotA.data as unknown as Meta;
        expect(metaA.format).toBe('png');
        const pa = await pixels(metaA.path!);
        const pb = await pixels((shotB.data as unknown as Meta).path!);
        const map = (e: El) => [(e.x - metaA.geometry[0]) * metaA.scale, (e.y - metaA.geometry[1]) * metaA.scale];
        // the check box row around its point: +-60 logical px wide (indicator and label), +-10 high (the rows are 28 px apart)
        const around = (e: El): [number, number, number, number] => {
          const [x, y] = map(e);
          return [x - 60 * metaA.scale, y - 10 * metaA.scale, x + 60 * metaA.scale, y + 10 * metaA.scale];
        };
        expect(diffCount(pa, pb, around(box))).toBeGreaterThan(10);
        expect(diffCount(pa, pb, around(neighbour))).toBe(0);
      }, 60000);

      it('zoom around a control covers the expected box at native resolution, and is clipped to the monitor at its edge', async () => {
        const { address } = apps.get(m.output)!;
        const [mx, my, mw, mh] = m.geometry;
        const box = (await ui(server, address)).find((e) => e.role === 'check box')!;
        // an even point keeps the box origin on whole native pixels at scale 1.5, so the pixels can be compared exactly
        const zx = box.x - (box.x % 2);
        const zy = box.y - (box.y % 2);
        const z = await server.call('zoom', { x: zx, y: zy, size: '200x100', lossless: true });
        expect(z.isError, z.text.join('\n')).toBe(false);
        const meta = z.data as unknown as Meta;
        expect(meta.target).toBe('zoom');
        const want = [zx - 100, zy - 50, 200, 100];
        want[0] = Math.max(mx, Math.min(want[0], mx + mw - 200));
        want[1] = Math.max(my, Math.min(want[1], my + mh - 100));
        expect(meta.geometry).toEqual(want);
        expect(meta.scale).toBe(m.scale);
        expect(meta.image).toEqual([200 * m.scale, 100 * m.scale]);
        // the content is that box at native resolution: the same pixels as grim's whole-output capture, cropped
        const ref = join(mkdtempSync(join(tmpdir(), 'hypruse-zoom-')), 'ref.png');
        await grimOutput(m.output, ref);
        const sharp = (await import('sharp')).default;
        const crop = `${ref}.crop.png`;
        await sharp(ref)
          .extract({ left: (want[0] - mx) * m.scale, top: (want[1] - my) * m.scale, width: meta.image[0], height: meta.image[1] })
          .toFile(crop);
        const zp = await pixels(meta.path!);
        const rp = await pixels(crop);
        const differing = diffCount(zp, rp, [0, 0, zp.width, zp.height]);
        expect(differing / (zp.width * zp.height)).toBeLessThan(0.005);

        // at the monitor's bottom-right corner the default 480x360 box slides inside the monitor
        const e = await server.call('zoom', { x: mx + mw - 3, y: my + mh - 3 });
        expect(e.isError, e.text.join('\n')).toBe(false);
        const em = e.data as unknown as Meta;
        expect(em.geometry).toEqual([mx + mw - 480, my + mh - 360, 480, 360]);
        expect(em.image).toEqual([480 * m.scale, 360 * m.scale]);
        expect(em.scale).toBe(m.scale);
      }, 60000);
    });
  }

  it('a zoom box larger than the monitor shrinks to the monitor and never spans the seam', async () => {
    const z = await server.call('zoom', { x: 1270, y: 400, size: '3000x3000' });
    expect(z.isError, z.text.join('\n')).toBe(false);
    const meta = z.data as unknown as Meta;
    expect(meta.geometry).toEqual([0, 0, 1280, 800]);
    expect(meta.image).toEqual([1280, 800]);
    const z2 = await server.call('zoom', { x: 1290, y: 400, size: '3000x3000' });
    const meta2 = z2.data as unknown as Meta;
    expect(meta2.geometry).toEqual([1280, 0, 1280, 720]);
    expect(meta2.image).toEqual([1920, 1080]);
    expect(meta2.scale).toBe(1.5);
  }, 30000);
});
