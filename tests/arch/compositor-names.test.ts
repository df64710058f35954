import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '@hypruse/core';
import { ALL_TOOLS } from '@hypruse/tools';
import { HYPRLAND_MANIFEST, HyprlandCompositorFactory } from '@hypruse/compositor-hyprland';
import { SWAY_MANIFEST, SwayCompositorFactory } from '@hypruse/compositor-sway';
import { NIRI_MANIFEST, NiriCompositorFactory } from '@hypruse/compositor-niri';

/**
 * No compositor name outside its plugin. The rule, precisely:
 *
 * - Scope: every `.ts`/`.mjs` file under `packages/<pkg>/src` and
 *   `packages/<pkg>/scripts` of every package that is not a compositor plugin
 *   (`compositor-*`). A plugin package may name any compositor (its own).
 * - What counts is code: identifiers, string, template and regex literals.
 *   Comments are removed first: a comment may say where a behaviour was
 *   measured ("sway 1.7 under load 17") or give an example; it changes nothing
 *   the program does.
 * - A name is a word of the code: runs of letters and digits, camelCase and
 *   SCREAMING_CASE split into words, compared case-insensitively against
 *   COMPOSITOR_WORDS (so `HyprlandCompositor`, `SWAYSOCK`, `'niri'` and
 *   `nameFor('sway')` all count; `swaylock` or `swaybg`, programs that are not
 *   compositors, do not).
 * - Allowed: a string literal that is a Wayland interface name
 *   (`zwlr_virtual_pointer_manager_v1`, `hyprland_toplevel_export_manager_v1`):
 *   it names a protocol, which any compositor may offer, and the wire client
 *   binds it by that name. And the distribution's list of built-in plugins
 *   (ALLOWED_FILES), the one place that imports them.
 */
export const COMPOSITOR_WORDS = [
  'hyprland', 'hyprctl', 'sway', 'swaysock', 'swaymsg', 'i3sock', 'niri', 'labwc', 'wlroots', 'wlr', 'river', 'wayfire', 'dwl', 'cage', 'weston',
];
const ALLOWED_FILES: Record<string, string> = {
  'packages/hypruse/src/builtin.ts': 'the distribution registers the built-in plugins: it imports each by its package name',
};

const root = join(import.meta.dirname, '../..');

function files(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'dist') continue;
    if (statSync(p).isDirectory()) out.push(...files(p));
    else if (/\.(ts|mts|mjs|js)$/.test(name) && !/\.d\.ts$/.test(name)) out.push(p);
  }
  return out;
}

const INTERFACE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*_v\d+$/;

/**
 * The code of a file: its identifiers and its string, template and regex
 * literals, read by the TypeScript parser (comments are never nodes), with
 * string literals that are Wayland interface names left out.
 */
export function codeOf(text: string): string {
  const sf = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n) || ts.isPrivateIdentifier(n)) out.push(n.text);
    else if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) {
      if (!INTERFACE.test(n.text)) out.push(n.text);
    } else if (ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n)) out.push(n.text);
    else if (ts.isRegularExpressionLiteral(n)) out.push(n.text);
    else if (ts.isJsxText(n)) out.push(n.text);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out.join(' ');
}

/** The words of code: letter/digit runs, camelCase split. */
export function wordsOf(code: string): string[] {
  const out: string[] = [];
  for (const run of code.match(/[A-Za-z0-9]+/g) ?? []) {
    for (const w of run.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) ?? []) out.push(w.toLowerCase());
  }
  return out;
}

export function compositorNamesIn(text: string): string[] {
  const words = new Set(wordsOf(codeOf(text)));
  return COMPOSITOR_WORDS.filter((w) => words.has(w));
}

describe('no compositor name outside its plugin', () => {
  it('the rule finds names in code and not in comments or protocol names', () => {
    expect(compositorNamesIn("if (x instanceof HyprlandCompositor) {}")).toEqual(['hyprland']);
    expect(compositorNamesIn("const s = env.SWAYSOCK ?? env.NIRI_SOCKET;")).toEqual(['swaysock', 'niri']);
    expect(compositorNamesIn("t.nameFor?.('sway')")).toEqual(['sway']);
    expect(compositorNamesIn("const re = /^labwc$/;")).toEqual(['labwc']);
    expect(compositorNamesIn('const m = `run ${x} in a wlroots session`;')).toEqual(['wlroots']);
    expect(compositorNamesIn("// measured on sway 1.7\n/* Hyprland */ const a = 1;")).toEqual([]);
    expect(compositorNamesIn("bind('zwlr_virtual_pointer_manager_v1'); find('hyprland_toplevel_export_manager_v1')")).toEqual([]);
    expect(compositorNamesIn("const lockers = ['swaylock', 'hyprlock', 'swaybg'];")).toEqual([]);
    expect(compositorNamesIn("const hint = 'not the hyprland_toplevel_export protocol';")).toEqual(['hyprland']);
  });

  it('no package but a compositor plugin names a compositor in its code', () => {
    const pkgs = readdirSync(join(root, 'packages')).filter((n) => statSync(join(root, 'packages', n)).isDirectory() && !n.startsWith('compositor-'));
    expect(pkgs.length).toBeGreaterThanOrEqual(6);
    const offenders: string[] = [];
    let scanned = 0;
    for (const pkg of pkgs) {
      for (const f of [...files(join(root, 'packages', pkg, 'src')), ...files(join(root, 'packages', pkg, 'scripts'))]) {
        const rel = relative(root, f);
        scanned++;
        if (ALLOWED_FILES[rel]) continue;
        const names = compositorNamesIn(readFileSync(f, 'utf8'));
        if (names.length) offenders.push(`${rel}: ${names.join(', ')}`);
      }
    }
    expect(scanned).toBeGreaterThan(100);
    expect(offenders).toEqual([]);
  });
});

describe('what the rest of hypruse knows of a compositor comes from its manifest', () => {
  it('each built-in factory declares a manifest under its own id', () => {
    for (const [f, m] of [[new HyprlandCompositorFactory(), HYPRLAND_MANIFEST], [new SwayCompositorFactory(), SWAY_MANIFEST], [new NiriCompositorFactory(), NIRI_MANIFEST]] as const) {
      expect(f.manifest).toBe(m);
      expect(m.id).toBe(f.id);
      expect(m.envVars.length).toBeGreaterThan(0);
      expect(f.instanceVars).toEqual(m.envVars);
    }
  });

  it('the window-manager tool is listed under the name the manifest gives (wm when it gives none)', () => {
    const listed = (c: ConstructorParameters<typeof ToolRegistry>[1]) => ALL_TOOLS.map((t) => new ToolRegistry(ALL_TOOLS, c).nameOf(t)).filter((n) => n === 'hypr' || n === 'wm');
    expect(listed(HYPRLAND_MANIFEST)).toEqual(['hypr']);
    expect(listed(SWAY_MANIFEST)).toEqual(['wm']);
    expect(listed({ id: 'examplewm' })).toEqual(['wm']);
    expect(listed(null)).toEqual(['hypr']);
  });
});
