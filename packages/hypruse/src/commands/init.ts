import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { HypruseError, UsageError, errorText, exitCodeFor, toHypruseError } from '@hypruse/core';
import { formatResult, runDoctor, which } from './doctor.js';
import { formatChange, installSkill, isSkillInstalled, skillHome } from './skill.js';
import type { Command } from './types.js';

const USAGE = 'hypruse init [--yes] [--dry-run] [--no-doctor]';
const CLAUDE_CODE_ARGS = ['mcp', 'add', '-s', 'user', 'hypruse', '--', 'npx', '-y', 'hypruse'];
const CLAUDE_TIMEOUT_MS = 20_000;

/** What Claude Desktop gets (it renders inline images, so screenshots come as images). */
export const DESKTOP_ENTRY = { command: 'npx', args: ['-y', 'hypruse'], env: { HYPRUSE_SCREENSHOT_MODE: 'image' } };
export const CODEX_TABLE = '[mcp_servers.hypruse]\ncommand = "npx"\nargs = ["-y", "hypruse"]\n';
export const GENERIC_SNIPPET = '{ "mcpServers": { "hypruse": { "command": "npx", "args": ["-y", "hypruse"] } } }';

export interface InitItem {
  client: string;
  /** add: will change; present: already registered (left as is); absent: client not installed; invalid: cannot be changed safely. */
  status: 'add' | 'present' | 'absent' | 'invalid';
  /** The file or command concerned. */
  target: string;
  /** What would change, or why not. */
  detail: string;
  /** Apply the change; returns what was done. */
  apply?: () => Promise<string>;
}

export interface InitFlags {
  yes: boolean;
  dryRun: boolean;
  doctor: boolean;
}

export function parseInitFlags(argv: string[]): InitFlags {
  const f: InitFlags = { yes: false, dryRun: false, doctor: true };
  for (const a of argv) {
    if (a === '--yes' || a === '-y') f.yes = true;
    else if (a === '--dry-run') f.dryRun = true;
    else if (a === '--no-doctor') f.doctor = false;
    else throw new UsageError(`unknown argument ${a}; usage: ${USAGE}`, { code: 'usage.flag' });
  }
  return f;
}

/** `<file>.bak.<epoch seconds>` (a numbered suffix if that exists already). */
export function backup(file: string, now = Date.now()): string {
  const base = `${file}.bak.${Math.floor(now / 1000)}`;
  let dest = base;
  for (let n = 1; existsSync(dest); n++) dest = `${base}.${n}`;
  copyFileSync(file, dest);
  return dest;
}

/** Write through a temporary sibling and rename, keeping the file's mode. */
function writeAtomic(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  let mode = 0o644;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    /* new file */
  }
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, text, { mode });
  renameSync(tmp, file);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function readJson(file: string): { ok: true; value: Obj } | { ok: false; reason: string } {
  const text = readFileSync(file, 'utf8');
  if (text.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: `is not valid JSON (${(err as Error).message})` };
  }
  if (!isObj(value)) return { ok: false, reason: 'does not hold a JSON object at the top level' };
  if (value.mcpServers !== undefined && !isObj(value.mcpServers)) return { ok: false, reason: '"mcpServers" is not an object' };
  return { ok: true, value };
}

/** Runs a client's own CLI (claude mcp add); replaced in tests. */
export type Runner = (cmd: string, args: string[], env: NodeJS.ProcessEnv) => Promise<{ code: number | null; out: string }>;

export function spawnRunner(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const t = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new HypruseError('error.internal', `${cmd} ${args.join(' ')} did not finish within ${CLAUDE_TIMEOUT_MS / 1000} s`, { hint: `run it yourself: ${cmd} ${args.join(' ')}` }));
    }, CLAUDE_TIMEOUT_MS);
    child.on('error', (err) => {
      clearTimeout(t);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, out: out.trim() });
    });
  });
}

