// Waits on the real sway desktop that match the window, not the raw event:
// a sequence that types into an entry, presses Enter and waits for the close
// of the window by its title (sway's close event carries only the con id),
// and a wait for a GTK save dialog by its title. Both must end on the event,
// well inside their timeouts; effects are read from the app's output and
// from swaymsg.
import { chmodSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { requireDesktop, swaymsg, swayNodes, waitFor } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';

const desk = await requireDesktop();
const RUN = Math.random().toString(36).slice(2, 8);

describe.skipIf(!desk)('waits that match the window on real sway', () => {
  let server: Server;
  const opened: string[] = [];
  beforeAll(async () => {
    server = await startServer(desk!.env);
  }, 60000);
  afterAll(async () => {
    for (const a of opened) await server?.call('wm', { action: 'close_window', target: a }).catch(() => undefined);
    await server?.close();
  });

  it('sequence [type, Enter, wait_for window_close match=<title>] ends on the close event', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hypruse-waits-'));
    chmodSync(dir, 0o777);
    const out = join(dir, 'zenity.out');
    const title = `hypruse close wait ${RUN}`;
    const l = await server.call('launch', { command: `zenity --entry --title="${title}" --text="Name?" > ${out}`, workspace: '2' });
    expect(l.isError, l.text.join('\n')).toBe(false);
    const addr = String(l.data.address);
    opened.push(addr);
    const t0 = Date.now();
    const s = await server.call('sequence', {
      steps: [
        { op: 'keyboard', action: 'type', text: 'closing', window: addr },
        { op: 'keyboard', action: 'key', keys: 'Return', window: addr },
        { op: 'wait_for', event: 'window_close', match: title, timeout_s: 10 },
      ],
    });
    const ms = Date.now() - t0;
    expect(s.isError, s.text.join('\n')).toBe(false);
    expect(s.text[0]).toBe('sequence: all 3/3 steps ran');
    const step3 = s.text.find((t) => t.startsWith('[3]'))!;
    expect(step3, s.text.join('\n')).toMatch(/window_close/);
    expect(step3).not.toMatch(/timeout/);
    expect(s.text.join('\n')).not.toMatch(/desktop changed/);
    expect(ms, 'the wait ended on the event, not its 10 s timeout').toBeLessThan(scaledMs(8000));
    expect((await swayNodes()).some((n) => String(n.id) === addr), 'sway no longer lists the entry').toBe(false);
    expect(readFileSync(out, 'utf8').trim()).toBe('closing');
    opened.splice(opened.indexOf(addr), 1);
  });

  it('wait_for window_open match="Save As" ends on a GTK save dialog', async () => {
    const title = `Save As ${RUN}`;
    const t0 = Date.now();
    const waiting = server.call('wait_for', { event: 'window_open', match: title, timeout_s: 15 });
    await new Promise((r) => setTimeout(r, 500));
    await swaymsg('exec', `zenity --file-selection --save --title='${title}'`);
    const r = await waiting;
    const ms = Date.now() - t0;
    expect(r.isError, r.text.join('\n')).toBe(false);
    expect(r.data).toMatchObject({ event: 'window_open', title });
    const addr = String(r.data.address);
    opened.push(addr);
    const node = await waitFor(async () => (await swayNodes()).find((n) => String(n.id) === addr), 3000, 'sway lists the dialog');
    expect(node.name).toBe(title);
    expect(ms, 'the wait ended on the event, not its 15 s timeout').toBeLessThan(scaledMs(10000));
    process.stderr.write(`save dialog: wait ended after ${ms} ms${r.data.titled_later ? ' (its title came after the open)' : ''}\n`);
  });
});
