import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HypruseError, UsageError, errorText, exitCodeFor, toHypruseError } from '@hypruse/core';
import type { Command } from './types.js';

const USAGE = 'hypruse skill install [--agent NAME] [--copy] | hypruse skill uninstall | hypruse skill path';

/** Agents whose skill folder hypruse links into, when the agent's own folder exists under HOME. */
export const SKILL_AGENTS: ReadonlyArray<{ name: string; label: string; home: string; skills: string }> = [
  { name: 'claude', label: 'Claude Code', home: '.claude', skills: '.claude/skills' },
  { name: 'codex', label: 'Codex', home: '.codex', skills: '.codex/skills' },
  { name: 'gemini', label: 'Gemini CLI', home: '.gemini', skills: '.gemini/skills' },
  { name: 'opencode', label: 'OpenCode', home: '.config/opencode', skills: '.config/opencode/skills' },
  { name: 'cursor', label: 'Cursor', home: '.cursor', skills: '.cursor/skills' },
  { name: 'copilot', label: 'GitHub Copilot CLI', home: '.copilot', skills: '.copilot/skills' },
];

/** The folder shipped in the package: `skill/` beside `src/` or `dist/`. */
export function skillSourceDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'skill');
    if (existsSync(join(candidate, 'SKILL.md'))) return candidate;
    dir = dirname(dir);
  }
  throw new HypruseError('error.internal', 'the agent skill is missing from this installation (no skill/SKILL.md beside the package)', {
    hint: 'reinstall hypruse (the npm package ships skill/)',
  });
}

/** `~/.agents/skills/hypruse`: the installed copy every agent links to. */
export function skillHome(home: string): string {
  return join(home, '.agents', 'skills', 'hypruse');
}

function homeOf(env: NodeJS.ProcessEnv): string {
  const h = env.HOME;
  if (!h) throw new UsageError('HOME is not set; the skill is installed under $HOME/.agents/skills', { code: 'usage.config' });
  return h;
}

