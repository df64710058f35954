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
    for (const n of t.aliases ?? []) names.set(n, t.name);
  }
  return names;
}

/** Fenced code blocks and inline code spans of a markdown text (prose is not checked). */
function codeOf(md: string): string[] {
  // a block shown as a file (```ts file=name) is a program's source, checked by its own tests
  const blocks = [...md.matchAll(/^```([^\n]*)\n([\s\S]*?)^```/gm)].filter((m) => !/\bfile=/.test(m[1])).map((m) => m[2]);
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

describe('docs/examples/example-compositor.ts (the worked plugin example of docs/plugins.md)', () => {
  it('loads through loadPlugin, detects, answers over its IPC, and says plainly what it cannot do', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { createServer } = await import('node:net');
    const { loadPlugin } = await import('../../packages/hypruse/src/plugins.js');
    const { Tokens, PLUGIN_API_VERSION } = await import('@hypruse/core');
    const desktop = {
      compositor: 'examplewm', monitors: [{ name: 'X-1', geometry: { x: 0, y: 0, width: 800, height: 600 }, scale: 1, transform: 0, focused: true, activeWorkspace: '1' }],
      workspaces: [{ id: '1', name: '1', monitor: 'X-1', windows: 1, visible: true, focused: true }],
      windows: [{ address: 'w1', class: 'editor', title: 'notes', pid: null, geometry: { x: 0, y: 0, width: 800, height: 600 }, workspace: '1', floating: false, fullscreen: false, visible: true, focused: true }],
      activeWindow: 'w1', activeWorkspace: '1', cursor: null, layers: null,
    };
    const seen: unknown[] = [];
    const sock = join(mkdtempSync(join(tmpdir(), 'hypruse-examplewm-')), 'ipc.sock');
    const server = createServer((c) => {
      c.on('data', (d) => {
        const req = JSON.parse(d.toString().trim());
        seen.push(req);
        const reply = req.cmd === 'version' ? { ok: true, version: '1.0' } : req.cmd === 'desktop' ? { ok: true, desktop } : { ok: true };
        c.end(`${JSON.stringify(reply)}\n`);
      });
    });
    await new Promise<void>((r) => server.listen(sock, r));
    try {
      const plugin = await loadPlugin('./example-compositor.ts', join(root, 'docs/examples'));
      expect(plugin).toMatchObject({ name: 'examplewm', apiVersion: PLUGIN_API_VERSION });
      const registered: Array<[symbol, { useValue: { id: string; detect: Function; create: Function } }]> = [];
      await plugin.register({ register: (t: symbol, p: never) => registered.push([t, p]) } as never, {} as never);
      expect(registered.map(([t]) => t)).toEqual([Tokens.CompositorFactory]);
      const factory = registered[0][1].useValue;
      expect(factory.detect({ env: {}, runtimeDir: null })).toEqual({ ok: false, reason: 'EXAMPLEWM_SOCKET is not set' });
      expect(factory.detect({ env: { EXAMPLEWM_SOCKET: sock }, runtimeDir: null })).toMatchObject({ ok: true });
      const wm = factory.create({ env: { EXAMPLEWM_SOCKET: sock }, runtimeDir: null });
      expect(await wm.version()).toBe('examplewm 1.0');
      expect((await wm.snapshot()).windows[0].title).toBe('notes');
      await wm.focusWindow('w1');
      expect(seen).toEqual([{ cmd: 'version' }, { cmd: 'desktop' }, { cmd: 'focus', address: 'w1' }]);
      // a class from the plugin's own copy of hypruse: checked by shape
      await expect(wm.closeWindow('w1', 1000)).rejects.toMatchObject({ code: 'unsupported.capability', message: "not supported on examplewm: close (examplewm's IPC has no close request)" });
      const dead = factory.create({ env: { EXAMPLEWM_SOCKET: join(sock, '..', 'missing.sock') }, runtimeDir: null });
      await expect(dead.version()).rejects.toMatchObject({ code: 'error.compositor', hint: expect.stringContaining('EXAMPLEWM_SOCKET') });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('docs/plugins.md walk-through', () => {
  it("its files are docs/examples' files, word for word", async () => {
    const { readFileSync } = await import('node:fs');
    const doc = readFileSync(join(root, 'docs/plugins.md'), 'utf8');
    const files = [...doc.matchAll(/^```[a-z]+ file=(\S+)\n([\s\S]*?)^```$/gm)];
    expect(files.length).toBe(3);
    for (const [, name, text] of files) expect(text, name).toBe(readFileSync(join(root, 'docs/examples', name), 'utf8'));
  });
});
