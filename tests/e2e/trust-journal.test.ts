// The journal, replay and stop on the real sway desktop: one record per call
// with typed text redacted and refusals recorded; replay re-types verbatim
// text (zenity prints it) and refuses digest text up front; `hypruse stop`
// ends a running verb through its beacon. The CLI runs from sources, as a
// separate process with an explicit environment.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scaledMs, type HypruseConfig } from '@hypruse/core';
import { createSession, type Session } from 'hypruse';
import { killFixture, launchFixture, requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import { alive, entryLauncher } from '../support/tools.js';
import { startServer } from '../support/server.js';

const desk = await requireDesktop();
const RUN = Math.random().toString(36).slice(2, 8);
const ROOT = join(import.meta.dirname, '../..');
const SRC_BIN = join(ROOT, 'packages/hypruse/src/bin.ts');
const NODE_ARGS = ['--conditions=@hypruse/source', '--import', 'tsx', SRC_BIN];

async function desktopSession(env: Record<string, string>, over: Partial<HypruseConfig>): Promise<Session> {
  // what a host passes: its PATH and HOME and the desktop's variables, never copied into process.env
  return createSession({ source: 'mcp', noFile: true, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', LANG: process.env.LANG || 'C.UTF-8', ...env }, overrides: (c) => ({ ...c, ...over }) });
}

function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...NODE_ARGS, ...args], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', LANG: process.env.LANG || 'C.UTF-8', ...env }, timeout: 60000, encoding: 'utf8', cwd: ROOT }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(new Error(`hypruse ${args.join(' ')}: ${err.message}\n${stderr}`));
      resolve({ code: typeof err?.code === 'number' ? err.code : 0, stdout, stderr });
    });
  });
}

const ENTRY = entryLauncher();
const records = (p: string) => readFileSync(p, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);

