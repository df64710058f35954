// docs/verbs.md documents every verb (tool) and every command, and nothing
// else: a documented verb that does not exist, or an existing one left
// undocumented, fails here. The same holds for every `hypruse <word>` written
// in the docs and the agent skill.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '@hypruse/tools';
import { COMMANDS } from '../../packages/hypruse/src/commands/index.js';

const root = join(import.meta.dirname, '../..');
const read = (f: string) => readFileSync(join(root, f), 'utf8');
const doc = read('docs/verbs.md');

function section(md: string, title: string): string {
  const start = md.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`docs/verbs.md has no "## ${title}" section`);
  const end = md.indexOf('\n## ', start + 1);
  return md.slice(start, end < 0 ? undefined : end);
}

/** `### \`a\`` or `### \`a\` / \`b\`` headings: the names documented. */
function headings(md: string): string[][] {
  return [...md.matchAll(/^### (.+)$/gm)].map((m) => [...m[1].matchAll(/`([a-z_]+)`/g)].map((x) => x[1]));
}

/** Every name a tool answers to: its own and what it is listed as on each compositor. */
function toolNames(): Map<string, string> {
  const names = new Map<string, string>();
  for (const t of ALL_TOOLS) {
    names.set(t.name, t.name);
    for (const c of [null, 'hyprland', 'sway', 'niri']) names.set(t.nameFor ? t.nameFor(c) : t.name, t.name);
  }
  return names;
}

/** Fenced code blocks and inline code spans of a markdown text (prose is not checked). */
function codeOf(md: string): string[] {
  const blocks = [...md.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => m[1]);
  const prose = md.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
  const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
  return [...blocks, ...spans];
}

describe('docs/verbs.md', () => {
  it('documents exactly the tools, each under its own name and aliases', () => {
    const names = toolNames();
    const documented = headings(section(doc, 'Verbs (tools)'));
    for (const group of documented) {
      for (const n of group) expect(names.has(n), `documented verb "${n}" does not exist`).toBe(true);
      expect(new Set(group.map((n) => names.get(n))).size, `one heading is one tool: ${group.join(', ')}`).toBe(1);
    }
    const documentedTools = documented.map((g) => names.get(g[0]));
    expect(documentedTools.sort()).toEqual(ALL_TOOLS.map((t) => t.name).sort());
    // every alias of a tool appears in its heading
    for (const [alias, tool] of names) {
      expect(documented.some((g) => g.includes(alias)), `verb name "${alias}" (tool ${tool}) is undocumented`).toBe(true);
    }
  });

  it('documents exactly the commands', () => {
    const documented = headings(section(doc, 'Commands')).flat();
    expect(documented.sort()).toEqual(COMMANDS.map((c) => c.name).sort());
  });

  it('every `hypruse <word>` in the docs, the README and the skill names an existing verb or command', () => {
    const names = new Set([...toolNames().keys(), ...COMMANDS.map((c) => c.name)]);
    const files = [
      'docs/verbs.md', 'README.md', 'packages/hypruse/skill/SKILL.md',
      ...readdirSync(join(root, 'packages/hypruse/skill/references')).map((f) => `packages/hypruse/skill/references/${f}`),
      ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
    ];
    const unknown: string[] = [];
    for (const f of new Set(files)) {
      for (const code of codeOf(read(f))) {
        for (const m of code.matchAll(/(?:^|[\s(;|&])hypruse ([a-z][a-z_-]*)/gm)) {
          if (!names.has(m[1])) unknown.push(`${f}: hypruse ${m[1]}`);
        }
      }
    }
    expect(unknown).toEqual([]);
  });
});