function claudeCode(home: string, env: NodeJS.ProcessEnv, run: Runner): InitItem {
  const client = 'Claude Code';
  const command = `claude ${CLAUDE_CODE_ARGS.join(' ')}`;
  const bin = which('claude', env);
  if (!bin) return { client, status: 'absent', target: 'claude', detail: 'claude is not on PATH' };
  const state = join(home, '.claude.json');
  if (existsSync(state)) {
    const j = readJson(state);
    if (j.ok && isObj(j.value.mcpServers) && j.value.mcpServers.hypruse !== undefined) {
      return { client, status: 'present', target: state, detail: 'a "hypruse" server is already registered (user scope); left as is' };
    }
  }
  return {
    client,
    status: 'add',
    target: bin,
    detail: `run: ${command}`,
    async apply() {
      const r = await run(bin, CLAUDE_CODE_ARGS, env);
      if (r.code === 0) return `registered: ${r.out.split('\n')[0] || command}`;
      if (/already exists/i.test(r.out)) return 'already registered (left as is)';
      throw new HypruseError('error.internal', `${command} failed (exit ${r.code}): ${r.out}`, { hint: 'run the command yourself to see why' });
    },
  };
}

function claudeDesktop(home: string): InitItem {
  const client = 'Claude Desktop';
  const dir = join(home, '.config', 'Claude');
  const file = join(dir, 'claude_desktop_config.json');
  if (!existsSync(dir)) return { client, status: 'absent', target: file, detail: `${dir} does not exist` };
  const entry = JSON.stringify(DESKTOP_ENTRY);
  if (!existsSync(file)) {
    return {
      client,
      status: 'add',
      target: file,
      detail: `create it with mcpServers.hypruse = ${entry}`,
      async apply() {
        writeAtomic(file, `${JSON.stringify({ mcpServers: { hypruse: DESKTOP_ENTRY } }, null, 2)}\n`);
        return `created ${file}`;
      },
    };
  }
  const j = readJson(file);
  if (!j.ok) return { client, status: 'invalid', target: file, detail: `${j.reason}; fix it by hand (hypruse does not touch it)` };
  const servers = (j.value.mcpServers ?? {}) as Obj;
  if (servers.hypruse !== undefined) {
    return { client, status: 'present', target: file, detail: `mcpServers.hypruse exists already (${JSON.stringify(servers.hypruse)}); left as is` };
  }
  return {
    client,
    status: 'add',
    target: file,
    detail: `add mcpServers.hypruse = ${entry} (other entries kept; backup first)`,
    async apply() {
      // Re-read: the file may have changed since the plan was shown.
      const again = readJson(file);
      if (!again.ok) throw new HypruseError('usage.config', `${file} ${again.reason}; not changed`);
      const value = again.value;
      const cur = (value.mcpServers ?? {}) as Obj;
      if (cur.hypruse !== undefined) return 'mcpServers.hypruse appeared meanwhile; left as is';
      const bak = backup(file);
      value.mcpServers = { ...cur, hypruse: DESKTOP_ENTRY };
      writeAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
      return `added mcpServers.hypruse (backup: ${bak})`;
    },
  };
}

/** A `[mcp_servers.hypruse]` table (bare or quoted key) in TOML text. */
export function hasCodexTable(toml: string): boolean {
  return /^\s*\[\s*mcp_servers\s*\.\s*(?:hypruse|"hypruse"|'hypruse')\s*\]/m.test(toml);
}

function codex(home: string, env: NodeJS.ProcessEnv): InitItem {
  const client = 'Codex';
  const dir = join(home, '.codex');
  const file = join(dir, 'config.toml');
  if (!existsSync(dir) && !which('codex', env)) return { client, status: 'absent', target: file, detail: `${dir} does not exist and codex is not on PATH` };
  const text = existsSync(file) ? readFileSync(file, 'utf8') : null;
  if (text !== null && hasCodexTable(text)) return { client, status: 'present', target: file, detail: '[mcp_servers.hypruse] exists already; left as is' };
  return {
    client,
    status: 'add',
    target: file,
    detail: `${text === null ? 'create it with' : 'append (backup first)'}: ${CODEX_TABLE.trim().replace(/\n/g, ' | ')}`,
    async apply() {
      if (text === null) {
        writeAtomic(file, CODEX_TABLE);
        return `created ${file}`;
      }
      const now = readFileSync(file, 'utf8');
      if (hasCodexTable(now)) return '[mcp_servers.hypruse] appeared meanwhile; left as is';
      const bak = backup(file);
      const sep = now === '' ? '' : now.endsWith('\n\n') ? '' : now.endsWith('\n') ? '\n' : '\n\n';
      writeAtomic(file, `${now}${sep}${CODEX_TABLE}`);
      return `appended [mcp_servers.hypruse] (backup: ${bak})`;
    },
  };
}

