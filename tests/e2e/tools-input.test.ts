// keyboard and pointer through the MCP tools on the real headless sway
// desktop. Effects are verified independently of the tools' own answers:
// zenity prints the entry's text when it closes with OK/Return (and exits
// on Cancel), sway says which window has focus, grim's pixels show a
// scroll, a fresh AT-SPI read shows a slider or a check box.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { killFixture, launchFixture, requireDesktop, swayNodes, waitFor, type LaunchedFixture } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';
import { alive, focusedId, settled, slowA11yConfig, ui, zenityAnswer, type El } from '../support/tools.js';

const SLOW_A11Y_CONFIG = slowA11yConfig();

const desk = await requireDesktop();
const TEXT = 'héllo wörld ✓ — 日本語';

/** A logical region of HEADLESS-1 (scale 1) as 8-bit grey pixels, straight from grim. */
function grabGrey(rect: { x: number; y: number; width: number; height: number }): Promise<{ data: Buffer; width: number; height: number }> {
  return new Promise((resolve, reject) => {
    execFile(
      'grim',
      ['-t', 'png', '-g', `${rect.x},${rect.y} ${rect.width}x${rect.height}`, '-'],
      { env: { ...process.env, ...desk!.env }, encoding: 'buffer', maxBuffer: 64 << 20, timeout: 10000 },
      (err, stdout) => {
        if (err) return reject(err);
        import('sharp')
          .then(({ default: sharp }) => sharp(stdout).greyscale().raw().toBuffer({ resolveWithObject: true }))
          .then(({ data, info }) => resolve({ data, width: info.width, height: info.height }), reject);
      },
    );
  });
}

/** Mean absolute difference of rows y of `after` against rows y+d of `before`, for the shift d (content moved up by d). */
function shiftError(before: { data: Buffer; width: number; height: number }, after: typeof before, d: number): number {
  let sum = 0;
  let n = 0;
  for (let y = 0; y + d < before.height; y++) {
    for (let x = 0; x < before.width; x++) {
      sum += Math.abs(after.data[y * after.width + x] - before.data[(y + d) * before.width + x]);
      n++;
    }
  }
  return sum / n;
}

const addressOf = async (app: LaunchedFixture) => String((await swayNodes()).find((n) => n.pid === app.pid && n.type === 'con')!.id);