describe.skipIf(!desk)('journal, replay and stop on the real desktop', () => {
  const sessions: Session[] = [];
  const fixtures: number[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'hypruse-trust-journal-'));
  chmodSync(dir, 0o777);
  afterAll(async () => {
    for (const s of sessions) await s.dispose();
    for (const pid of fixtures) await killFixture(pid).catch(() => undefined);
  });

  async function entry(s: Session, title: string): Promise<{ addr: string; out: string }> {
    const out = join(dir, `${title.replace(/\W/g, '_')}.out`);
    const r = await s.pipeline.call('launch', { command: ENTRY.command(out, title), workspace: '2' });
    return { addr: String(r.data!.address), out };
  }

  it('one line per call: text redacted, refusals recorded, nothing the agent saw; the reader summarizes it', async () => {
    const path = join(dir, 'redacted', 'journal.ndjson');
    const s = await desktopSession(desk!.env, { confine: ['launched'], launch: { allow: [ENTRY.script] }, journal: { path, text: false, maxBytes: 0 } });
    sessions.push(s);
    await s.pipeline.call('desktop', {});
    const { addr, out } = await entry(s, `journal ${RUN}`);
    const typed = await s.pipeline.call('keyboard', { action: 'type', text: 'secret words', window: addr });
    expect(typed.text[0]).toMatch(/\(verified\)/);
    const stranger = await launchFixture('zenity-question', { workspace: '1' });
    fixtures.push(stranger.pid);
    const node = (await swayNodes()).find((n) => n.pid === stranger.pid)!;
    const refused = await s.pipeline.call('pointer', { action: 'click', x: node.rect.x + 20, y: node.rect.y + 20 }).catch((e) => e);
    expect(refused.code).toBe('refused.confine');
    await s.pipeline.call('click_ui', { name: 'OK', window: addr });
    await waitFor(() => readFileSync(out, 'utf8').trim() !== '', 15000, 'zenity printed the text');
    expect(readFileSync(out, 'utf8').trim()).toBe('secret words');

    const rs = records(path);
    // desktop, launch, keyboard, refused pointer, click_ui and its nested pointer click
    expect(rs.map((r) => [r.tool, r.kind, r.outcome])).toEqual(expect.arrayContaining([
      ['desktop', 'observe', 'ok'], ['launch', 'act', 'ok'], ['keyboard', 'act', 'ok'], ['pointer', 'act', 'refused'], ['click_ui', 'act', 'ok'], ['pointer', 'act', 'ok'],
    ]));
    expect(rs).toHaveLength(6);
    expect(new Set(rs.map((r) => r.seq)).size).toBe(6);
    const kb = rs.find((r) => r.tool === 'keyboard')!;
    expect(kb.args.text).toMatchObject({ redacted: true, chars: 12 });
    expect(kb.args.text.sha256).toMatch(/^[0-9a-f]{12}$/);
    expect(readFileSync(path, 'utf8')).not.toContain('secret words');
    const no = rs.find((r) => r.outcome === 'refused')!;
    expect(no).toMatchObject({ code: 'refused.confine' });
    expect(no.error).toMatch(/^TrustError: confine: the point is over/);
    const nested = rs.find((r) => r.tool === 'pointer' && r.outcome === 'ok')!;
    expect(nested.parent).toBe(rs.find((r) => r.tool === 'click_ui')!.seq);
    expect(rs.find((r) => r.tool === 'desktop')!.result).toBeUndefined();

    const read = await cli(['journal', path], desk!.env);
    expect(read.code).toBe(0);
    expect(read.stdout.trim().split('\n').at(-1)).toBe(`${path}: 4 actions (0 dry), 1 observation, 1 refusal, 0 errors`);
    const only = await cli(['journal', '--refused', path], desk!.env);
    expect(only.stdout, `exit ${only.code}: ${only.stderr}`).toMatch(/pointer\s+refused/);
    expect(only.stdout.trim().split('\n')).toHaveLength(2);

    // replay refuses digest-recorded text up front, and types nothing
    const rp = await cli(['replay', path, '--execute', '--yes', '--skip-missing'], { ...desk!.env, HYPRUSE_JOURNAL: path });
    expect(rp.code).toBe(3);
    expect(rp.stderr).toMatch(/^hypruse: refused: replay: .*recorded as a digest/m);
    expect(records(path).some((r) => r.by === 'replay')).toBe(false);
  });

  it('replay re-types verbatim-recorded text into the still-open window, plan-only first', async () => {
    const path = join(dir, 'verbatim', 'journal.ndjson');
    // replay types from its own process between this session's calls: to this session that is another
    // client on the seat, which the takeover pause would rightly wait out (tested in trust-presence)
    const s = await desktopSession(desk!.env, { journal: { path, text: true, maxBytes: 0 }, takeoverMs: 0 });
    sessions.push(s);
    const { addr, out } = await entry(s, `replay ${RUN}`);
    await s.pipeline.call('keyboard', { action: 'type', text: 'again ✓', window: addr });
    const seq = records(path).find((r) => r.tool === 'keyboard')!.seq as number;
    expect(records(path).find((r) => r.tool === 'keyboard')!.args.text).toBe('again ✓');

    const plan = await cli(['replay', path, '--from', String(seq), '--to', String(seq)], { ...desk!.env, HYPRUSE_JOURNAL: path });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(new RegExp(`^replay plan: 1 action from .*\\n  #${seq}  \\+0\\.0s  keyboard \\{"action":"type","text":"again ✓","window":"${addr}"\\}`));
    expect(plan.stdout).toMatch(/plan only: nothing was delivered/);

    const run = await cli(['replay', path, '--execute', '--yes', '--from', String(seq), '--to', String(seq)], { ...desk!.env, HYPRUSE_JOURNAL: path, HYPRUSE_JOURNAL_TEXT: '1' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/replay \[1\/1\] #\d+ keyboard/);
    expect(run.stdout).toMatch(/replayed 1 action/);
    const mine = records(path).filter((r) => r.by === 'replay');
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ tool: 'keyboard', outcome: 'ok' });

    // a second replay of the whole journal does not double: replay's own entry is not replayable
    const again = await cli(['replay', path], { ...desk!.env });
    expect(again.stdout).toMatch(/skip #\d+: it was itself a replay/);

    await s.pipeline.call('click_ui', { name: 'OK', window: addr });
    await waitFor(() => readFileSync(out, 'utf8').trim() === 'again ✓again ✓', 15000, 'zenity printed the text typed twice');
  });

  it('hypruse stop ends every hypruse process of the seat, an MCP server and a running verb, through their beacons (and Waybar saw them)', async () => {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', ...desk!.env };
    const beacons = join(desk!.env.XDG_RUNTIME_DIR, 'hypruse', 'beacons');
    const beaconOf = (pid: number | null | undefined) => {
      try {
        return JSON.parse(readFileSync(join(beacons, `${pid}.json`), 'utf8')) as Record<string, any>;
      } catch {
        return null;
      }
    };
    // the sessions of the tests above run inside this test process, which has a beacon too: stop would end it with the rest
    for (const s of sessions.splice(0)) await s.dispose();
    rmSync(join(beacons, `${process.pid}.json`), { force: true });
    const server = await startServer(desk!.env);
    const serverPid = server.pid!;
    await server.call('desktop', {}); // a server that has served a call, then idles
    const child = spawn(process.execPath, [...NODE_ARGS, 'wait_for', 'window_open', `never-${RUN}`, '--timeout-s', '30'], { env, cwd: ROOT, stdio: 'ignore' });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await waitFor(() => beaconOf(child.pid)?.state === 'active', scaledMs(15000), 'the verb wrote its beacon');
    // a beacon left by a process that is gone is ignored, and cleaned
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(join(beacons, `${dead}.json`), JSON.stringify({ v: 1, pid: dead, started: 1, state: 'active', tool: 'x', action: 'x', since: 1, mode: {} }));
    expect(beaconOf(serverPid)).toMatchObject({ pid: serverPid, state: 'idle', mode: { source: 'mcp' } });
    const bar = await new Promise<string>((resolve, reject) =>
      execFile(join(ROOT, 'contrib/waybar/hypruse-status.sh'), { env, encoding: 'utf8', timeout: 5000 }, (err, out) => (err ? reject(err) : resolve(out))));
    const shown = JSON.parse(bar);
    expect(shown).toMatchObject({ class: 'active', tooltip: expect.stringContaining('wait_for:window_open') });
    expect(shown.tooltip).toContain(`pid ${serverPid} (mcp)`);

    const t0 = Date.now();
    const stop = await cli(['stop'], desk!.env);
    expect(stop.code, stop.stderr).toBe(0);
    const lines = stop.stdout.trim().split('\n');
    expect(lines.slice(0, 2).sort()).toEqual([
      `stopped hypruse (pid ${child.pid}, cli) while it was running wait_for:window_open`,
      `stopped hypruse (pid ${serverPid}, mcp)`,
    ].sort());
    // processes of earlier tests that were killed may have left beacons too: all stale ones go
    expect(lines[2]).toMatch(new RegExp(`^\\(removed \\d+ stale beacons? of pid (\\d+, )*${dead}(, \\d+)*\\)$`));
    expect(lines).toHaveLength(3);
    expect(await exited).not.toBeNull();
    await waitFor(() => !alive(serverPid), scaledMs(5000), 'the server to exit');
    expect(Date.now() - t0).toBeLessThan(scaledMs(5000));
    for (const pid of [child.pid, serverPid, dead]) expect(existsSync(join(beacons, `${pid}.json`))).toBe(false);
    const none = await cli(['stop'], desk!.env);
    expect(none.stdout).toBe('no active hypruse session\n');
    const idle = await new Promise<string>((resolve) => execFile(join(ROOT, 'contrib/waybar/hypruse-status.sh'), { env, encoding: 'utf8' }, (_e, out) => resolve(out)));
    expect(JSON.parse(idle)).toMatchObject({ class: 'off', text: '' });
  });
});
