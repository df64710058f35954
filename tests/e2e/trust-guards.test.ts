// Trust layers on the real sway desktop: read-only, confinement to what
// hypruse launched, dry run. Effects are verified independently: sway's tree
// and what zenity itself prints when OK is pressed.
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer } from '@hypruse/core/mcp';
import type { HypruseConfig } from '@hypruse/core';
import { createSession, type Session } from 'hypruse';
import { killFixture, launchFixture, requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import { entryLauncher } from '../support/tools.js';

const desk = await requireDesktop();
const RUN = Math.random().toString(36).slice(2, 8);
const ROOT = join(import.meta.dirname, '../..');

/** A real session (real sway, input, AT-SPI, every trust layer) on the test desktop. */
async function desktopSession(env: Record<string, string>, over: Partial<HypruseConfig>): Promise<Session> {
  // what a host passes: its PATH and HOME and the desktop's variables, never copied into process.env
  return createSession({ source: 'mcp', noFile: true, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', LANG: process.env.LANG || 'C.UTF-8', ...env }, overrides: (c) => ({ ...c, ...over }) });
}

/** The hypruse CLI from sources (the same main() the built binary runs), with an explicit environment. */
function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const argv = ['--conditions=@hypruse/source', '--import', 'tsx', join(ROOT, 'packages/hypruse/src/bin.ts'), ...args];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, argv, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', LANG: process.env.LANG || 'C.UTF-8', ...env }, timeout: 60000, encoding: 'utf8', cwd: ROOT }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(new Error(`hypruse ${args.join(' ')}: ${err.message}\n${stderr}`));
      resolve({ code: typeof err?.code === 'number' ? err.code : 0, stdout, stderr });
    });
  });
}

/** A zenity entry launched by hypruse's own launch tool; its answer lands in `out`. */
const ENTRY = entryLauncher();

async function launchEntry(s: Session, title: string, workspace: string): Promise<{ addr: string; out: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'hypruse-trust-'));
  chmodSync(dir, 0o777);
  const out = join(dir, 'zenity.out');
  const r = await s.pipeline.call('launch', { command: ENTRY.command(out, title), workspace });
  return { addr: String(r.data!.address), out };
}

describe.skipIf(!desk)('trust layers on the real desktop', () => {
  const sessions: Session[] = [];
  const fixtures: number[] = [];
  afterAll(async () => {
    for (const s of sessions) await s.dispose();
    for (const pid of fixtures) await killFixture(pid).catch(() => undefined);
  });
  const open = async (over: Parameters<typeof desktopSession>[1]) => {
    const s = await desktopSession(desk!.env, over);
    sessions.push(s);
    return s;
  };

  it('read-only: acting tools are hidden from MCP listings and refused when called anyway (MCP isError, CLI exit 3)', async () => {
    const s = await open({ readonly: true });
    const server = await createMcpServer({ name: 'hypruse', version: 't', pipeline: s.pipeline, config: s.config, compositor: s.compositor.displayName });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'trust-e2e', version: '1' });
    await Promise.all([server.connect(a), client.connect(b)]);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('desktop');
    for (const act of ['keyboard', 'pointer', 'click_ui', 'launch', 'wm']) expect(names).not.toContain(act);
    const r = await client.callTool({ name: 'keyboard', arguments: { action: 'type', text: 'x' } });
    expect(r.isError).toBe(true);
    const text = (r.content as Array<{ text: string }>)[0].text;
    expect(text).toMatch(/^refused: readonly: keyboard acts on the desktop/);
    expect(text).toMatch(/hint: .*HYPRUSE_READONLY=0/);
    expect((r._meta as Record<string, { code: string }>)['hypruse/error'].code).toBe('refused.readonly');
    await client.close();

    const before = (await swayNodes()).filter((n) => n.type === 'con').length;
    const c = await cli(['launch', 'foot'], { ...desk!.env, HYPRUSE_READONLY: '1' });
    expect(c.code).toBe(3);
    expect(c.stderr).toMatch(/^hypruse: refused: readonly: launch acts on the desktop/);
    expect((await swayNodes()).filter((n) => n.type === 'con').length).toBe(before);
  });

  it('confine=launched: typing into the zenity hypruse launched works; a click on a window it did not launch is refused', async () => {
    const s = await open({ confine: ['launched'], launch: { allow: [ENTRY.script] } });
    const unlisted = await s.pipeline.call('launch', { command: 'zenity --info --text=nope' }).catch((err) => err);
    expect(unlisted.code).toBe('refused.confine');
    expect(unlisted.message).toMatch(/"zenity" is not an allowed program/);
    expect(unlisted.hint).toMatch(/launch\.allow/);
    const { addr, out } = await launchEntry(s, `confined ${RUN}`, '2');
    const typed = await s.pipeline.call('keyboard', { action: 'type', text: 'inside', window: addr });
    expect(typed.text[0]).toMatch(/^typed 6 characters/);

    const stranger = await launchFixture('zenity-question', { workspace: '3' });
    fixtures.push(stranger.pid);
    await s.pipeline.call('wm', { action: 'workspace', workspace: '3' }); // switching workspaces is never confined
    const node = (await swayNodes()).find((n) => n.pid === stranger.pid)!;
    const x = node.rect.x + Math.floor(node.rect.width / 2);
    const y = node.rect.y + Math.floor(node.rect.height / 2);
    const e = await s.pipeline.call('pointer', { action: 'click', x, y }).catch((err) => err);
    expect(e.code).toBe('refused.confine');
    expect(e.message).toMatch(new RegExp(`^confine: the point is over ${node.id} \\(zenity`));
    expect(e.hint).toMatch(/launch one to own it/);
    expect((await swayNodes()).some((n) => n.pid === stranger.pid)).toBe(true); // the question was not answered

    const ok = await s.pipeline.call('click_ui', { name: 'OK', window: addr });
    expect(ok.text[0]).toMatch(/^clicked push button 'OK'/);
    await waitFor(() => readFileSync(out, 'utf8').trim() === 'inside', 15000, 'zenity printed the typed text');
  });

  it('dry run: guards run and nothing is delivered (the field is still empty when OK is pressed)', async () => {
    const real = await open({});
    const { addr, out } = await launchEntry(real, `dry ${RUN}`, '2');
    const dry = await open({ dryRun: true });
    const r = await dry.pipeline.call('keyboard', { action: 'type', text: 'ghost', window: addr });
    expect(r.text[0]).toBe(`DRY RUN, nothing was delivered: would type 5 characters into ${addr}`);
    expect(r.data).toMatchObject({ dry_run: true, would: { input: 'keyboard', windows: [addr] } });
    // a guard still refuses in a dry run
    const e = await (await open({ dryRun: true, confine: ['class:nothing-here'] })).pipeline.call('keyboard', { action: 'type', text: 'ghost', window: addr }).catch((err) => err);
    expect(e.code).toBe('refused.confine');
    await real.pipeline.call('click_ui', { name: 'OK', window: addr });
    await waitFor(() => (readFileSync(out, 'utf8').length > 0 ? true : null), 15000, 'zenity answered');
    expect(readFileSync(out, 'utf8')).toBe('\n');
  });
});
