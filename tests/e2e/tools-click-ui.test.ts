// click_ui and marks through the MCP server (and one click from a separate
// CLI process). Verified outside the tools: zenity prints the entry text
// when OK is clicked and exits, a fresh AT-SPI read shows no state changed
// after an ambiguous name, the marks image's pixels (decoded with sharp)
// carry the mark colour where the legend says the controls are.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killFixture, launchFixture, requireDesktop, swayNodes, waitFor, type LaunchedFixture } from '../support/desktop.js';
import { BIN, startServer, type Server } from '../support/server.js';
import { alive, slowA11yConfig, zenityAnswer, type El, type Meta } from '../support/tools.js';

const SLOW_A11Y_CONFIG = slowA11yConfig();

const desk = await requireDesktop();

/** The CLI as a separate process with the desktop environment. */
function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', LANG: 'C.UTF-8', ...desk!.env, HYPRUSE_CONFIG: SLOW_A11Y_CONFIG }, timeout: 30000, encoding: 'utf8' },
      (err, stdout, stderr) => resolve({ code: typeof err?.code === 'number' ? err.code : err ? -1 : 0, stdout, stderr }),
    );
  });
}

describe.skipIf(!desk)('click_ui and marks on the real desktop', () => {
  let server: Server;

  beforeAll(async () => {
    server = await startServer(desk!.env, { HYPRUSE_CONFIG: SLOW_A11Y_CONFIG });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('click_ui name=OK after typing closes the zenity entry, which prints the typed text', async () => {
    const app = await launchFixture('zenity-entry', { workspace: '3' });
    const addr = String(app.conId);
    expect((await server.call('keyboard', { action: 'type', text: 'clicked by name ✓', window: addr })).isError).toBe(false);
    const c = await server.call('click_ui', { name: 'OK', window: addr });
    expect(c.isError, c.text.join('\n')).toBe(false);
    expect(c.text[0]).toMatch(/^clicked push button 'OK' at \(\d+, \d+\) in zenity/);
    expect(await zenityAnswer(app)).toBe('clicked by name ✓\n');
    expect((await swayNodes()).some((n) => n.id === app.conId)).toBe(false);
  }, 30000);

  it('an ambiguous name returns the candidates as not_found and clicks nothing', async () => {
    const app = await launchFixture('widget-factory', { workspace: '1' });
    try {
      const addr = String((await swayNodes()).find((n) => n.pid === app.pid && n.type === 'con')!.id);
      const read = async () => {
        const r = await server.call('ui', { window: addr });
        expect(r.isError, r.text.join('\n')).toBe(false);
        // tree order is stable; positions are not while sway settles a new window's decorations
        return (r.data.elements as El[]).filter((e) => typeof e.checked === 'boolean').map((e) => ({ key: `${e.role} #${e.name}=${e.checked}`, x: e.x, y: e.y, checked: e.checked }));
      };
      // a new widget-factory re-lays itself out for a moment after mapping: wait until two reads agree
      let before = await read();
      for (let i = 0; i < 10; i++) {
        await new Promise((res) => setTimeout(res, 300));
        const again = await read();
        const same = JSON.stringify(again) === JSON.stringify(before);
        before = again;
        if (same) break;
      }
      const radios = before.filter((e) => e.key.startsWith('radio button #radiobutton'));
      expect(radios).toHaveLength(6);
      const r = await server.call('click_ui', { name: 'radiobutton', window: addr });
      expect(r.isError).toBe(true);
      expect(r.text[0]).toMatch(/^not_found: 'radiobutton' is ambiguous \(6 candidates\); call again with index=N/);
      const err = (r.raw as { _meta?: Record<string, { code: string; data: { candidates: Array<{ index: number; x: number; y: number; clickable: boolean; checked: boolean }> } }> })._meta?.['hypruse/error'];
      expect(err?.code).toBe('not_found.ambiguous');
      expect(err!.data.candidates.map((c) => `${c.x},${c.y}`).sort()).toEqual(radios.map((e) => `${e.x},${e.y}`).sort());
      expect(err!.data.candidates.map((c) => c.index)).toEqual([0, 1, 2, 3, 4, 5]);
      // the CLI maps the same refusal to exit code 4
      const viaCli = await cli(['click_ui', 'radiobutton', '--window', addr]);
      expect(viaCli.code).toBe(4);
      await new Promise((res) => setTimeout(res, 300));
      expect((await read()).map((e) => e.key)).toEqual(before.map((e) => e.key));
      // and index= picks one: a sensitive, unchecked candidate becomes checked
      const index = err!.data.candidates.find((c) => c.clickable && !c.checked)!.index;
      const pick = await server.call('click_ui', { name: 'radiobutton', window: addr, index });
      expect(pick.isError, pick.text.join('\n')).toBe(false);
      const clicked = (pick.data.clicked ?? {}) as { x: number; y: number };
      const after = await read();
      const hit = after.find((e) => e.x === clicked.x && e.y === clicked.y)!;
      expect(hit.key).toBe('radio button #radiobutton=true');
      expect(after.map((e) => e.key)).not.toEqual(before.map((e) => e.key));
    } finally {
      await killFixture(app.pid);
    }
  }, 60000);

  it('marks draws each mark on its control (mark colour at the legend positions) and click_ui --mark N from a separate CLI process clicks it', async () => {
    // on the scale-1.5 monitor, so the mark positions go through the coordinate contract
    const app = await launchFixture('zenity-entry', { workspace: '2' });
    const addr = String(app.conId);
    expect((await swayNodes()).find((n) => n.id === app.conId)!.output).toBe('HEADLESS-2');
    expect((await server.call('keyboard', { action: 'type', text: 'clicked by mark', window: addr })).isError).toBe(false);
    const m = await server.call('marks', { window: addr });
    expect(m.isError, m.text.join('\n')).toBe(false);
    const meta = m.data as unknown as Meta & { legend: Array<El & { mark: number }> };
    expect(meta.scale).toBe(1.5);
    const legend = meta.legend;
    expect(legend.length).toBeGreaterThanOrEqual(3);
    expect(legend.map((l) => l.mark)).toEqual(legend.map((_, i) => i + 1));
    const ok = legend.find((l) => l.role === 'push button' && l.name === 'OK')!;
    const cancel = legend.find((l) => l.role === 'push button' && l.name === 'Cancel')!;
    expect(ok && cancel).toBeTruthy();
    for (const l of legend) expect(m.text.some((t) => t.startsWith(`[${l.mark}] ${l.role} "${l.name}" @${l.x},${l.y}`)), `legend line for mark ${l.mark}`).toBe(true);

    const sharp = (await import('sharp')).default;
    const { data, info } = await sharp(meta.path!).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const red = (x: number, y: number) => {
      const i = (y * info.width + x) * info.channels;
      return data[i] > 170 && data[i + 1] < 90 && data[i + 2] < 90;
    };
    const redNear = (cx: number, cy: number, r: number) => {
      let n = 0;
      for (let y = Math.max(0, cy - r); y <= Math.min(info.height - 1, cy + r); y++)
        for (let x = Math.max(0, cx - r); x <= Math.min(info.width - 1, cx + r); x++) if (red(x, y)) n++;
      return n;
    };
    let total = 0;
    for (let y = 0; y < info.height; y++) for (let x = 0; x < info.width; x++) if (red(x, y)) total++;
    let near = 0;
    for (const l of legend) {
      const px = Math.round((l.x - meta.geometry[0]) * meta.scale);
      const py = Math.round((l.y - meta.geometry[1]) * meta.scale);
      const n = redNear(px, py, 10);
      expect(n, `mark ${l.mark} at pixel ${px},${py}`).toBeGreaterThan(20);
      near += n;
    }
    // the mark colour is where the marks are, not all over the image (zenity itself has no red)
    expect(near).toBeGreaterThanOrEqual(total * 0.8);

    const c = await cli(['click_ui', '--mark', String(ok.mark)]);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toMatch(new RegExp(`^clicked mark ${ok.mark} \\(push button 'OK'\\)`));
    expect(await zenityAnswer(app)).toBe('clicked by mark\n');
  }, 60000);

  it('an id from ui in one CLI process clicks the same control from another; the label names the field', async () => {
    const app = await launchFixture('zenity-entry', { workspace: '3' });
    const addr = String(app.conId);
    const list = await cli(['ui', '--window', addr, '--json']);
    expect(list.code, list.stderr).toBe(0);
    const els = JSON.parse(list.stdout).result.elements as Array<El & { id: number }>;
    const ok = els.find((e) => e.role === 'push button' && e.name === 'OK')!;
    expect(ok.id).toBeGreaterThan(0);
    // zenity's entry has no accessible name; the label above it ("Name?") names it
    const field = els.find((e) => e.role === 'text')!;
    expect(field.name).toBe('Name?');
    expect(els.filter((e) => e.role === 'label' && e.name === 'Name?')).toEqual([]);
    expect(new Set(els.map((e) => e.id)).size).toBe(els.length);
    expect((await cli(['keyboard', 'type', 'clicked by id', '--window', addr])).code).toBe(0);
    const c = await cli(['click_ui', '--id', String(ok.id)]);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toMatch(/^clicked push button 'OK' at \(\d+, \d+\) in zenity/);
    expect(await zenityAnswer(app)).toBe('clicked by id\n');
    expect((await swayNodes()).some((n) => n.id === app.conId)).toBe(false);
    // the window is gone: its ids are too
    const gone = await cli(['click_ui', '--id', String(ok.id)]);
    expect(gone.code).toBe(4);
  }, 60000);
});
