// wait_for on elements of a real app: a wait started before a click ends when gtk3-widget-factory
// shows the check box checked (libatspi confirms), and idle ends once the window's tree is quiet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atspi } from '../support/atspi.js';
import { killFixture, launchFixture, requireDesktop, swayNodes } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';
import { settled, slowA11yConfig } from '../support/tools.js';

const desk = await requireDesktop();

describe.skipIf(!desk)('wait_for element and idle', () => {
  let server: Server;
  beforeAll(async () => {
    server = await startServer(desk!.env, { HYPRUSE_CONFIG: slowA11yConfig(), HYPRUSE_TAKEOVER_MS: '0' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('a wait for checked, started before the click, ends with the click; idle answers once the tree is quiet', async () => {
    const app = await launchFixture('widget-factory', { workspace: '1' });
    try {
      const addr = String((await swayNodes()).find((n) => n.pid === app.pid && n.type === 'con')!.id);
      const idle = await server.call('wait_for', { event: 'idle', window: addr, quiet_ms: 500, timeout_s: 30 });
      expect(idle.isError, idle.text.join('\n')).toBe(false);
      expect(idle.data).toMatchObject({ event: 'idle', window: addr });
      await settled(server, addr);
      const ui = await server.call('ui', { window: addr, format: 'flat' });
      const box = (ui.data.elements as Array<{ id: number; role: string; name: string; checked?: boolean; clickable: boolean }>).find((e) => e.role === 'check box' && e.clickable && e.checked === false)!;
      expect(box, ui.text.join('\n')).toBeDefined();
      const waiting = server.call('wait_for', { event: 'element', id: box.id, state: 'checked', timeout_s: 30 });
      const click = await server.call('click_ui', { id: box.id });
      expect(click.isError, click.text.join('\n')).toBe(false);
      const w = await waiting;
      expect(w.isError, w.text.join('\n')).toBe(false);
      expect(w.data).toMatchObject({ event: 'element', state: 'checked', id: box.id });
      const checked = (await atspi(app.pid)).filter((n) => n.role === 'check box' && n.name === box.name && n.states.includes('checked')).length;
      const before = (ui.data.elements as Array<{ role: string; name: string; checked?: boolean }>).filter((e) => e.role === 'check box' && e.name === box.name && e.checked).length;
      expect(checked).toBe(before + 1);
      // already checked: answers at once
      const again = await server.call('wait_for', { event: 'element', id: box.id, state: 'checked' });
      expect(again.data.already).toBe(true);
      const t = await server.call('wait_for', { event: 'element', id: box.id, state: 'unchecked', timeout_s: 1 });
      // a timeout answers what it saw, as a result
      expect(t.isError).toBe(false);
      expect(t.text[0]).toMatch(/^timeout: the element did not become unchecked within 1s; it is check box "checkbutton" checked/);
      expect(t.data).toMatchObject({ event: 'element', timed_out: true, state: 'unchecked', id: box.id });
    } finally {
      await killFixture(app.pid);
    }
  }, 120000);
});
