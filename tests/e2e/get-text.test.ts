// get_text on real apps: a text view's whole content in pages (compared with what libatspi reads
// from gtk3-widget-factory itself), and a zenity dialog's text in reading order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killFixture, launchFixture, requireDesktop, swayNodes } from '../support/desktop.js';
import { atspi } from '../support/atspi.js';
import { startServer, type Server } from '../support/server.js';
import { settled, slowA11yConfig } from '../support/tools.js';

const desk = await requireDesktop();

describe.skipIf(!desk)('get_text', () => {
  let server: Server;
  beforeAll(async () => {
    server = await startServer(desk!.env, { HYPRUSE_CONFIG: slowA11yConfig(), HYPRUSE_TAKEOVER_MS: '0' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("a text view's whole text, by id, in pages of 40 characters, equals what libatspi reads", async () => {
    const app = await launchFixture('widget-factory', { workspace: '1' });
    try {
      const addr = String((await swayNodes()).find((n) => n.pid === app.pid && n.type === 'con')!.id);
      await settled(server, addr);
      const ui = await server.call('ui', { window: addr });
      const view = (ui.data.elements as Array<{ id: number; role: string; value?: string }>).find((e) => e.role === 'text' && typeof e.value === 'string' && e.value.startsWith('Lorem'))!;
      expect(view, ui.text.join('\n')).toBeDefined();
      const truth = (await atspi(app.pid)).find((n) => n.role === 'text' && (n.text ?? '').startsWith('Lorem'))!.text!;
      expect(truth.length).toBeGreaterThan(200);
      const whole = await server.call('get_text', { id: view.id });
      expect(whole.isError, whole.text.join('\n')).toBe(false);
      expect(whole.data).toMatchObject({ text: truth, offset: 0, total: truth.length });
      expect(whole.data.next_offset).toBeUndefined();
      let got = '';
      let offset = 0;
      let calls = 0;
      for (; calls < 100; calls++) {
        const r = await server.call('get_text', { id: view.id, limit: 40, offset });
        expect(r.isError, r.text.join('\n')).toBe(false);
        expect((r.data.text as string).length).toBeLessThanOrEqual(40);
        got += r.data.text as string;
        if (r.data.next_offset === undefined) break;
        offset = r.data.next_offset as number;
      }
      expect(got).toBe(truth);
      expect(calls + 1).toBe(Math.ceil(truth.length / 40));
    } finally {
      await killFixture(app.pid);
    }
  }, 90000);

  it("a dialog's text in reading order: the question above its buttons, the buttons left to right", async () => {
    const app = await launchFixture('zenity-question', { workspace: '3' });
    try {
      const addr = String(app.conId);
      await settled(server, addr);
      const r = await server.call('get_text', { window: addr });
      expect(r.isError, r.text.join('\n')).toBe(false);
      const text = r.data.text as string;
      const nodes = await atspi(app.pid);
      expect(nodes.some((n) => n.role === 'label' && n.name === 'Proceed?')).toBe(true);
      const lines = text.split('\n');
      const q = lines.findIndex((l) => l.includes('Proceed?'));
      const b = lines.findIndex((l) => /No\s+Yes/.test(l));
      expect(q, text).toBeGreaterThanOrEqual(0);
      expect(b, text).toBeGreaterThan(q);
      expect(r.data.total).toBe(text.length);
    } finally {
      await killFixture(app.pid);
    }
  }, 60000);
  it("a notebook's tabs are read by their own names, in a row above the shown page's text; another tab selected, its page follows", async () => {
    const app = await launchFixture('gtk3-form', { workspace: '3' });
    try {
      const addr = String(app.conId);
      await settled(server, addr);
      // libatspi: the tab names, each tab holding its page (the shown page's label is showing)
      const nodes = await atspi(app.pid);
      const tabs = nodes.filter((n) => n.role === 'page tab').map((n) => n.name);
      expect(tabs).toEqual(['Alpha', 'Beta', 'Gamma']);
      const shown = nodes.find((n) => n.role === 'label' && n.name.endsWith(' page') && n.states.includes('showing'))!.name;
      expect(shown).toBe('Alpha page');

      const lines = async () => {
        const r = await server.call('get_text', { window: addr });
        expect(r.isError, r.text.join('\n')).toBe(false);
        return (r.data.text as string).split('\n');
      };
      let text = await lines();
      const row = text.findIndex((l) => l.split(/\s{2,}/).join('|') === tabs.join('|'));
      expect(row, text.join('\n')).toBeGreaterThanOrEqual(0);
      expect(text[row + 1]).toBe(shown);

      const sel = await server.call('act', { action: 'select', role: 'page tab list', option: 'Gamma', window: addr });
      expect(sel.isError, sel.text.join('\n')).toBe(false);
      expect((await atspi(app.pid)).find((n) => n.name === 'Gamma page')!.states).toContain('showing');
      text = await lines();
      expect(text[text.findIndex((l) => l.split(/\s{2,}/).join('|') === tabs.join('|')) + 1], text.join('\n')).toBe('Gamma page');
      expect(text).not.toContain('Alpha page');

      // the tab list alone: its tabs and the shown page
      const one = await server.call('get_text', { role: 'page tab list', window: addr });
      expect(one.isError, one.text.join('\n')).toBe(false);
      expect(one.data.text).toBe('Alpha  Beta  Gamma\nGamma page');
    } finally {
      await killFixture(app.pid).catch(() => undefined);
    }
  }, 90000);
});
