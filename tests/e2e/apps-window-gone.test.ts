// A window that closes while keys are typed into it: the call is an error naming the window that has
// the keys now (or the program's replacement window), never a success with a warning. Real zenity
// dialogs on the desktop, typed into through the MCP server; judged by what zenity printed (its own
// output), and sway's tree (the window gone, the other one focused).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killFixture, launchFixture, requireDesktop, swayNodes, type LaunchedFixture } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';
import { zenityAnswer } from '../support/tools.js';

const desk = await requireDesktop();

describe.skipIf(!desk)('keys typed into a window that closes during the call', () => {
  let server: Server;
  const started: LaunchedFixture[] = [];

  beforeAll(async () => {
    server = await startServer(desk!.env, { HYPRUSE_TAKEOVER_MS: '0' });
  }, 60000);
  afterAll(async () => {
    for (const app of started) await killFixture(app.pid).catch(() => undefined);
    await server?.close();
  });

  async function addressOf(app: LaunchedFixture): Promise<string> {
    const n = (await swayNodes()).find((w) => w.pid === app.pid);
    expect(n, `a window of pid ${app.pid}`).toBeDefined();
    return String(n!.id);
  }

  it('a Return in the middle of the text closes the dialog: error.window_gone naming the window that has the focus now', async () => {
    const question = await launchFixture('zenity-question', { workspace: '1' });
    started.push(question);
    const entry = await launchFixture('zenity-entry', { workspace: '1' });
    started.push(entry);
    const window = await addressOf(entry);
    const other = await addressOf(question);
    const r = await server.call('keyboard', { action: 'type', text: 'abc\ndef', window });
    expect(r.isError, r.text.join('\n')).toBe(true);
    const text = r.text.join('\n');
    expect(JSON.stringify(r.raw)).toContain('error.window_gone');
    expect(text).toMatch(new RegExp(`\\(${window}\\) closed while 7 characters were typed into it`));
    expect(text).toContain(`"hypruse question" (${other}) has the focus now`);
    // zenity itself says it was answered (GTK may still take the keys queued behind the Return before it closes)
    expect(await zenityAnswer(entry)).toMatch(/^abc(def)?\n$/);
    const nodes = await swayNodes();
    expect(nodes.some((n) => String(n.id) === window)).toBe(false);
    expect(nodes.find((n) => n.focused)?.id).toBe(Number(other));
  }, 60000);

  it('a text whose last key is the Return that answers the dialog is a success', async () => {
    const entry = await launchFixture('zenity-entry', { workspace: '1' });
    started.push(entry);
    const window = await addressOf(entry);
    const r = await server.call('keyboard', { action: 'type', text: 'xyz\n', window });
    expect(r.isError, r.text.join('\n')).toBe(false);
    expect(await zenityAnswer(entry)).toBe('xyz\n');
  }, 60000);
});
