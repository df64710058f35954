import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installSkill, isSkillInstalled, skillHome, skillSourceDir, uninstallSkill } from '../src/commands/skill.js';

const home = () => mkdtempSync(join(tmpdir(), 'hypruse-skill-home-'));
const pkgSkill = join(import.meta.dirname, '../skill');

function frontmatter(text: string): Record<string, string> {
  const fm = text.split(/^---\s*$/m)[1] ?? '';
  const out: Record<string, string> = {};
  for (const m of fm.matchAll(/^([a-z-]+):\s*(.*)$/gm)) out[m[1]] = m[2];
  return out;
}

describe('the agent skill', () => {
  it('skill path is the folder shipped in the package, with SKILL.md and its references', () => {
    expect(skillSourceDir()).toBe(pkgSkill);
    for (const f of ['SKILL.md', 'references/verbs.md', 'references/recipes.md']) expect(existsSync(join(pkgSkill, f)), f).toBe(true);
  });

  it('SKILL.md frontmatter pre-approves only observation verbs, doctor, --help and reading captures', () => {
    const fm = frontmatter(readFileSync(join(pkgSkill, 'SKILL.md'), 'utf8'));
    expect(fm.name).toBe('hypruse');
    expect(fm.description).toBeTruthy();
    const rules = fm['allowed-tools'].split(/\s+(?=[A-Z][a-z]+\()/);
    const verbs = new Set<string>();
    for (const r of rules) {
      const bash = /^Bash\(hypruse (.+)\)$/.exec(r);
      if (bash) {
        const arg = bash[1].replace(/:\*$/, '');
        if (arg === '--help' || arg === '* --help') continue;
        verbs.add(arg);
      } else {
        expect(r, 'only Bash(hypruse ...) and Read of capture files').toMatch(/^Read\(\/\/run\/user\/\*\/hypruse\/\*\*\)$/);
      }
    }
    expect([...verbs].sort()).toEqual(['binds', 'desktop', 'doctor', 'get_text', 'marks', 'screenshot', 'ui', 'wait_for', 'zoom']);
  });

  it('the skill teaches the workflow, coordinates, exit codes and refusal rules', () => {
    const text = readFileSync(join(pkgSkill, 'SKILL.md'), 'utf8');
    expect(text).toContain('global = geometry[:2] + image_pixel / scale');
    for (const code of ['| 0 |', '| 1 |', '| 2 |', '| 3 |', '| 4 |']) expect(text).toContain(code);
    expect(text).toMatch(/Refusals are final/);
    expect(text).toMatch(/`desktop` → `ui` \/ `click_ui` → `screenshot` \/ `zoom` last/);
  });

  it('references/verbs.md is docs/verbs.md (one text, kept in step)', () => {
    expect(readFileSync(join(pkgSkill, 'references/verbs.md'), 'utf8')).toBe(readFileSync(join(import.meta.dirname, '../../../docs/verbs.md'), 'utf8'));
  });

  it('install copies to ~/.agents/skills/hypruse and links into the installed agents only; idempotent', () => {
    const h = home();
    mkdirSync(join(h, '.claude'));
    mkdirSync(join(h, '.codex'));
    const first = installSkill({ home: h });
    expect(first.map((c) => c.action)).toEqual(['copied', 'linked', 'linked']);
    expect(readFileSync(join(skillHome(h), 'SKILL.md'), 'utf8')).toBe(readFileSync(join(pkgSkill, 'SKILL.md'), 'utf8'));
    expect(lstatSync(skillHome(h)).isSymbolicLink()).toBe(false);
    for (const a of ['.claude', '.codex']) {
      const link = join(h, a, 'skills', 'hypruse');
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(readlinkSync(link)).toBe(skillHome(h));
      expect(readFileSync(join(link, 'references', 'recipes.md'), 'utf8')).toContain('# Recipes');
    }
    expect(existsSync(join(h, '.gemini'))).toBe(false);
    const again = installSkill({ home: h });
    expect(again.map((c) => c.action)).toEqual(['copied', 'unchanged', 'unchanged']);
    expect(isSkillInstalled(h)).toBe(true);
  });

  it('--agent links into that agent only (creating its folder); --copy copies instead of linking', () => {
    const h = home();
    mkdirSync(join(h, '.claude'));
    const r = installSkill({ home: h, agent: 'codex', copy: true });
    expect(r.map((c) => [c.action, c.path])).toEqual([
      ['copied', skillHome(h)],
      ['copied', join(h, '.codex', 'skills', 'hypruse')],
    ]);
    expect(lstatSync(join(h, '.codex', 'skills', 'hypruse')).isDirectory()).toBe(true);
    expect(existsSync(join(h, '.claude', 'skills'))).toBe(false);
    expect(() => installSkill({ home: h, agent: 'notepad' })).toThrow(/unknown agent "notepad"; known: claude, codex/);
  });

  it('never replaces something that is not the hypruse skill', () => {
    const h = home();
    const foreign = join(h, '.claude', 'skills', 'hypruse');
    mkdirSync(foreign, { recursive: true });
    writeFileSync(join(foreign, 'SKILL.md'), '---\nname: someone-else\n---\n');
    const r = installSkill({ home: h });
    expect(r[1]).toMatchObject({ action: 'refused', path: foreign });
    expect(readFileSync(join(foreign, 'SKILL.md'), 'utf8')).toContain('someone-else');
    const u = uninstallSkill({ home: h });
    expect(u.find((c) => c.path === foreign)?.action).toBe('refused');
    expect(existsSync(join(foreign, 'SKILL.md'))).toBe(true);

    const h2 = home();
    mkdirSync(skillHome(h2), { recursive: true });
    writeFileSync(join(skillHome(h2), 'notes.txt'), 'mine');
    expect(() => installSkill({ home: h2 })).toThrow(/is not a hypruse skill; hypruse leaves it alone/);
    expect(readFileSync(join(skillHome(h2), 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('uninstall removes the copy and every link or copy it made, and nothing else', () => {
    const h = home();
    mkdirSync(join(h, '.claude'));
    mkdirSync(join(h, '.codex', 'skills', 'other'), { recursive: true });
    installSkill({ home: h });
    installSkill({ home: h, agent: 'gemini', copy: true });
    const r = uninstallSkill({ home: h });
    expect(r.every((c) => c.action === 'removed')).toBe(true);
    expect(r).toHaveLength(4);
    for (const p of [skillHome(h), join(h, '.claude', 'skills', 'hypruse'), join(h, '.codex', 'skills', 'hypruse'), join(h, '.gemini', 'skills', 'hypruse')]) {
      expect(existsSync(p), p).toBe(false);
    }
    expect(existsSync(join(h, '.codex', 'skills', 'other'))).toBe(true);
    expect(uninstallSkill({ home: h })).toEqual([]);
  });
});
