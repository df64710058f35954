// WaylandInput on the real headless sway desktop. Every effect is checked
// independently of the backend's own answer: zenity prints the entry text on
// stdout when OK/Return is pressed (and nothing on Cancel), sway's tree says
// which window has focus, grim's pixels show a scroll.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCombo } from '@hypruse/core';
import { WaylandInput } from '@hypruse/wayland';
import { alive, zenityAnswer } from '../support/tools.js';
import {
  killFixture, launchFixture, requireDesktop, swaymsg, swayNodes, waitFor, type LaunchedFixture,
} from '../support/desktop.js';

const desk = await requireDesktop();
const TEXT = 'héllo wörld ✓ — 日本語';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Launch a fixture on `workspace` and wait until sway gives its window the focus. */
async function launchFocused(name: 'zenity-entry' | 'foot', workspace: string, args?: string[]): Promise<LaunchedFixture> {
  const app = await launchFixture(name, { workspace, args });
  await waitFor(async () => (await swayNodes()).find((n) => n.id === app.conId)?.focused, 5000, `${name} focused`);
  return app;
}

async function windowRect(conId: number | undefined) {
  const node = (await swayNodes()).find((n) => n.id === conId);
  if (!node) throw new Error(`window ${conId} is not in sway's tree`);
  return node.rect;
}

/** One output's pixels as PPM bytes, straight from grim. */
function grab(output: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile('grim', ['-o', output, '-t', 'ppm', '-'], { env: { ...process.env, ...desk!.env }, encoding: 'buffer', maxBuffer: 64 << 20, timeout: 5000 },
      (err, stdout) => (err ? reject(err) : resolve(stdout)));
  });
}

