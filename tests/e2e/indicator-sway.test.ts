// The on-screen indicator on the real headless sway desktop, read back with
// grim (the compositor's own picture of the screen, independent of hypruse's
// capture path): while the agent acts, the edge glow, the label and a ring at
// the pointer target are on screen, at the places the drawing contract says
// (the label's pixels match the label rendered on its own, and not a label of
// another text); a screenshot taken meanwhile holds none of its pixels (the
// same as a capture with the indicator off), and the indicator is back right
// after; it fades on its own after the hold time; it takes neither keyboard
// focus nor the takeover pause (its surfaces are no input), and clicks pass
// through it.
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { GLOW_DEPTH, INDICATOR_ACCENT, LABEL_FILL, RING_RADIUS, labelBox, labelSvg } from '@hypruse/wayland';
import { launchFixture, requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';
import { focusedId, ui, zenityAnswer } from '../support/tools.js';

const desk = await requireDesktop();

type Img = { data: Buffer; width: number; height: number; channels: number };

/** HEADLESS-1 (1280x800 at scale 1, at 0,0) straight from grim, as RGB. */
function grimMonitor(): Promise<Img> {
  return new Promise((resolve, reject) => {
    execFile('grim', ['-t', 'png', '-o', 'HEADLESS-1', '-'], { env: { ...process.env, ...desk!.env }, encoding: 'buffer', maxBuffer: 64 << 20, timeout: scaledMs(10000) }, (err, stdout) => {
      if (err) return reject(err);
      decode(stdout).then(resolve, reject);
    });
  });
}

async function decode(input: Buffer | string): Promise<Img> {
  const sharp = (await import('sharp')).default;
  const { data, info } = await sharp(input).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

const hex = (c: string) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
const ACCENT = hex(INDICATOR_ACCENT);

function px(img: Img, x: number, y: number): number[] {
  const i = (y * img.width + x) * img.channels;
  return [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!];
}

const dist = (a: number[], b: number[]) => Math.max(...a.map((v, i) => Math.abs(v - b[i]!)));

/** The ring's stroke at its right-hand side is the accent: the ring is drawn centred on the target. */
function ringAt(img: Img, x: number, y: number): boolean {
  return dist(px(img, x + RING_RADIUS, y), ACCENT) <= 12 && dist(px(img, x - RING_RADIUS, y), ACCENT) <= 12 && dist(px(img, x, y + RING_RADIUS), ACCENT) <= 12;
}

/** Pixels of a box of the screen that differ clearly (by more than 48 in a channel) from a picture of the box's size; its rounded ends are left out. */
async function boxDiff(img: Img, box: { x: number; y: number; width: number; height: number }, svg: string): Promise<number> {
  const sharp = (await import('sharp')).default;
  const { data } = await sharp(Buffer.from(svg)).flatten({ background: LABEL_FILL }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const inset = Math.ceil(box.height / 2);
  let n = 0;
  for (let y = 2; y < box.height - 2; y++) {
    for (let x = inset; x < box.width - inset; x++) {
      const i = (y * box.width + x) * 3;
      if (dist(px(img, box.x + x, box.y + y), [data[i]!, data[i + 1]!, data[i + 2]!]) > 48) n++;
    }
  }
  return n;
}

/** Pixels of two images that differ by more than `tol` in any channel. */
function differing(a: Img, b: Img, tol = 8): number {
  let n = 0;
  for (let i = 0; i < a.data.length; i += a.channels) {
    if (Math.abs(a.data[i]! - b.data[i]!) > tol || Math.abs(a.data[i + 1]! - b.data[i + 1]!) > tol || Math.abs(a.data[i + 2]! - b.data[i + 2]!) > tol) n++;
  }
  return n;
}

const TARGET = { x: 400, y: 500 };
const LABEL = 'agent · moving the pointer';

describe.skipIf(!desk)('on-screen indicator on sway', () => {
  let server: Server;
  beforeAll(async () => {
    // a long hold: the indicator stays up through the captures below, however loaded the machine
    server = await startServer(desk!.env, { HYPRUSE_TAKEOVER_MS: '0', HYPRUSE_INDICATOR_HOLD_MS: '60000' });
  }, 60000);
  afterAll(async () => {
    await server?.close();
  });

  it('shows glow, label and ring while acting; a screenshot meanwhile holds none of it, and grim still sees it after', async () => {
    const off = await grimMonitor(); // the reference: nothing of hypruse's on screen yet
    expect(ringAt(off, TARGET.x, TARGET.y)).toBe(false);

    const moved = await server.call('pointer', { action: 'move', x: TARGET.x, y: TARGET.y });
    expect(moved.isError, moved.text.join('\n')).toBe(false);
    // the ring and the label are surfaces of their own, each drawn when its compositor frame comes:
    // under load the ring can show a frame before the label, so the capture waited for holds both
    const box = labelBox(1280, LABEL);
    const want = labelSvg(LABEL, 1280);
    const shown = await waitFor(async () => {
      const g = await grimMonitor();
      return ringAt(g, TARGET.x, TARGET.y) && (await boxDiff(g, box, want)) <= 3 ? g : null;
    }, 15000, 'the ring at the pointer target and the label in grim\'s capture');

    // the edge glow: the accent at the very edge, the desktop a glow's depth inside
    expect(dist(px(shown, 640, 0), ACCENT)).toBeLessThanOrEqual(40);
    expect(dist(px(shown, 0, 400), ACCENT)).toBeLessThanOrEqual(40);
    expect(dist(px(shown, 100, GLOW_DEPTH + 4), px(off, 100, GLOW_DEPTH + 4))).toBeLessThanOrEqual(2);
    // the ring is hollow: the target itself is untouched
    expect(dist(px(shown, TARGET.x, TARGET.y), px(off, TARGET.x, TARGET.y))).toBeLessThanOrEqual(2);
    // the label's box holds this label's picture, not one of another text of the same length
    expect(await boxDiff(shown, box, want)).toBeLessThanOrEqual(3);
    expect(await boxDiff(shown, box, labelSvg('agent · moving the painter', 1280))).toBeGreaterThan(10); // two letters differ
    expect(await boxDiff(shown, box, labelSvg('agent · scrolling the view', 1280))).toBeGreaterThan(100);
    expect(differing(shown, off)).toBeGreaterThan(2 * 1280);

    const shot = await server.call('screenshot', { monitor: 'HEADLESS-1', lossless: true });
    expect(shot.isError, shot.text.join('\n')).toBe(false);
    const ours = await decode(String(shot.data.path));
    expect([ours.width, ours.height]).toEqual([1280, 800]);
    expect(ringAt(ours, TARGET.x, TARGET.y)).toBe(false);
    expect(dist(px(ours, 640, 0), px(off, 640, 0))).toBeLessThanOrEqual(8);
    expect(dist(px(ours, TARGET.x + RING_RADIUS, TARGET.y), px(off, TARGET.x + RING_RADIUS, TARGET.y))).toBeLessThanOrEqual(8);
    expect(differing(ours, off), 'pixels of the screenshot that differ from the capture with the indicator off').toBeLessThan(50);

    // shown again once the capture is done
    await waitFor(async () => ringAt(await grimMonitor(), TARGET.x, TARGET.y), 15000, 'the ring back after the screenshot');
  });
});

describe.skipIf(!desk)('the indicator is no input and fades on its own', () => {
  let server: Server;
  let stderr = '';
  beforeAll(async () => {
    // the takeover pause on (the default): the indicator's surfaces must not count as the person
    server = await startServer(desk!.env, { HYPRUSE_LOG: 'debug' });
    server.transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  }, 60000);
  afterAll(async () => {
    await server?.close();
  });

  it('keeps the focused window and its keyboard, is not the person, lets clicks through, and fades after the hold', async () => {
    const app = await launchFixture('zenity-entry');
    const before = await focusedId();
    expect(before).toBe(app.conId);
    const entry = (await swayNodes()).find((n) => n.id === app.conId)!;
    const target = { x: Math.round(entry.rect.x + entry.rect.width / 2), y: Math.round(entry.rect.y + entry.rect.height / 2) };
    const moved = await server.call('pointer', { action: 'move', x: target.x, y: target.y });
    expect(moved.isError, moved.text.join('\n')).toBe(false);
    await waitFor(async () => ringAt(await grimMonitor(), target.x, target.y), 15000, 'the ring in grim\'s capture').catch((e: Error) => {
      throw new Error(`${e.message}; the server said: ${stderr.slice(-2000)}`);
    });
    expect(await focusedId()).toBe(before);

    // acting while it shows: not refused as the person's input, and the keys reach the focused entry
    const typed = await server.call('keyboard', { action: 'type', text: 'through' });
    expect(typed.isError, typed.text.join('\n')).toBe(false);
    // a click lands through the ring's surface: the ring is up around OK first, then OK is clicked at its centre
    const ok = (await ui(server, String(app.conId))).find((e) => e.role === 'push button' && e.name === 'OK')!;
    expect(ok, 'the OK button over AT-SPI').toBeTruthy();
    expect((await server.call('pointer', { action: 'move', x: ok.x, y: ok.y })).isError).toBe(false);
    await waitFor(async () => ringAt(await grimMonitor(), ok.x, ok.y), 15000, 'the ring around OK');
    const clicked = await server.call('pointer', { action: 'click', x: ok.x, y: ok.y });
    expect(clicked.isError, clicked.text.join('\n')).toBe(false);
    const ended = Date.now();
    expect(await zenityAnswer(app, scaledMs(10000))).toBe('through\n');

    // gone on its own: not before the hold (2.5 s) minus a little, and within the hold, the fade and the machine's slack
    await waitFor(async () => {
      const g = await grimMonitor();
      return dist(px(g, 0, 400), ACCENT) > 60 && !ringAt(g, target.x, target.y);
    }, 2500 + 400 + 10000, 'the indicator to fade', 100);
    expect(Date.now() - ended).toBeGreaterThanOrEqual(2000);
  });
});
