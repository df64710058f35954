// The first click of a brand-new virtual pointer on a seat that had no pointer (the test desktop
// runs sway headless without input devices, like a CI or container desktop): the device gives the
// seat its pointer capability, each app binds a wl_pointer when its event loop gets to that, and
// a press sent before that is dropped (see DEVICE_SETTLE_MS). Every click goes through its own
// WaylandInput, as one `hypruse pointer click` process does, and is counted by the app itself
// (tests/desktop/click-counter.py prints a line per `clicked`), for GTK 3 and GTK 4. Then a burst
// of clicks through one device that stays, each right after the cursor moved.
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { WaylandInput } from '@hypruse/wayland';
import { killFixture, launchFixture, requireDesktop, swaymsg, swayNodes, waitFor, type LaunchedFixture } from '../support/desktop.js';

const desk = await requireDesktop({ reset: true });
const FRESH = 15;
const BURST = 30;
const CONTROL = 8;

const counted = (app: LaunchedFixture) =>
  existsSync(app.stdout) ? readFileSync(app.stdout, 'utf8').split('\n').filter((l) => l.startsWith('click ')).length : 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The window's rect once sway kept it unchanged for a while (a new tiled window gains its title bar late). */
async function settledRect(pid: number) {
  const rect = async () => {
    const n = (await swayNodes()).find((x) => x.pid === pid);
    if (!n) throw new Error(`no window of pid ${pid} in sway's tree`);
    return n.rect;
  };
  let last = JSON.stringify(await rect());
  let since = Date.now();
  const t0 = Date.now();
  while (Date.now() - since < scaledMs(300)) {
    if (Date.now() - t0 > scaledMs(5000)) throw new Error(`the window of pid ${pid} kept moving`);
    await sleep(40);
    const now = JSON.stringify(await rect());
    if (now !== last) [last, since] = [now, Date.now()];
  }
  return JSON.parse(last) as { x: number; y: number; width: number; height: number };
}

/** Seat capabilities as sway reports them (bit 1 pointer, 2 keyboard). */
async function seatCaps(): Promise<number> {
  const seats = await swaymsg<Array<{ name: string; capabilities: number }>>('-t', 'get_seats');
  return seats.find((s) => s.name === 'seat0')?.capabilities ?? -1;
}

describe.skipIf(!desk)('every click registered, the first of a fresh virtual pointer included', () => {
  const apps: LaunchedFixture[] = [];
  afterAll(async () => {
    for (const a of apps) await killFixture(a.pid).catch(() => {});
  });

  for (const kit of ['gtk3', 'gtk4'] as const) {
    it(`${kit}: ${FRESH} clicks, each the first of a new device, then ${BURST} through one device; the app counts every one`, async () => {
      const app = await launchFixture('click-counter', { workspace: '5', args: [kit] });
      apps.push(app);
      const r = await settledRect(app.pid);
      const at = (i: number) => ({ x: Math.round(r.x + r.width * (i % 2 ? 0.6 : 0.4)), y: Math.round(r.y + r.height / 2) });
      const env = { ...process.env, ...desk!.env };
      // the premise: no pointer on the seat, so each new device is the seat's first pointer
      expect(await seatCaps() & 1).toBe(0);

      /** Clicks through `n` fresh devices; the numbers of those the app did not count. */
      const freshClicks = async (n: number, settleMs?: number) => {
        const lost: number[] = [];
        for (let i = 0; i < n; i++) {
          const before = counted(app);
          const p = at(i);
          await swaymsg('seat', 'seat0', 'cursor', 'set', String(p.x), String(p.y));
          const input = new WaylandInput({ env, keyboard: 'wtype', ...(settleMs !== undefined ? { settleMs } : {}) });
          try {
            await input.click('left', 1);
          } finally {
            await input.dispose();
          }
          // a click counted late is not lost: wait (scaled) for the app's line
          try {
            await waitFor(() => counted(app) > before, settleMs === 0 ? 1000 : 3000, `click ${i + 1} counted`, 10);
          } catch {
            lost.push(i + 1);
          }
          await waitFor(async () => (await seatCaps() & 1) === 0, 3000, 'the device gone from the seat');
          // the next `hypruse pointer click` comes no sooner: a verb's process start-up is about 300 ms.
          // Closer than that the app may still be repainting the last click and the leave when the new
          // device appears, and can get to the capability event later than the settle (see DEVICE_SETTLE_MS).
          await sleep(scaledMs(300));
        }
        return lost;
      };

      // the cause, shown (not asserted: a fast app may win the race): without the settle, presses
      // sent before the app bound its wl_pointer are dropped
      const control = await freshClicks(CONTROL, 0);
      process.stderr.write(`first click e2e ${kit}: fresh devices without settle ${CONTROL - control.length}/${CONTROL} counted\n`);
      await sleep(scaledMs(1500)); // a late count of the control is not one of the clicks below
      const base = counted(app);

      const lost = await freshClicks(FRESH);
      process.stderr.write(`first click e2e ${kit}: fresh devices ${FRESH - lost.length}/${FRESH} counted${lost.length ? ` (lost: ${lost.join(', ')})` : ''}\n`);
      expect(lost).toEqual([]);
      expect(counted(app) - base).toBe(FRESH);

      const input = new WaylandInput({ env, keyboard: 'wtype' });
      try {
        const start = counted(app);
        const late: number[] = [];
        for (let i = 0; i < BURST; i++) {
          const before = counted(app);
          const p = at(i);
          await swaymsg('seat', 'seat0', 'cursor', 'set', String(p.x), String(p.y));
          await input.click('left', 1);
          try {
            await waitFor(() => counted(app) > before, 3000, `burst click ${i + 1} counted`, 10);
          } catch {
            late.push(i + 1);
          }
        }
        process.stderr.write(`first click e2e ${kit}: one device ${BURST - late.length}/${BURST} counted${late.length ? ` (lost: ${late.join(', ')})` : ''}\n`);
        expect(late).toEqual([]);
        expect(counted(app) - start).toBe(BURST);
      } finally {
        await input.dispose();
      }
      await killFixture(app.pid);
    }, 120_000);
  }
});