describe.skipIf(!desk)('WaylandInput on headless sway', () => {
  let input: WaylandInput;

  beforeAll(() => {
    input = new WaylandInput({ env: { ...process.env, ...desk!.env }, keyboard: 'auto' });
  });
  afterAll(async () => {
    await input?.dispose();
  });

  it('describes the in-process paths it uses', async () => {
    expect(await input.describe()).toEqual({
      pointer: 'zwlr_virtual_pointer_v1 v2',
      keyboard: 'zwp_virtual_keyboard_v1 (in-process)',
    });
  });

  it('clicks zenity\'s OK button at the cursor the compositor placed', async () => {
    const app = await launchFocused('zenity-entry', '1');
    const r = await windowRect(app.conId);
    // zenity --entry tiled on the 1280x800 output: OK is the bottom-right button (about 90x32).
    const [x, y] = [Math.round(r.x + r.width - 56), Math.round(r.y + r.height - 27)];
    await swaymsg('seat', 'seat0', 'cursor', 'set', String(x), String(y));
    const latencies: number[] = [];
    const t0 = performance.now();
    await input.click('left', 1);
    latencies.push(performance.now() - t0);
    // OK prints the (empty) entry text and a newline; Cancel would print nothing.
    expect(await zenityAnswer(app)).toBe('\n');
    process.stderr.write(`input e2e: first click (device creation + settle, press, 20 ms, release) ${latencies[0].toFixed(1)} ms\n`);
  });

  it(`types ${JSON.stringify(TEXT)} exactly into a GTK entry, 20 times in a row`, async () => {
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const app = await launchFocused('zenity-entry', '1');
      const t0 = performance.now();
      await input.type(TEXT);
      times.push(performance.now() - t0);
      await input.key(parseCombo('Return'));
      expect(await zenityAnswer(app), `run ${i + 1}`).toBe(`${TEXT}\n`);
    }
    process.stderr.write(`input e2e: type ${[...TEXT].length} chars in-process, median ${median(times).toFixed(1)} ms (min ${Math.min(...times).toFixed(1)}, max ${Math.max(...times).toFixed(1)})\n`);
  }, 120_000);

  it('types 20 characters in-process and through the wtype fallback; both exact (timings printed)', async () => {
    const text20 = 'Hello, wörld ✓ 12345';
    expect([...text20]).toHaveLength(20);
    const viaWtype = new WaylandInput({ env: { ...process.env, ...desk!.env }, keyboard: 'wtype' });
    expect((await viaWtype.describe()).keyboard).toBe('wtype (configured)');
    const times: Record<string, number[]> = { 'in-process': [], wtype: [] };
    try {
      for (let i = 0; i < 7; i++) {
        for (const [name, kb] of [['in-process', input], ['wtype', viaWtype]] as const) {
          const app = await launchFocused('zenity-entry', '1');
          const t0 = performance.now();
          await kb.type(text20);
          times[name].push(performance.now() - t0);
          await input.key(parseCombo('Return')); // wtype's own named keys do not reach GTK 3 here (TESTBED)
          expect(await zenityAnswer(app), `${name} run ${i + 1}`).toBe(`${text20}\n`);
        }
      }
    } finally {
      await viaWtype.dispose();
    }
    for (const [name, ts] of Object.entries(times)) {
      process.stderr.write(`input e2e: type 20 chars via ${name}: median ${median(ts).toFixed(1)} ms (min ${Math.min(...ts).toFixed(1)}, max ${Math.max(...ts).toFixed(1)})\n`);
    }
  }, 60_000);

  it('BackSpace deletes the last character in a GTK entry', async () => {
    const app = await launchFocused('zenity-entry', '1');
    await input.type('abcX');
    await input.key(parseCombo('backspace'));
    await input.type('d');
    await input.key(parseCombo('enter'));
    expect(await zenityAnswer(app)).toBe('abcd\n');
  });

  it('ctrl+a selects all in a GTK entry, so typing replaces it', async () => {
    const app = await launchFocused('zenity-entry', '1');
    await input.type('hello world');
    await input.key(parseCombo('ctrl+a'));
    await input.type('zz');
    await input.key(parseCombo('Return'));
    expect(await zenityAnswer(app)).toBe('zz\n');
  });

  it('a bare modifier tap and shift+Left selection reach the app without typing anything', async () => {
    const app = await launchFocused('zenity-entry', '1');
    await input.type('abc');
    await input.key(parseCombo('shift')); // a tap of Shift alone must not type anything
    await input.key(parseCombo('shift+Left')); // select "c"
    await input.type('Z'); // replaces the selection
    await input.key(parseCombo('Return'));
    expect(await zenityAnswer(app)).toBe('abZ\n');
  });

  it('wheel scroll reaches the app under the cursor (foot scrolls back, then returns)', async () => {
    const app = await launchFocused('foot', '1', ['sh', '-c', 'seq 1 400; exec sleep 60']);
    try {
      const r = await windowRect(app.conId);
      await swaymsg('seat', 'seat0', 'cursor', 'set', String(Math.round(r.x + r.width / 2)), String(Math.round(r.y + r.height / 2)));
      // Wait until foot has printed everything and stopped changing.
      let before = await grab('HEADLESS-1');
      await waitFor(async () => {
        await new Promise((res) => setTimeout(res, 150));
        const now = await grab('HEADLESS-1');
        const same = now.equals(before);
        before = now;
        return same;
      }, 5000, 'foot output to settle');
      await input.scroll(0, -5); // content up: back into the scrollback
      const scrolled = await waitFor(async () => {
        const now = await grab('HEADLESS-1');
        return now.equals(before) ? null : now;
      }, 3000, 'the scroll to change the pixels');
      expect(scrolled.equals(before)).toBe(false);
      await input.scroll(0, 5); // and back down to the bottom
      await waitFor(async () => (await grab('HEADLESS-1')).equals(before), 3000, 'the view to return to the bottom');
    } finally {
      await killFixture(app.pid);
    }
  });

  it('moveAbsolute lands on the intended global point across two outputs (HEADLESS-2 at scale 1.5)', async () => {
    const outputs = await swaymsg<Array<{ name: string; rect: { x: number; y: number; width: number; height: number }; scale: number }>>('-t', 'get_outputs');
    const h2 = outputs.find((o) => o.name === 'HEADLESS-2')!;
    expect(h2.scale).toBe(1.5);
    expect(h2.rect).toMatchObject({ x: 1280, y: 0, width: 1280, height: 720 });
    const layout = {
      x: Math.min(...outputs.map((o) => o.rect.x)),
      y: Math.min(...outputs.map((o) => o.rect.y)),
      width: Math.max(...outputs.map((o) => o.rect.x + o.rect.width)),
      height: Math.max(...outputs.map((o) => o.rect.y + o.rect.height)),
    };
    const left = await launchFixture('zenity-entry', { workspace: '2' });
    const right = await launchFixture('zenity-entry', { workspace: '2' });
    const one = await launchFixture('zenity-entry', { workspace: '1' });
    try {
      const [lr, rr] = [await windowRect(left.conId), await windowRect(right.conId)];
      expect(lr.x + lr.width).toBeLessThanOrEqual(rr.x + 1); // side by side on HEADLESS-2
      const focused = async () => (await swayNodes()).find((n) => n.focused && n.type === 'con')?.id;
      const edge = lr.x + lr.width; // the split between the two windows, in global logical pixels
      const midY = Math.round(lr.y + lr.height / 2);
      // A few pixels either side of the split on the scaled output: the mapping is exact to well under that.
      for (const [x, want] of [[edge + 4, right.conId], [edge - 4, left.conId], [edge + 2, right.conId], [edge - 2, left.conId]] as const) {
        await input.moveAbsolute({ x, y: midY }, layout);
        await waitFor(async () => (await focused()) === want, 2000, `focus to follow the pointer to x=${x}`);
      }
      // And back onto HEADLESS-1.
      await input.moveAbsolute({ x: 640, y: 400 }, layout);
      await waitFor(async () => (await focused()) === one.conId, 2000, 'focus to follow the pointer to HEADLESS-1');
    } finally {
      for (const a of [left, right, one]) if (alive(a.pid)) await killFixture(a.pid);
    }
  });

  it('dispose removes both virtual devices from the seat (no leaked device lingers)', async () => {
    const devices = async () =>
      (await swaymsg<Array<{ identifier: string; type: string }>>('-t', 'get_inputs')).map((i) => `${i.identifier} ${i.type}`).sort();
    const own = new WaylandInput({ env: { ...process.env, ...desk!.env }, keyboard: 'wire' });
    const before = await devices();
    await own.scroll(0, 0.001); // creates the pointer (a negligible smooth scroll)
    await own.key(parseCombo('shift')); // creates the keyboard
    const during = await devices();
    expect(during.length).toBe(before.length + 2);
    expect(during.filter((d) => !before.includes(d) || during.indexOf(d) !== during.lastIndexOf(d)).join(',')).toMatch(/virtual_(pointer|keyboard)/);
    await own.dispose();
    await waitFor(async () => (await devices()).length === before.length, 2000, 'the virtual devices to go away');
  });

  it('drag holds the button during the moves and releases it when `during` throws', async () => {
    const app = await launchFocused('zenity-entry', '1');
    const r = await windowRect(app.conId);
    const ok = { x: Math.round(r.x + r.width - 56), y: Math.round(r.y + r.height - 27) };
    await swaymsg('seat', 'seat0', 'cursor', 'set', String(ok.x), String(ok.y));
    // Press on OK, then fail: the release must still come, on OK, which completes the click.
    await expect(input.drag('left', async () => {
      throw new Error('moves failed');
    })).rejects.toThrow('moves failed');
    expect(await zenityAnswer(app)).toBe('\n');
  });
});