describe.skipIf(!desk)('keyboard and pointer tools on the real desktop', () => {
  let server: Server;

  beforeAll(async () => {
    // several servers drive this seat in turn (the SIGTERM test below): each one's input is another
    // Wayland client to the others, which the takeover pause would rightly wait out; it is tested on its own
    server = await startServer(desk!.env, { HYPRUSE_CONFIG: SLOW_A11Y_CONFIG, HYPRUSE_TAKEOVER_MS: '0', HYPRUSE_INDICATOR: '0' });
  });

  afterAll(async () => {
    await server?.close();
  });

  describe('keyboard', () => {
    it(`types "${TEXT}" exactly, 20 times in a row, each into a fresh zenity entry (zenity's own output)`, async () => {
      const t0 = Date.now();
      const answers: string[] = [];
      let next = launchFixture('zenity-entry', { workspace: '3' });
      for (let i = 0; i < 20; i++) {
        const app = await next;
        const addr = String(app.conId);
        const k = await server.call('keyboard', { action: 'type', text: TEXT, window: addr });
        expect(k.isError, k.text.join('\n')).toBe(false);
        expect(k.text[0]).toBe(`typed ${[...TEXT].length} characters into ${addr} (verified)`);
        const r = await server.call('keyboard', { action: 'key', keys: 'Return', window: addr });
        expect(r.isError, r.text.join('\n')).toBe(false);
        if (i < 19) next = launchFixture('zenity-entry', { workspace: '3' });
        answers.push(await zenityAnswer(app));
      }
      expect(answers).toEqual(Array(20).fill(`${TEXT}\n`));
      const ms = Date.now() - t0;
      process.stderr.write(`keyboard round trips: 20 in ${ms} ms (${Math.round(ms / 20)} ms each, launch included)\n`);
      expect(ms).toBeLessThan(scaledMs(60000));
    }, 90000);

    it('ctrl+a then BackSpace empties the field (zenity prints an empty line)', async () => {
      const app = await launchFixture('zenity-entry', { workspace: '3' });
      const addr = String(app.conId);
      expect((await server.call('keyboard', { action: 'type', text: 'to be erased', window: addr })).isError).toBe(false);
      const a = await server.call('keyboard', { action: 'key', keys: 'ctrl+a', window: addr });
      expect(a.text[0]).toBe(`pressed ctrl+a into ${addr}`);
      const b = await server.call('keyboard', { action: 'key', keys: 'BackSpace', window: addr });
      expect(b.isError, b.text.join('\n')).toBe(false);
      await server.call('keyboard', { action: 'key', keys: 'Return', window: addr });
      expect(await zenityAnswer(app)).toBe('\n');
    }, 30000);

    it('typing with window= into an unfocused window focuses it first; the focused one receives nothing', async () => {
      const target = await launchFixture('zenity-entry', { workspace: '3' });
      const other = await launchFixture('zenity-entry', { workspace: '3' });
      await waitFor(async () => (await focusedId()) === other.conId, 5000, 'the second zenity focused');
      const k = await server.call('keyboard', { action: 'type', text: 'into the target', window: String(target.conId) });
      expect(k.isError, k.text.join('\n')).toBe(false);
      expect(await focusedId()).toBe(target.conId);
      await server.call('keyboard', { action: 'key', keys: 'Return', window: String(other.conId) });
      await server.call('keyboard', { action: 'key', keys: 'Return', window: String(target.conId) });
      expect(await zenityAnswer(other)).toBe('\n');
      expect(await zenityAnswer(target)).toBe('into the target\n');
    }, 30000);
  });

  describe('pointer on gtk3-widget-factory (HEADLESS-1)', () => {
    let app: LaunchedFixture;
    let addr: string;

    beforeAll(async () => {
      app = await launchFixture('widget-factory', { workspace: '1' });
      addr = await addressOf(app);
      await settled(server, addr);
    }, 60000);

    afterAll(async () => {
      if (app) await killFixture(app.pid).catch(() => undefined);
    });

    it('scroll over the text view moves its content up (grim pixels), in the wheel direction, and back', async () => {
      const text = (await ui(server, addr)).find((e) => e.role === 'text' && String(e.value).startsWith('Lorem'))!;
      expect(text).toBeTruthy();
      // the visible part of the view (it is clipped by the window's right edge)
      const rect = { x: text.x - 120, y: text.y - 110, width: 100, height: 220 };
      const before = await grabGrey(rect);
      const s = await server.call('pointer', { action: 'scroll', x: text.x - 70, y: text.y, scroll_dy: 1 });
      expect(s.isError, s.text.join('\n')).toBe(false);
      expect(s.text[0]).toBe(`scroll ok; cursor now at (${text.x - 70}, ${text.y})`);
      await new Promise((r) => setTimeout(r, 500));
      const after = await grabGrey(rect);
      let best = 0;
      for (let d = 1; d < rect.height - 60; d++) if (shiftError(before, after, d) < shiftError(before, after, best)) best = d;
      expect(shiftError(before, after, 0)).toBeGreaterThan(5);
      expect(best).toBeGreaterThan(10);
      expect(shiftError(before, after, best)).toBeLessThan(shiftError(before, after, 0) / 4);
      // and back: scrolling up restores the first view
      await server.call('pointer', { action: 'scroll', x: text.x - 70, y: text.y, scroll_dy: -1 });
      await new Promise((r) => setTimeout(r, 500));
      expect(shiftError(before, await grabGrey(rect), 0)).toBeLessThan(2);
    }, 60000);

    it('drag on a slider changes its value (fresh AT-SPI read: percent goes up by the dragged fraction)', async () => {
      const slider = (await ui(server, addr)).find((e) => e.role === 'slider' && e.clickable && e.value === 50)!;
      expect(slider).toBeTruthy();
      const d = await server.call('pointer', { action: 'drag', x: slider.x, y: slider.y, to_x: slider.x + 80, to_y: slider.y });
      expect(d.isError, d.text.join('\n')).toBe(false);
      expect(d.text[0]).toBe(`drag ok; cursor now at (${slider.x + 80}, ${slider.y})`);
      const now = (await ui(server, addr)).find((e) => e.role === 'slider' && e.x === slider.x && e.y === slider.y)!;
      expect(now.percent! - slider.percent!).toBeGreaterThan(15);
      // dragging back restores it (the button was released: the next press starts a fresh drag)
      await server.call('pointer', { action: 'drag', x: slider.x + 80, y: slider.y, to_x: slider.x, to_y: slider.y });
      const back = (await ui(server, addr)).find((e) => e.role === 'slider' && e.x === slider.x && e.y === slider.y)!;
      expect(Math.abs(back.percent! - slider.percent!)).toBeLessThanOrEqual(3);
    }, 60000);

    it('a server killed (SIGTERM) in the middle of a drag leaves no button held: a fresh server clicks a check box exactly once', async () => {
      const els = await ui(server, addr);
      const slider = els.find((e) => e.role === 'slider' && e.clickable && typeof e.value === 'number')!;
      const box = els.filter((e) => e.role === 'check box' && e.clickable).sort((p, q) => p.y - q.y)[0];
      for (const delay of [100, 180, 260]) {
        const doomed = await startServer(desk!.env, { HYPRUSE_CONFIG: SLOW_A11Y_CONFIG, HYPRUSE_INDICATOR: '0' });
        const drag = doomed.call('pointer', { action: 'drag', x: slider.x - 100, y: slider.y, to_x: slider.x + 100, to_y: slider.y }).catch((e: Error) => e);
        await new Promise((r) => setTimeout(r, delay));
        process.kill(doomed.pid!, 'SIGTERM');
        await drag;
        await waitFor(() => !alive(doomed.pid!), 5000, `server ${doomed.pid} to exit after SIGTERM`);
        await doomed.close().catch(() => undefined);

        const fresh = await startServer(desk!.env, { HYPRUSE_CONFIG: SLOW_A11Y_CONFIG, HYPRUSE_TAKEOVER_MS: '0', HYPRUSE_INDICATOR: '0' });
        try {
          const before = await ui(fresh, addr);
          const b0 = before.find((e) => e.role === 'check box' && e.x === box.x && e.y === box.y)!;
          const s0 = before.find((e) => e.role === 'slider' && e.x === slider.x && e.y === slider.y)!;
          process.stderr.write(`SIGTERM ${delay} ms into the drag: slider at ${s0.value} (it started at ${slider.value})\n`);
          const c = await fresh.call('pointer', { action: 'click', x: box.x, y: box.y });
          expect(c.isError, c.text.join('\n')).toBe(false);
          await new Promise((r) => setTimeout(r, 200));
          const after = await ui(fresh, addr);
          expect(after.find((e) => e.role === 'check box' && e.x === box.x && e.y === box.y)!.checked, `after a kill ${delay} ms into the drag`).toBe(!b0.checked);
          // a stuck button would have kept the slider grabbed and moved it with the cursor
          expect(after.find((e) => e.role === 'slider' && e.x === slider.x && e.y === slider.y)!.value).toBe(s0.value);
        } finally {
          await fresh.close();
        }
      }
    }, 120000);
  });

  describe('bad input is refused before any side effect', () => {
    it('usage/not_found errors leave focus, the field text and the dialog untouched', async () => {
      const app = await launchFixture('zenity-entry', { workspace: '3' });
      const addr = String(app.conId);
      expect((await server.call('keyboard', { action: 'type', text: 'keep', window: addr })).isError).toBe(false);
      const cancel = (await ui(server, addr)).find((e) => e.role === 'push button' && e.name === 'Cancel')!;
      expect(cancel).toBeTruthy();
      // a focused bystander: nothing below may steal focus from it
      const bystander = await launchFixture('zenity-question', { workspace: '3' });
      await waitFor(async () => (await focusedId()) === bystander.conId, 5000, 'the bystander focused');

      const calls: Array<[string, Record<string, unknown>, RegExp]> = [
        ['pointer', { action: 'click', x: cancel.x, y: cancel.y, button: 'bogus' }, /^usage: /],
        ['pointer', { action: 'click', x: cancel.x }, /^usage: x and y must be given together/],
        ['pointer', { action: 'scroll', x: cancel.x, y: cancel.y, scroll_dy: 0 }, /^usage: scroll needs a non-zero/],
        ['pointer', { action: 'click', x: 99999, y: cancel.y }, /^usage: .*outside every monitor/],
        ['pointer', { action: 'drag', x: cancel.x, y: cancel.y }, /^usage: drag needs/],
        ['screenshot', { region: '10,10,0x0' }, /^usage: region .* zero size/],
        ['screenshot', { monitor: 'HEADLESS-1', scale: 5 }, /^usage: /],
        ['keyboard', { action: 'key', keys: 'ctrl++', window: addr }, /^usage: /],
        ['keyboard', { action: 'key', keys: 'Escape', window: addr, text: 'x' }, /^usage: /],
        ['keyboard', { action: 'type', text: 'zzz', window: '987654' }, /^not_found: /],
        ['keyboard', { action: 'type', text: '', window: addr }, /^usage: /],
      ];
      for (const [tool, args, want] of calls) {
        const r = await server.call(tool, args);
        expect(r.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
        expect(r.text[0], `${tool} ${JSON.stringify(args)}`).toMatch(want);
      }
      expect(await focusedId()).toBe(bystander.conId);
      expect(alive(app.pid)).toBe(true);
      await server.call('keyboard', { action: 'key', keys: 'Return', window: addr });
      expect(await zenityAnswer(app)).toBe('keep\n');
    }, 60000);
  });
});
