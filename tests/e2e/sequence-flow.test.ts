// sequence control flow on the real headless sway desktop with zenity: an observation step whose
// element id a later step clicks (`$N`), an optional step that fails, a step skipped by its `if`,
// a bounded repeat that types until the entry's text holds, and an on_fail recovery. Effects are
// read from zenity itself: it prints the entry's text when OK/Return closes it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchFixture, requireDesktop, swayNodes } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';
import { settled, slowA11yConfig, zenityAnswer } from '../support/tools.js';

const desk = await requireDesktop();

describe.skipIf(!desk)('sequence control flow on the real desktop', () => {
  let server: Server;

  beforeAll(async () => {
    server = await startServer(desk!.env, { HYPRUSE_CONFIG: slowA11yConfig(), HYPRUSE_TAKEOVER_MS: '0' });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('ui finds OK, an optional miss goes on, an if skips, and click_ui "$1.elements.0.id" closes zenity with the typed text', async () => {
    const app = await launchFixture('zenity-entry', { workspace: '3' });
    const addr = String(app.conId);
    await settled(server, addr);
    const s = await server.call('sequence', {
      steps: [
        { op: 'ui', window: addr, name: 'OK' },
        { op: 'click_ui', name: 'Frobnicate', window: addr, optional: true },
        { op: 'keyboard', action: 'type', text: 'plan ✓', window: addr, if: { present: { name: 'Cancel', window: addr } } },
        { op: 'keyboard', action: 'type', text: ' NOT', window: addr, if: { absent: { name: 'OK', window: addr } } },
        { op: 'click_ui', id: '$1.elements.0.id' },
      ],
    });
    expect(s.isError, s.text.join('\n')).toBe(false);
    expect(s.text[0]).toBe('sequence: all 5/5 steps ran');
    expect(s.text[2]).toMatch(/^\[2\] click_ui: NOT_FOUND .*\(optional: going on\)$/);
    expect(s.text[4]).toMatch(/^\[4\] keyboard type: skipped \("OK" in \d+ is present/);
    expect(await zenityAnswer(app)).toBe('plan ✓\n');
    expect((await swayNodes()).some((n) => n.id === app.conId)).toBe(false);
  }, 60000);

  it('repeat types until the entry holds "aaa" (3 rounds, bounded), then on_fail presses Return for a missing button', async () => {
    const app = await launchFixture('zenity-entry', { workspace: '3' });
    const addr = String(app.conId);
    await settled(server, addr);
    const s = await server.call('sequence', {
      steps: [
        { op: 'repeat', steps: [{ op: 'keyboard', action: 'type', text: 'a', window: addr }], until: { text_contains: 'aaa', window: addr }, max: 8 },
        { op: 'click_ui', name: 'Frobnicate', window: addr, on_fail: [{ op: 'keyboard', action: 'key', keys: 'Return', window: addr }] },
      ],
    });
    expect(s.isError, s.text.join('\n')).toBe(false);
    expect(s.text).toContain(`[1] repeat: done after 3 round(s) (text "aaa" found (in ${addr}))`);
    expect(await zenityAnswer(app)).toBe('aaa\n');
  }, 60000);
});
