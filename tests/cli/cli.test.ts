import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ALL_TOOLS } from '@hypruse/tools';
import { BIN } from '../support/server.js';

/** An environment with no compositor session at all (what a misconfigured host gives). */
function bareEnv(extra: Record<string, string> = {}): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), 'hypruse-cli-home-'));
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, XDG_RUNTIME_DIR: mkdtempSync(join(tmpdir(), 'hypruse-cli-run-')), ...extra };
}

function run(args: string[], env = bareEnv(), input?: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], { env, input: input ?? '', encoding: 'utf8', timeout: 20000, cwd: env.HOME });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('the shell verbs', () => {
  it('--help lists every verb and command and exits 0 without starting the server', () => {
    const r = run(['--help']);
    expect(r.code).toBe(0);
    for (const t of ALL_TOOLS) expect(r.out).toMatch(new RegExp(`^  ${t.name === 'hypr' ? 'hypr' : t.name}\\s`, 'm'));
    expect(r.out).toMatch(/^  serve\s/m);
    expect(r.out).toMatch(/^  config\s/m);
    expect(run(['--version']).out).toMatch(/^hypruse \d+\.\d+\.\d+\n$/);
  });

  it('per-verb --help is generated from the schema', () => {
    const r = run(['pointer', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('hypruse pointer <action> [x] [y]');
    expect(r.out).toMatch(/--button\s+left\|right\|middle\|back\|forward/);
    expect(r.out).toContain('--scroll-dy');
  });

  it('bad arguments are exit 2 with the field, what was given and what is accepted', () => {
    const r = run(['pointer', 'click', '--x', '10']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^hypruse: usage: .*x and y must be given together/m);
    const r2 = run(['pointer', 'wiggle']);
    expect(r2.code).toBe(2);
    expect(r2.err).toMatch(/action/);
    const r3 = run(['pointer', 'click', '--colour', 'red']);
    expect(r3.code).toBe(2);
    expect(r3.err).toMatch(/unknown flag --colour/);
    expect(run(['frobnicate']).code).toBe(2);
  });

  it('checks a verb\'s arguments before loading the configuration or reaching a compositor', () => {
    // a bad config variable would be exit 2 naming it (below): the argument error comes first
    const r = run(['pointer', 'wiggle'], bareEnv({ HYPRUSE_SCREENSHOT_MODE: 'video' }));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^hypruse: usage: pointer: action: /m);
    expect(r.err).not.toContain('HYPRUSE_SCREENSHOT_MODE');
    const json = run(['zoom', '--x', 'left', '--json'], bareEnv({ HYPRUSE_SCREENSHOT_MODE: 'video' }));
    expect(json.code).toBe(2);
    expect(JSON.parse(json.out.trim())).toMatchObject({ ok: false, tool: 'zoom', error: { category: 'usage' } });
  });

  it('a bad config variable is exit 2 naming it', () => {
    const r = run(['desktop'], bareEnv({ HYPRUSE_SCREENSHOT_MODE: 'video' }));
    expect(r.code).toBe(2);
    expect(r.err).toContain('HYPRUSE_SCREENSHOT_MODE');
    expect(r.err).toContain('file, image');
  });

  it('no compositor is one clear error (exit 1) listing why each plugin declined', () => {
    const r = run(['desktop']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/unsupported: no supported compositor found \(hyprland: .*; sway: .*; niri: .*\)/);
  });

  it('read-only refuses acting verbs with exit 3', () => {
    const r = run(['keyboard', 'type', 'hello'], bareEnv({ HYPRUSE_READONLY: '1' }));
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/^hypruse: refused: /m);
  });

  it('--json prints one line with ok and the error', () => {
    const r = run(['desktop', '--json']);
    const line = JSON.parse(r.out.trim());
    expect(line).toMatchObject({ ok: false, tool: 'desktop', error: { category: 'unsupported', code: 'unsupported.compositor' } });
  });

  it('config shows the effective values and their sources', () => {
    const r = run(['config'], bareEnv({ HYPRUSE_STRICT: 'yes' }));
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^strict\s+true\s+\(env:HYPRUSE_STRICT\)$/m);
    expect(r.out).toMatch(/^screenshot\.mode\s+"file"\s+\(default\)$/m);
  });
});

describe('the MCP server over real stdio', () => {
  const INIT = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cli-test', version: '1' } } })}\n`;

  it('a bad config variable refuses to start (exit 2) before initialize is answered', () => {
    const r = run([], bareEnv({ HYPRUSE_SCREENSHOT_MODE: 'video' }), INIT);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain('HYPRUSE_SCREENSHOT_MODE');
  });

  it('the early initialize reply follows HYPRUSE_READONLY and a config file alike', () => {
    const instructions = (r: { out: string }) => String((JSON.parse(r.out.split('\n')[0]) as { result: { instructions: string } }).result.instructions);
    expect(instructions(run([], bareEnv({ HYPRUSE_READONLY: '1' }), INIT))).toMatch(/This session is read-only/);
    const env = bareEnv();
    writeFileSync(join(env.HOME, 'hypruse.config.json'), JSON.stringify({ readonly: true }));
    expect(instructions(run([], env, INIT))).toMatch(/This session is read-only/);
    expect(instructions(run([], bareEnv(), INIT))).not.toMatch(/This session is read-only/);
  });

  it('initializes, lists the tools with schemas and annotations, and returns typed errors', async () => {
    const env = bareEnv();
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN], env, stderr: 'pipe' });
    const client = new Client({ name: 'cli-test', version: '1' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBe('hypruse');
      const { tools } = await client.listTools();
      expect(tools.length).toBe(19);
      const desktop = tools.find((t) => t.name === 'desktop')!;
      expect(desktop.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      const r = await client.callTool({ name: 'desktop', arguments: {} });
      expect(r.isError).toBe(true);
      expect((r.content as Array<{ text: string }>)[0].text).toMatch(/^unsupported: no supported compositor found/);
      const bad = await client.callTool({ name: 'zoom', arguments: { x: 'left' } });
      expect(bad.isError).toBe(true);
      expect((bad.content as Array<{ text: string }>)[0].text).toMatch(/^usage: zoom: x: /);
    } finally {
      await client.close();
    }
  });
});
