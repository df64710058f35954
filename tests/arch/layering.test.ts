import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '@hypruse/tools';

const root = join(import.meta.dirname, '../..');

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'dist') continue;
    if (statSync(p).isDirectory()) out.push(...files(p));
    else if (/\.ts$/.test(name)) out.push(p);
  }
  return out;
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const re = /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  const out: string[] = [];
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1] ?? m[2]);
  return out;
}

const src = (pkg: string) => files(join(root, 'packages', pkg, 'src'));

/**
 * Every package's layer. Computed from the folders under packages/: a package
 * that is not in this table fails the first test, so a new one cannot escape
 * the rules below. `compositor-*` packages are compositor plugins.
 */
type Role = 'core' | 'backend' | 'compositor' | 'tools' | 'trust' | 'contract' | 'distribution';
const ROLES: Record<string, Role> = { core: 'core', wayland: 'backend', a11y: 'backend', tools: 'tools', trust: 'trust', 'contract-kit': 'contract', hypruse: 'distribution' };
const PACKAGES = readdirSync(join(root, 'packages')).filter((n) => statSync(join(root, 'packages', n)).isDirectory());
const roleOf = (pkg: string): Role | undefined => ROLES[pkg] ?? (pkg.startsWith('compositor-') ? 'compositor' : undefined);
const withRole = (...roles: Role[]) => PACKAGES.filter((p) => roles.includes(roleOf(p)!));

describe('architecture rules', () => {
  it('every package has a layer (the rules below are computed from packages/)', () => {
    expect(PACKAGES.filter((p) => roleOf(p) === undefined), 'packages with no layer in ROLES').toEqual([]);
    expect(withRole('compositor').length).toBeGreaterThanOrEqual(3);
  });

  it('only core/src/adapters/mcp imports the MCP SDK', () => {
    const offenders = PACKAGES
      .flatMap(src)
      .filter((f) => importsOf(f).some((i) => i.startsWith('@modelcontextprotocol/sdk')))
      .map((f) => relative(root, f))
      .filter((f) => !f.startsWith('packages/core/src/adapters/mcp/'));
    expect(offenders).toEqual([]);
  });

  it('backends never import tools, trust or the distribution', () => {
    for (const pkg of withRole('backend', 'compositor')) {
      const bad = src(pkg).filter((f) => importsOf(f).some((i) => /^@hypruse\/(tools|trust)|^hypruse$/.test(i)));
      expect(bad.map((f) => relative(root, f)), pkg).toEqual([]);
    }
  });

  it('tools and trust import only core among our packages, and never spawn processes or open sockets', () => {
    for (const pkg of withRole('tools', 'trust')) {
      for (const f of src(pkg)) {
        const ours = importsOf(f).filter((i) => i.startsWith('@hypruse/') || i === 'hypruse');
        expect(ours.filter((i) => i !== '@hypruse/core'), relative(root, f)).toEqual([]);
      }
    }
    for (const f of src('tools')) {
      const text = readFileSync(f, 'utf8');
      expect(/from ['"]node:(child_process|net|dgram)['"]/.test(text), relative(root, f)).toBe(false);
    }
  });

  it('compositor plugins are imported only by the distribution (which registers them), never by each other or a backend', () => {
    const plugins = withRole('compositor').map((p) => `@hypruse/${p}`);
    const bad = PACKAGES.filter((p) => roleOf(p) !== 'distribution')
      .flatMap((p) => src(p).map((f) => ({ p, f })))
      .filter(({ p, f }) => importsOf(f).some((i) => plugins.includes(i) && i !== `@hypruse/${p}`))
      .map(({ f }) => relative(root, f));
    expect(bad).toEqual([]);
  });

  it('the contract kit imports only core among our packages (a third-party plugin runs it against its own factory), and no test runner at run time', () => {
    for (const f of withRole('contract').flatMap(src)) {
      const ours = importsOf(f).filter((i) => i.startsWith('@hypruse/') || i === 'hypruse');
      expect(ours.filter((i) => i !== '@hypruse/core'), relative(root, f)).toEqual([]);
      expect(/^import (?!type )[^;]*from ['"]vitest['"]/m.test(readFileSync(f, 'utf8')), `${relative(root, f)} imports vitest at run time`).toBe(false);
    }
  });

  it('the protocols-only compositor plugin stays small: at most 600 lines, the kit and the wire client carry the rest', () => {
    const lines = src('compositor-wlroots').reduce((n, f) => n + readFileSync(f, 'utf8').split('\n').length - 1, 0);
    expect(lines).toBeGreaterThan(100);
    expect(lines).toBeLessThanOrEqual(600);
  });

  it('core imports no other package of ours', () => {
    const bad = withRole('core').flatMap(src).filter((f) => importsOf(f).some((i) => /^@hypruse\/(?!core)|^hypruse$/.test(i)));
    expect(bad).toEqual([]);
  });

  it('the registered tool names equal the documented list', () => {
    expect(ALL_TOOLS.map((t) => t.name).sort()).toEqual(
      ['act', 'binds', 'click_ui', 'clipboard', 'file_dialog', 'menu', 'desktop', 'get_text', 'hypr', 'keyboard', 'launch', 'marks', 'pointer', 'resume', 'screenshot', 'sequence', 'ui', 'use_bind', 'wait_for', 'zoom'].sort(),
    );
  });
});
