// The malformed-argument set against the real built server and the real CLI
// on the desktop: every case is a usage error (isError "usage:", exit 2), and
// sway confirms nothing happened: the same window focused, the same
// workspaces, no new window, nothing typed into the focused field (zenity
// prints the field on OK), no file created by an injected command.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startServer, type Server } from '../support/server.js';
import { launchFixture, requireDesktop, swayNodes, swaymsg, waitFor, type LaunchedFixture } from '../support/desktop.js';
import { BAD_VERBS, semanticCases } from './fuzz-cases.js';

const desk = await requireDesktop();

async function swayState() {
  const nodes = await swayNodes();
  const workspaces = (await swaymsg<Array<{ name: string; focused: boolean }>>('-t', 'get_workspaces')).map((w) => `${w.name}${w.focused ? '*' : ''}`).sort();
  return { focused: nodes.find((n) => n.focused)?.id ?? null, windows: nodes.filter((n) => n.pid).map((n) => n.id).sort(), workspaces };
}

describe.skipIf(!desk)('malformed arguments against the real server and CLI', () => {
  let srv: Server;
  let app: LaunchedFixture;
  beforeAll(async () => {
    app = await launchFixture('zenity-entry', { workspace: '3' });
    srv = await startServer(desk!.env);
  });
  afterAll(async () => {
    await srv?.close();
  });

  it('every case is a usage error, and sway shows no effect', async () => {
    const before = await swayState();
    const cases = semanticCases().filter((c) => c.args !== null && typeof c.args === 'object' && !Array.isArray(c.args));
    for (const c of cases) {
      const tool = c.tool === 'hypr' ? 'wm' : c.tool;
      if (tool === 'clipboard') continue; // not listed without HYPRUSE_CLIPBOARD
      const r = await srv.call(tool, c.args as Record<string, unknown>);
      expect(r.isError, `${tool} with ${c.why}: ${r.text[0]}`).toBe(true);
      expect(r.text[0], `${tool} with ${c.why}`).toMatch(/^usage: /);
    }
    for (const v of BAD_VERBS.slice(0, 8).concat(BAD_VERBS.slice(11, 13))) {
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', ...desk!.env };
      const r = spawnSync(process.execPath, [BIN, ...v.argv], { env, encoding: 'utf8', timeout: 20000, input: '' });
      expect(r.status, `${v.argv.join(' ')} (${v.why}): ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/^hypruse: usage: /m);
    }
    expect(await swayState()).toEqual(before);
    expect(existsSync('/tmp/hypruse-pwned')).toBe(false);
    // nothing was typed: OK prints the field, which must still be empty
    const node = (await swayNodes()).find((n) => n.pid === app.pid)!;
    const ok = await srv.call('keyboard', { action: 'key', keys: 'Return', window: String(node.id) });
    expect(ok.isError, ok.text.join('\n')).toBe(false);
    await waitFor(async () => !(await swayNodes()).some((n) => n.pid === app.pid), 5000, 'zenity to close on Return');
    expect(readFileSync(app.stdout, 'utf8')).toBe('\n');
  }, 120000);
});
