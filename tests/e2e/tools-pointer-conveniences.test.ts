// pointer conveniences on the real headless sway desktop, read back from the app: a GTK 3 probe
// (tests/desktop/pointer-probe.py) prints every button press as GTK saw it, with its click count
// (GTK's own double/triple detection), the modifier state and the point in its surface. Where the
// surface lies on the layout comes from sway's tree, not from hypruse.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killFixture, launchFixture, requireDesktop, swayNodes, waitFor, type LaunchedFixture } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';

const desk = await requireDesktop();

interface Press { button: number; n: number; ctrl: number; shift: number; alt: number; x: number; y: number }

function presses(app: LaunchedFixture): Press[] {
  return readFileSync(app.stdout, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('press '))
    .map((l) => Object.fromEntries(l.slice(6).split(' ').map((kv) => kv.split('=')).map(([k, v]) => [k, Number(v)])) as unknown as Press);
}

async function pressesAfter(app: LaunchedFixture, count: number): Promise<Press[]> {
  return waitFor(() => {
    const p = presses(app);
    return p.length >= count ? p : null;
  }, 5000, `${count} presses from the probe`);
}

/** The probe's surface origin and size on the layout, from sway's tree. */
async function surfaceOf(app: LaunchedFixture): Promise<{ x: number; y: number; width: number; height: number }> {
  const n = (await swayNodes()).find((c) => c.pid === app.pid && (c.type === 'con' || c.type === 'floating_con'))!;
  const w = n.window_rect ?? { x: 0, y: 0, width: n.rect.width, height: n.rect.height };
  return { x: n.rect.x + w.x, y: n.rect.y + w.y, width: w.width, height: w.height };
}

describe.skipIf(!desk)('pointer modifiers, triple click and screenshot pixels on the real desktop', () => {
  let server: Server;
  let app: LaunchedFixture;

  beforeAll(async () => {
    server = await startServer(desk!.env, { HYPRUSE_TAKEOVER_MS: '0' });
  });

  afterAll(async () => {
    if (app) await killFixture(app.pid).catch(() => undefined);
    await server?.close();
  });

  it('ctrl+shift click reaches GTK with both modifiers; the next plain click has none (they were released)', async () => {
    app = await launchFixture('pointer-probe', { workspace: '3' });
    const s = await surfaceOf(app);
    const at = { x: s.x + Math.round(s.width / 2), y: s.y + Math.round(s.height / 2) };
    const r = await server.call('pointer', { action: 'click', x: at.x, y: at.y, modifiers: ['ctrl', 'shift'] });
    expect(r.isError, r.text.join('\n')).toBe(false);
    const [first] = await pressesAfter(app, 1);
    expect(first).toMatchObject({ button: 1, n: 1, ctrl: 1, shift: 1, alt: 0 });
    // far enough in time from the first click not to count as its double
    await new Promise((res) => setTimeout(res, 800));
    const plain = await server.call('pointer', { action: 'click', x: at.x + 40, y: at.y, button: 'right' });
    expect(plain.isError, plain.text.join('\n')).toBe(false);
    const after = await pressesAfter(app, 2);
    expect(after[1]).toMatchObject({ button: 3, ctrl: 0, shift: 0, alt: 0 });
  }, 40000);

  it('triple click is a triple as GTK counts it', async () => {
    const before = presses(app).length;
    const s = await surfaceOf(app);
    await new Promise((res) => setTimeout(res, 800));
    const r = await server.call('pointer', { action: 'click', x: s.x + 60, y: s.y + 60, triple: true });
    expect(r.isError, r.text.join('\n')).toBe(false);
    // GTK 3 reports every press, plus a double after the second and a triple after the third
    const got = (await pressesAfter(app, before + 5)).slice(before);
    expect(got.map((p) => p.n)).toEqual([1, 1, 2, 1, 3]);
    expect(got.every((p) => p.ctrl === 0 && p.shift === 0)).toBe(true);
  }, 40000);

  it('image_x/image_y of a window screenshot on the scale-1.5 monitor land on that pixel', async () => {
    await killFixture(app.pid);
    app = await launchFixture('pointer-probe', { workspace: '2' });
    expect(app.output).toBe('HEADLESS-2');
    const shot = await server.call('screenshot', { window: String(app.conId) });
    expect(shot.isError, shot.text.join('\n')).toBe(false);
    const meta = shot.data as { geometry: [number, number, number, number]; scale: number; image: [number, number] };
    expect(meta.scale).toBeCloseTo(1.5, 6);
    const px = { x: Math.round(meta.image[0] * 0.3), y: Math.round(meta.image[1] * 0.6) };
    const r = await server.call('pointer', { action: 'click', image_x: px.x, image_y: px.y });
    expect(r.isError, r.text.join('\n')).toBe(false);
    const [p] = await pressesAfter(app, 1);
    const s = await surfaceOf(app);
    // where GTK says it was clicked, on the layout through sway's tree, against the pixel's contract point
    const want = { x: meta.geometry[0] + px.x / meta.scale, y: meta.geometry[1] + px.y / meta.scale };
    expect(Math.abs(s.x + p.x - want.x)).toBeLessThanOrEqual(1);
    expect(Math.abs(s.y + p.y - want.y)).toBeLessThanOrEqual(1);
  }, 40000);
});
