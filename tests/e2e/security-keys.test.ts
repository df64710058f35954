// The person's own compositor bindings are never run through the keyboard tool, on the real
// sway desktop and through the built MCP server over stdio. The test desktop's sway config
// (tests/desktop/harness.mjs) binds Mod4+Return to `touch bind-fired-super-return && foot`,
// Mod4+Shift+q to kill, and more bindings that each leave a file in the runtime directory
// when they run: judged by those files and sway's own tree, never by hypruse's answer.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { killFixture, requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import { BIN, startServer, type Server } from '../support/server.js';

const desk = await requireDesktop();
const RUN = Math.random().toString(36).slice(2, 8);
const TITLE = `hypruse-keys-${RUN}`;

type Call = Awaited<ReturnType<Server['call']>>;
const codeOf = (r: Call) => ((r.raw as { _meta?: Record<string, { code?: string }> })._meta?.['hypruse/error']?.code ?? null);

/** Files the marked bindings leave behind. */
const fired = () => readdirSync(desk!.env.XDG_RUNTIME_DIR).filter((f) => f.startsWith('bind-fired-'));
/** Windows sway shows (views), by id. */
const views = async () => (await swayNodes()).filter((n) => (n.type === 'con' || n.type === 'floating_con') && n.pid);

function cli(args: string[], extra: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', LANG: 'C.UTF-8', ...desk!.env, ...extra }, timeout: scaledMs(60000), encoding: 'utf8' }, (err, stdout, stderr) =>
      resolve({ code: typeof err?.code === 'number' ? err.code : err ? -1 : 0, stdout, stderr }),
    );
  });
}

