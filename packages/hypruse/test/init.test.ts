import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CODEX_TABLE, DESKTOP_ENTRY, hasCodexTable, parseInitFlags, runInit, type InitFlags, type Runner } from '../src/commands/init.js';
import { skillHome } from '../src/commands/skill.js';

const YES: InitFlags = { yes: true, dryRun: false, doctor: false };

interface Home {
  home: string;
  bin: string;
  env: NodeJS.ProcessEnv;
}

/** A fake HOME with an empty PATH directory (no claude, no codex on it). */
function fakeHome(): Home {
  const home = mkdtempSync(join(tmpdir(), 'hypruse-init-home-'));
  const bin = join(home, 'bin');
  mkdirSync(bin);
  return { home, bin, env: { HOME: home, PATH: bin } };
}

/** An executable named `name` on the fake PATH (never run: the runner is faked). */
function fakeTool(h: Home, name: string): void {
  const p = join(h.bin, name);
  writeFileSync(p, '#!/bin/sh\nexit 0\n');
  chmodSync(p, 0o755);
}

async function init(h: Home, flags: InitFlags = YES, run?: Runner, answer?: boolean) {
  const lines: string[] = [];
  const asked: string[] = [];
  const code = await runInit(flags, {
    env: h.env,
    out: (l) => lines.push(l),
    ask: answer === undefined ? null : async (q) => (asked.push(q), answer),
    run,
  });
  return { code, text: lines.join('\n'), asked };
}

const desktopFile = (h: Home) => join(h.home, '.config', 'Claude', 'claude_desktop_config.json');
const codexFile = (h: Home) => join(h.home, '.codex', 'config.toml');
const backups = (file: string) => readdirSync(join(file, '..')).filter((n) => n.startsWith(`${file.split('/').pop()}.bak.`));