/** What init would do for each known MCP client, read from the files under `home`. */
export function planInit(home: string, env: NodeJS.ProcessEnv, run: Runner = spawnRunner): InitItem[] {
  return [claudeCode(home, env, run), claudeDesktop(home), codex(home, env)];
}

export function formatItem(i: InitItem): string {
  return `  ${i.client.padEnd(15)} ${i.status.padEnd(8)} ${i.detail}`;
}

async function ask(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

export interface InitIO {
  env: NodeJS.ProcessEnv;
  out(line: string): void;
  /** Ask a yes/no question; null when there is no terminal to ask at. */
  ask: ((question: string) => Promise<boolean>) | null;
  run?: Runner;
}

/**
 * Register hypruse with the MCP clients found under HOME (Claude Code,
 * Claude Desktop, Codex), offer the agent skill, then run doctor. Shows
 * every change first; applies with --yes or after a yes at a terminal;
 * otherwise changes nothing. Never overwrites an existing entry; backs up
 * every file it edits; idempotent. Returns the exit code.
 */
export async function runInit(flags: InitFlags, io: InitIO): Promise<number> {
  const { env, out } = io;
  const home = env.HOME;
  if (!home) throw new UsageError('HOME is not set; init edits the MCP client files under it', { code: 'usage.config' });
  const ask = flags.yes || flags.dryRun ? null : io.ask;

  const items = planInit(home, env, io.run);
  out('MCP clients:');
  for (const i of items) out(formatItem(i));
  out(`  any other stdio client: command "npx", args ["-y", "hypruse"], e.g. ${GENERIC_SNIPPET}`);
  let failed = items.some((i) => i.status === 'invalid');

  const pending = items.filter((i) => i.status === 'add');
  let apply = false;
  if (!pending.length) out('nothing to change: every client found is registered already');
  else if (flags.dryRun) out(`dry run: ${pending.length} change${pending.length === 1 ? '' : 's'} shown, nothing changed`);
  else if (flags.yes) apply = true;
  else if (ask) apply = await ask(`Apply ${pending.length === 1 ? 'this change' : `these ${pending.length} changes`}?`);
  else out('nothing changed (not a terminal): run `hypruse init --yes` to apply');
  if (apply) {
    for (const i of pending) {
      try {
        out(`  ${i.client}: ${await i.apply!()}`);
      } catch (err) {
        failed = true;
        const e = toHypruseError(err);
        out(`  ${i.client}: FAILED: ${e.message}${e.hint ? ` (${e.hint})` : ''}`);
      }
    }
  }

  // the agent skill, for agents that run shell commands
  if (isSkillInstalled(home)) out(`agent skill: installed at ${skillHome(home)} (refresh: hypruse skill install)`);
  else if (flags.dryRun || (!flags.yes && !ask)) out('agent skill: not installed; `hypruse skill install` teaches shell-running agents the verbs');
  else if (flags.yes || (await ask!('Install the agent skill (teaches shell-running agents the hypruse verbs)?'))) {
    try {
      for (const c of installSkill({ home })) out(`  skill ${formatChange(c)}`);
    } catch (err) {
      failed = true;
      out(`  skill: FAILED: ${toHypruseError(err).message}`);
    }
  }

  if (flags.doctor) {
    out('');
    out('hypruse doctor:');
    const report = await runDoctor({ env, onResult: (r) => out(formatResult(r)) });
    out(report.ok ? 'doctor: all checks passed' : 'doctor: some checks failed (see the fixes above)');
  }
  return failed ? 1 : 0;
}

export const initCommand: Command = {
  name: 'init',
  summary: 'register hypruse with the MCP clients found (Claude Code, Claude Desktop, Codex), offer the skill, run doctor',
  usage: USAGE,
  async run(argv) {
    try {
      const flags = parseInitFlags(argv);
      return await runInit(flags, {
        env: process.env,
        out: (s) => process.stdout.write(`${s}\n`),
        ask: process.stdin.isTTY ? ask : null,
      });
    } catch (err) {
      const e = toHypruseError(err);
      process.stderr.write(`hypruse: ${errorText(e)}\n`);
      return exitCodeFor(e.category);
    }
  },
};