describe.skipIf(!desk)("the person's key bindings are out of the keyboard tool's reach", () => {
  let confined: Server;
  let open: Server;
  let dry: Server;
  let addr = '';
  let pid = 0;
  let before: Set<number>;

  beforeAll(async () => {
    for (const f of fired()) throw new Error(`a marked binding already ran before the test: ${f}`);
    [confined, open, dry] = await Promise.all([
      startServer(desk!.env, { HYPRUSE_CONFINE: 'launched', HYPRUSE_LAUNCH_ALLOW: 'zenity', HYPRUSE_TAKEOVER_MS: '0' }),
      startServer(desk!.env, { HYPRUSE_TAKEOVER_MS: '0' }),
      startServer(desk!.env, { HYPRUSE_DRYRUN: '1', HYPRUSE_TAKEOVER_MS: '0' }),
    ]);
    const l = await confined.call('launch', { command: `zenity --entry --title=${TITLE} --text=Name`, workspace: '1' });
    expect(l.isError, l.text.join('\n')).toBe(false);
    addr = String(l.data.address);
    pid = Number(l.data.pid);
    before = new Set((await views()).map((n) => n.id));
  });
  afterAll(async () => {
    await Promise.all([confined, open, dry].map((s) => s?.close()));
    if (pid) await killFixture(pid).catch(() => undefined);
  });

  /** No marked binding ran, no window opened, and the launched window (the kill binding's target) is still there. */
  async function nothingRan(): Promise<void> {
    // what a binding starts needs a moment to show: give it that before looking
    await new Promise((r) => setTimeout(r, scaledMs(1500)));
    expect(fired()).toEqual([]);
    const now = await views();
    expect(now.filter((n) => !before.has(n.id)).map((n) => `${n.app_id} ${n.name}`)).toEqual([]);
    expect(now.some((n) => String(n.id) === addr)).toBe(true);
  }

  const COMBOS = ['super+Return', 'logo+return', 'win+enter', 'Mod4+Return', 'SUPER+RETURN', 'super+shift+Return', 'super+shift+q', 'Mod4+Shift+Q', 'super+ctrl+a'];

  it('under confinement every combination with super is refused, on a window hypruse launched itself', async () => {
    const results: Array<[string, Call]> = [];
    for (const keys of COMBOS) results.push([keys, await confined.call('keyboard', { action: 'key', keys, window: addr })]);
    // a click holding super is no way around it
    const w = (await views()).find((n) => String(n.id) === addr)!;
    const c = await confined.call('pointer', { action: 'click', x: w.rect.x + 20, y: w.rect.y + 20, modifiers: ['super'] });
    await nothingRan();
    for (const [keys, r] of results) {
      expect(r.isError, `${keys}: ${r.text.join(' ')}`).toBe(true);
      expect(r.text[0], keys).toMatch(/^refused: /);
      expect(['refused.modifier', 'refused.bind'], keys).toContain(codeOf(r));
    }
    expect(c.isError).toBe(true);
    expect(codeOf(c)).toBe('refused.modifier');
  });

  it('without confinement every binding is refused as a binding, whatever its spelling (sway Mod4/Mod1/Control, keycode and bare-key bindings)', async () => {
    const results: Array<[string, Call]> = [];
    for (const keys of [...COMBOS, 'ctrl+alt+m', 'Control+Mod1+M', 'alt+ctrl+m', 'Print', 'print', '§']) results.push([keys, await open.call('keyboard', { action: 'key', keys, window: addr })]);
    // typing holds no modifier, but a character bound bare (sway `bindsym section ...`) is a binding too
    results.push(['type "price 5§"', await open.call('keyboard', { action: 'type', text: 'price 5§', window: addr })]);
    await nothingRan();
    for (const [keys, r] of results) {
      expect(r.isError, `${keys}: ${r.text.join(' ')}`).toBe(true);
      expect(codeOf(r), keys).toBe('refused.bind');
      expect(r.text.join(' '), keys).toMatch(/use_bind/);
    }
    // what is not bound still reaches the app
    const ok = await open.call('keyboard', { action: 'key', keys: 'ctrl+a', window: addr });
    expect(ok.isError, ok.text.join(' ')).toBe(false);
  });

  it('sequence steps refuse the same way, and a dry run says refused exactly as the real call would', async () => {
    const s = await confined.call('sequence', { steps: [{ op: 'keyboard', action: 'key', keys: 'super+Return', window: addr }], then: 'none' });
    const s2 = await open.call('sequence', { steps: [{ op: 'keyboard', action: 'key', keys: 'ctrl+alt+m', window: addr }], then: 'none' });
    await nothingRan();
    expect(s.isError).toBe(true);
    expect(s.text.join(' ')).toMatch(/refused/);
    expect(s2.isError).toBe(true);
    expect(s2.text.join(' ')).toMatch(/compositor binding/);
    for (const keys of ['super+Return', 'ctrl+alt+m']) {
      const d = await dry.call('keyboard', { action: 'key', keys, window: addr });
      expect(d.isError, `${keys}: ${d.text.join(' ')}`).toBe(true);
      expect(codeOf(d)).toBe('refused.bind');
      expect(d.text.join(' ')).not.toMatch(/would press/);
    }
  });

  it('unknown key names are usage errors naming the closest keys (MCP isError, CLI exit 2), and nothing is pressed', async () => {
    for (const keys of ['ctrl+nonexistentkey', 'Frobnicate', '\u0000', 'ctrl+\u0007', 'super+Retrun']) {
      const r = await open.call('keyboard', { action: 'key', keys, window: addr });
      expect(r.isError, JSON.stringify(keys)).toBe(true);
      expect(r.text[0], JSON.stringify(keys)).toMatch(/^usage: /);
      expect(codeOf(r)).toBe('usage.combo');
    }
    const near = await open.call('keyboard', { action: 'key', keys: 'super+Retrun' });
    expect(near.text.join(' ')).toMatch(/closest: Return/);
    const c = await cli(['keyboard', 'key', 'Frobnicate']);
    expect(c.code, c.stderr).toBe(2);
    expect(c.stderr + c.stdout).toMatch(/not a key name \(closest: /);
    await nothingRan();
  });

  it('the marked bindings are live: use_bind (the one route to them) runs one, a typed character runs the bare one, so the checks above can fail', async () => {
    const file = join(desk!.env.XDG_RUNTIME_DIR, 'bind-fired-print');
    expect(existsSync(file)).toBe(false);
    const r = await open.call('use_bind', { combo: 'Print' });
    expect(r.isError, r.text.join(' ')).toBe(false);
    await waitFor(() => existsSync(file), scaledMs(5000), 'the Print binding to leave its file');
    rmSync(file, { force: true });
    // and a character typed on another virtual keyboard (wtype) runs the bare `section` binding
    const typed = join(desk!.env.XDG_RUNTIME_DIR, 'bind-fired-section');
    await new Promise<void>((resolve, reject) => execFile('wtype', ['-k', 'section'], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...desk!.env } }, (err) => (err ? reject(err) : resolve())));
    await waitFor(() => existsSync(typed), scaledMs(5000), 'the section binding to leave its file');
    rmSync(typed, { force: true });
  });
});