describe('hypruse init', () => {
  it('flags: --yes, --dry-run, --no-doctor; anything else is a usage error', () => {
    expect(parseInitFlags(['--yes', '--dry-run', '--no-doctor'])).toEqual({ yes: true, dryRun: true, doctor: false });
    expect(() => parseInitFlags(['--force'])).toThrow(/unknown argument --force/);
  });

  it('Claude Desktop: merges the entry, keeps other servers and keys, backs up, and is idempotent', async () => {
    const h = fakeHome();
    mkdirSync(join(h.home, '.config', 'Claude'), { recursive: true });
    const before = { theme: 'dark', mcpServers: { other: { command: 'other-mcp', args: [] } } };
    writeFileSync(desktopFile(h), JSON.stringify(before));
    const r = await init(h);
    expect(r.code).toBe(0);
    const after = JSON.parse(readFileSync(desktopFile(h), 'utf8'));
    expect(after).toEqual({ theme: 'dark', mcpServers: { other: before.mcpServers.other, hypruse: DESKTOP_ENTRY } });
    expect(after.mcpServers.hypruse).toEqual({ command: 'npx', args: ['-y', 'hypruse'], env: { HYPRUSE_SCREENSHOT_MODE: 'image' } });
    const baks = backups(desktopFile(h));
    expect(baks).toHaveLength(1);
    expect(baks[0]).toMatch(/^claude_desktop_config\.json\.bak\.\d{10}$/);
    expect(JSON.parse(readFileSync(join(h.home, '.config', 'Claude', baks[0]), 'utf8'))).toEqual(before);

    const text = readFileSync(desktopFile(h), 'utf8');
    const again = await init(h);
    expect(again.code).toBe(0);
    expect(again.text).toContain('nothing to change');
    expect(readFileSync(desktopFile(h), 'utf8')).toBe(text);
    expect(backups(desktopFile(h))).toHaveLength(1);
  });

  it('Claude Desktop: creates the file when only the folder exists; nothing when Claude Desktop is absent', async () => {
    const h = fakeHome();
    const r0 = await init(h);
    expect(r0.text).toMatch(/Claude Desktop\s+absent/);
    expect(existsSync(desktopFile(h))).toBe(false);
    mkdirSync(join(h.home, '.config', 'Claude'), { recursive: true });
    await init(h);
    expect(JSON.parse(readFileSync(desktopFile(h), 'utf8'))).toEqual({ mcpServers: { hypruse: DESKTOP_ENTRY } });
  });

  it('never overwrites an existing hypruse entry', async () => {
    const h = fakeHome();
    mkdirSync(join(h.home, '.config', 'Claude'), { recursive: true });
    const mine = { mcpServers: { hypruse: { command: '/opt/hypruse/bin/hypruse', args: [], env: { HYPRUSE_READONLY: '1' } } } };
    writeFileSync(desktopFile(h), JSON.stringify(mine));
    mkdirSync(join(h.home, '.codex'));
    const toml = 'model = "o3"\n\n[mcp_servers.hypruse]\ncommand = "/opt/hypruse/bin/hypruse"\n';
    writeFileSync(codexFile(h), toml);
    const r = await init(h);
    expect(r.code).toBe(0);
    expect(r.text).toMatch(/Claude Desktop\s+present/);
    expect(r.text).toMatch(/Codex\s+present/);
    expect(JSON.parse(readFileSync(desktopFile(h), 'utf8'))).toEqual(mine);
    expect(readFileSync(codexFile(h), 'utf8')).toBe(toml);
    expect(backups(desktopFile(h))).toEqual([]);
    expect(backups(codexFile(h))).toEqual([]);
  });

  it('refuses a Claude Desktop config that is not valid JSON, changes nothing there, exit 1', async () => {
    const h = fakeHome();
    mkdirSync(join(h.home, '.config', 'Claude'), { recursive: true });
    writeFileSync(desktopFile(h), '{ "mcpServers": { ,, }');
    const r = await init(h);
    expect(r.code).toBe(1);
    expect(r.text).toMatch(/Claude Desktop\s+invalid\s+is not valid JSON .*fix it by hand/);
    expect(readFileSync(desktopFile(h), 'utf8')).toBe('{ "mcpServers": { ,, }');
    expect(backups(desktopFile(h))).toEqual([]);
    writeFileSync(desktopFile(h), '{"mcpServers": []}');
    expect((await init(h)).text).toMatch(/"mcpServers" is not an object/);
  });

  it('Codex: appends the table once, with a backup; creates config.toml when codex is on PATH', async () => {
    const h = fakeHome();
    mkdirSync(join(h.home, '.codex'));
    writeFileSync(codexFile(h), 'model = "o3"');
    await init(h);
    const text = readFileSync(codexFile(h), 'utf8');
    expect(text).toBe(`model = "o3"\n\n${CODEX_TABLE}`);
    expect(text).toContain('[mcp_servers.hypruse]\ncommand = "npx"\nargs = ["-y", "hypruse"]\n');
    expect(backups(codexFile(h))).toHaveLength(1);
    await init(h);
    expect(readFileSync(codexFile(h), 'utf8')).toBe(text);
    expect(backups(codexFile(h))).toHaveLength(1);

    const h2 = fakeHome();
    fakeTool(h2, 'codex');
    await init(h2);
    expect(readFileSync(codexFile(h2), 'utf8')).toBe(CODEX_TABLE);
    expect(hasCodexTable('[mcp_servers."hypruse"]')).toBe(true);
    expect(hasCodexTable('[mcp_servers.hypruse-dev]')).toBe(false);
  });

  it('Claude Code: runs claude mcp add once; skips when ~/.claude.json has the server', async () => {
    const h = fakeHome();
    fakeTool(h, 'claude');
    const calls: string[][] = [];
    const run: Runner = async (cmd, args) => {
      calls.push([cmd, ...args]);
      writeFileSync(join(h.home, '.claude.json'), JSON.stringify({ mcpServers: { hypruse: { command: 'npx', args: ['-y', 'hypruse'] } } }));
      return { code: 0, out: 'Added stdio MCP server hypruse' };
    };
    const r = await init(h, YES, run);
    expect(r.code).toBe(0);
    expect(calls).toEqual([[join(h.bin, 'claude'), 'mcp', 'add', '-s', 'user', 'hypruse', '--', 'npx', '-y', 'hypruse']]);
    const again = await init(h, YES, run);
    expect(again.text).toMatch(/Claude Code\s+present/);
    expect(calls).toHaveLength(1);
  });

  it('Claude Code: "already exists" from claude is not a failure; another failure is exit 1', async () => {
    const h = fakeHome();
    fakeTool(h, 'claude');
    expect((await init(h, YES, async () => ({ code: 1, out: 'MCP server hypruse already exists in user config' }))).code).toBe(0);
    const bad = await init(h, YES, async () => ({ code: 1, out: 'boom' }));
    expect(bad.code).toBe(1);
    expect(bad.text).toMatch(/Claude Code: FAILED: .*boom/);
  });

  it('without --yes and without a terminal: shows the plan and changes nothing; --dry-run changes nothing', async () => {
    const h = fakeHome();
    mkdirSync(join(h.home, '.config', 'Claude'), { recursive: true });
    mkdirSync(join(h.home, '.codex'));
    const r = await init(h, { yes: false, dryRun: false, doctor: false });
    expect(r.code).toBe(0);
    expect(r.text).toMatch(/Claude Desktop\s+add/);
    expect(r.text).toMatch(/Codex\s+add/);
    expect(r.text).toContain('nothing changed (not a terminal)');
    const d = await init(h, { yes: true, dryRun: true, doctor: false });
    expect(d.text).toContain('dry run: 2 changes shown, nothing changed');
    expect(existsSync(desktopFile(h))).toBe(false);
    expect(existsSync(codexFile(h))).toBe(false);
    expect(existsSync(skillHome(h.home))).toBe(false);
  });

  it('at a terminal it asks first: "no" changes nothing, "yes" applies and installs the skill', async () => {
    const h = fakeHome();
    mkdirSync(join(h.home, '.codex'));
    const no = await init(h, { yes: false, dryRun: false, doctor: false }, undefined, false);
    expect(no.asked[0]).toMatch(/^Apply this change\?/);
    expect(existsSync(codexFile(h))).toBe(false);
    const yes = await init(h, { yes: false, dryRun: false, doctor: false }, undefined, true);
    expect(yes.asked).toHaveLength(2);
    expect(readFileSync(codexFile(h), 'utf8')).toBe(CODEX_TABLE);
    expect(existsSync(join(skillHome(h.home), 'SKILL.md'))).toBe(true);
  });

  it('--yes installs the agent skill and prints the generic snippet', async () => {
    const h = fakeHome();
    mkdirSync(join(h.home, '.claude'));
    const r = await init(h);
    expect(r.text).toContain('"command": "npx", "args": ["-y", "hypruse"]');
    expect(readFileSync(join(h.home, '.claude', 'skills', 'hypruse', 'SKILL.md'), 'utf8')).toMatch(/^name: hypruse$/m);
    expect((await init(h)).text).toContain(`agent skill: installed at ${skillHome(h.home)}`);
  });
});