function lstat(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

/** A folder that holds our skill (a SKILL.md whose frontmatter says `name: hypruse`). */
function isOurCopy(p: string): boolean {
  try {
    return /^name:\s*hypruse\s*$/m.test(readFileSync(join(p, 'SKILL.md'), 'utf8').split(/^---\s*$/m)[1] ?? '');
  } catch {
    return false;
  }
}

function isLinkTo(p: string, target: string): boolean {
  const st = lstat(p);
  if (!st?.isSymbolicLink()) return false;
  return resolve(dirname(p), readlinkSync(p)) === resolve(target);
}

/** Whether `~/.agents/skills/hypruse` holds our skill. */
export function isSkillInstalled(home: string): boolean {
  return isOurCopy(skillHome(home));
}

export interface SkillChange {
  path: string;
  action: 'copied' | 'linked' | 'unchanged' | 'removed' | 'refused';
  note?: string;
}

/** Replace `dest` by a fresh copy of `src` (through a temporary sibling, so a failure leaves the old copy). */
function copyFresh(src: string, dest: string): void {
  mkdirSync(dirname(dest), { recursive: true });
  const tmp = `${dest}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  cpSync(src, tmp, { recursive: true, dereference: true });
  rmSync(dest, { recursive: true, force: true });
  renameSync(tmp, dest);
}

/**
 * Install the skill: a copy at `~/.agents/skills/hypruse` (refreshed on every
 * install), then, in each installed agent's skill folder (or only `agent`), a
 * symlink to it (a copy with `copy`). Never replaces a folder or link that is
 * not ours. Idempotent.
 */
export function installSkill(opts: { home: string; agent?: string; copy?: boolean; source?: string }): SkillChange[] {
  const source = opts.source ?? skillSourceDir();
  const canonical = skillHome(opts.home);
  const out: SkillChange[] = [];
  const st = lstat(canonical);
  if (st && !(st.isDirectory() && isOurCopy(canonical)) && !st.isSymbolicLink()) {
    throw new HypruseError('error.internal', `${canonical} exists and is not a hypruse skill; hypruse leaves it alone`, {
      hint: 'move it away, then run hypruse skill install again',
    });
  }
  copyFresh(source, canonical);
  out.push({ path: canonical, action: 'copied' });

  let agents = SKILL_AGENTS.filter((a) => existsSync(join(opts.home, a.home)));
  if (opts.agent !== undefined) {
    const a = SKILL_AGENTS.find((x) => x.name === opts.agent);
    if (!a) throw new UsageError(`unknown agent "${opts.agent}"; known: ${SKILL_AGENTS.map((x) => x.name).join(', ')}`, { code: 'usage.flag' });
    agents = [a];
  }
  for (const a of agents) {
    const dest = join(opts.home, a.skills, 'hypruse');
    const d = lstat(dest);
    if (d && !isLinkTo(dest, canonical) && !(d.isDirectory() && isOurCopy(dest))) {
      out.push({ path: dest, action: 'refused', note: `${a.label}: something else is already there; left alone` });
      continue;
    }
    if (opts.copy) {
      if (d?.isSymbolicLink()) rmSync(dest);
      copyFresh(canonical, dest);
      out.push({ path: dest, action: 'copied', note: a.label });
    } else if (d && isLinkTo(dest, canonical)) {
      out.push({ path: dest, action: 'unchanged', note: `${a.label}: already linked` });
    } else {
      if (d) rmSync(dest, { recursive: true, force: true }); // our earlier copy, replaced by a link
      mkdirSync(dirname(dest), { recursive: true });
      symlinkSync(canonical, dest, 'dir');
      out.push({ path: dest, action: 'linked', note: a.label });
    }
  }
  return out;
}

/** Remove the installed copy and every agent link or copy of it; leaves anything that is not ours. */
export function uninstallSkill(opts: { home: string }): SkillChange[] {
  const canonical = skillHome(opts.home);
  const out: SkillChange[] = [];
  for (const a of SKILL_AGENTS) {
    const dest = join(opts.home, a.skills, 'hypruse');
    const d = lstat(dest);
    if (!d) continue;
    if (isLinkTo(dest, canonical) || (d.isDirectory() && isOurCopy(dest))) {
      rmSync(dest, { recursive: true, force: true });
      out.push({ path: dest, action: 'removed', note: a.label });
    } else {
      out.push({ path: dest, action: 'refused', note: `${a.label}: not a hypruse skill; left alone` });
    }
  }
  const c = lstat(canonical);
  if (c && (c.isSymbolicLink() || isOurCopy(canonical))) {
    rmSync(canonical, { recursive: true, force: true });
    out.push({ path: canonical, action: 'removed' });
  } else if (c) {
    out.push({ path: canonical, action: 'refused', note: 'not a hypruse skill; left alone' });
  }
  return out;
}

export function formatChange(c: SkillChange): string {
  return `${c.action.padEnd(9)} ${c.path}${c.note ? `  (${c.note})` : ''}`;
}

function parseInstallFlags(argv: string[]): { agent?: string; copy: boolean } {
  const f: { agent?: string; copy: boolean } = { copy: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--copy') f.copy = true;
    else if (a === '--agent' || a.startsWith('--agent=')) {
      const v = a === '--agent' ? argv[++i] : a.slice('--agent='.length);
      if (!v) throw new UsageError(`--agent needs a name (${SKILL_AGENTS.map((x) => x.name).join(', ')}); usage: ${USAGE}`, { code: 'usage.flag' });
      f.agent = v;
    } else throw new UsageError(`unknown argument ${a}; usage: ${USAGE}`, { code: 'usage.flag' });
  }
  return f;
}

export const skillCommand: Command = {
  name: 'skill',
  summary: 'install, remove or locate the agent skill (SKILL.md teaching the verbs) for shell-running agents',
  usage: USAGE,
  async run(argv) {
    const [sub, ...rest] = argv;
    try {
      switch (sub) {
        case 'path':
          if (rest.length) throw new UsageError(`skill path takes no arguments; usage: ${USAGE}`, { code: 'usage.flag' });
          process.stdout.write(`${skillSourceDir()}\n`);
          return 0;
        case 'install': {
          const f = parseInstallFlags(rest);
          const changes = installSkill({ home: homeOf(process.env), agent: f.agent, copy: f.copy });
          for (const c of changes) process.stdout.write(`${formatChange(c)}\n`);
          if (changes.length === 1) process.stdout.write(`no agent folder found under ${homeOf(process.env)} (${SKILL_AGENTS.map((a) => `~/${a.home}`).join(', ')}); link it yourself or use --agent NAME\n`);
          return changes.some((c) => c.action === 'refused') ? 1 : 0;
        }
        case 'uninstall': {
          if (rest.length) throw new UsageError(`skill uninstall takes no arguments; usage: ${USAGE}`, { code: 'usage.flag' });
          const changes = uninstallSkill({ home: homeOf(process.env) });
          if (!changes.length) process.stdout.write('the skill is not installed\n');
          for (const c of changes) process.stdout.write(`${formatChange(c)}\n`);
          return changes.some((c) => c.action === 'refused') ? 1 : 0;
        }
        default:
          throw new UsageError(`${sub === undefined ? 'name a sub-command' : `unknown sub-command ${sub}`}; usage: ${USAGE}`, { code: 'usage.verb' });
      }
    } catch (err) {
      const e = toHypruseError(err);
      process.stderr.write(`hypruse: ${errorText(e)}\n`);
      return exitCodeFor(e.category);
    }
  },
};
