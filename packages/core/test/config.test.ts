import { existsSync, mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HypruseError, exitCodeFor, loadConfig, parseConfine, parseAuthGuard } from '../src/index.js';

function dir(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), 'hypruse-config-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(d, name, '..'), { recursive: true });
    writeFileSync(join(d, name), text);
  }
  return d;
}

const env = (extra: Record<string, string> = {}) => ({ HOME: mkdtempSync(join(tmpdir(), 'hypruse-home-')), ...extra });

describe('config precedence: default < file < env', () => {
  it('uses defaults with no file and no variables', async () => {
    const r = await loadConfig({ cwd: dir({}), env: env() });
    expect(r.file).toBeNull();
    expect(r.config.screenshot.mode).toBe('file');
    expect(r.config.authGuard).toBe('on');
    expect(r.config.screenshot.maxImageBytes).toBe(700000);
    expect(r.sources['screenshot.mode']).toBe('default');
  });

  it('reads the person\'s config.ts through the TS loader and records the source', async () => {
    const e = env();
    const d = dir({});
    mkdirSync(join(e.HOME, '.config', 'hypruse'), { recursive: true });
    writeFileSync(join(e.HOME, '.config', 'hypruse', 'config.ts'), "const n: number = 1234567;\nexport default { screenshot: { maxImageBytes: n }, strict: true };\n");
    const r = await loadConfig({ cwd: d, env: e });
    expect(r.file).toBe(join(e.HOME, '.config', 'hypruse', 'config.ts'));
    expect(r.project).toBeNull();
    expect(r.config.screenshot.maxImageBytes).toBe(1234567);
    expect(r.config.strict).toBe(true);
    expect(r.sources['screenshot.maxImageBytes']).toBe('file');
    expect(r.sources['screenshot.mode']).toBe('default');
  });

  it('lets the environment override the file (a project\'s neutral value too)', async () => {
    const d = dir({ 'hypruse.config.json': JSON.stringify({ screenshot: { mode: 'file' }, readonly: false }) });
    const r = await loadConfig({ cwd: d, env: env({ HYPRUSE_SCREENSHOT_MODE: 'image', HYPRUSE_READONLY: 'yes' }) });
    expect(r.config.screenshot.mode).toBe('image');
    expect(r.config.readonly).toBe(true);
    expect(r.sources['screenshot.mode']).toBe('env:HYPRUSE_SCREENSHOT_MODE');
  });

  it('honours HYPRUSE_CONFIG and the package.json key', async () => {
    const d = dir({ 'elsewhere/my.json': JSON.stringify({ mark: true }), 'package.json': JSON.stringify({ name: 'x', hypruse: { clipboard: true } }) });
    expect((await loadConfig({ cwd: d, env: env({ HYPRUSE_CONFIG: join(d, 'elsewhere/my.json') }) })).config.mark).toBe(true);
    // a project config (package.json key) cannot turn the clipboard on: only the person can
    const r = await loadConfig({ cwd: d, env: env() });
    expect(r.config.clipboard).toBe(false);
    expect(r.project).toBe(join(d, 'package.json'));
    expect(r.ignored).toEqual([{ path: join(d, 'package.json'), reason: 'clipboard: only the person turns it on (a permission)' }]);
  });
});

describe('bad configuration is a usage error (exit 2) naming the file, key and value', () => {
  it('rejects an unknown key', async () => {
    const d = dir({ 'hypruse.config.json': JSON.stringify({ screenshots: {} }) });
    const err = await loadConfig({ cwd: d, env: env() }).catch((e) => e);
    expect(err).toBeInstanceOf(HypruseError);
    expect(exitCodeFor(err.category)).toBe(2);
    expect(err.message).toContain('hypruse.config.json');
    expect(err.message).toMatch(/screenshots/);
  });

  it('rejects a wrongly typed value with what was given', async () => {
    const d = dir({ 'hypruse.config.json': JSON.stringify({ screenshot: { mode: 'video' } }) });
    const err = await loadConfig({ cwd: d, env: env() }).catch((e) => e);
    expect(err.code).toBe('usage.config');
    expect(err.message).toContain('screenshot.mode');
    expect(err.message).toContain('"video"');
  });

  it('rejects a bad variable naming it and what is accepted', async () => {
    const err = await loadConfig({ cwd: dir({}), env: env({ HYPRUSE_MAX_IMAGE_BYTES: 'lots' }) }).catch((e) => e);
    expect(err.code).toBe('usage.config');
    expect(err.message).toContain('HYPRUSE_MAX_IMAGE_BYTES');
    expect(err.message).toContain('whole number');
    const err2 = await loadConfig({ cwd: dir({}), env: env({ HYPRUSE_STRICT: 'maybe' }) }).catch((e) => e);
    expect(err2.message).toContain('HYPRUSE_STRICT');
  });

  it('reports a TS file that does not compile', async () => {
    const d = dir({ 'hypruse.config.ts': 'export default {{{' });
    const err = await loadConfig({ cwd: d, env: env({ HYPRUSE_CONFIG: join(d, 'hypruse.config.ts') }) }).catch((e) => e);
    expect(err.code).toBe('usage.config');
    expect(err.message).toContain('hypruse.config.ts');
  });
});

describe('a project config (working directory) only tightens the person\'s limits', () => {
  const person = (e: { HOME: string }, cfg: Record<string, unknown>) => {
    mkdirSync(join(e.HOME, '.config', 'hypruse'), { recursive: true });
    writeFileSync(join(e.HOME, '.config', 'hypruse', 'config.json'), JSON.stringify(cfg));
  };

  it('reads both files: a looser project value is ignored and said so, a stricter one is taken', async () => {
    const e = env();
    person(e, { readonly: true, confine: ['launched', 'class:foot'], launch: { allow: ['zenity', 'foot'] }, authGuard: 'on', policy: { firefox: 'click' } });
    const d = dir({ '.hypruserc.json': JSON.stringify({ readonly: false, confine: ['class:foot'], launch: { allow: ['foot', 'bash'] }, authGuard: 'off', strict: true, policy: { firefox: 'full', foot: 'view' }, stopChord: 'off', takeoverMs: 0 }) });
    const r = await loadConfig({ cwd: d, env: e, warn: () => undefined });
    expect(r.file).toBe(join(e.HOME, '.config', 'hypruse', 'config.json'));
    expect(r.project).toBe(join(d, '.hypruserc.json'));
    expect(r.config).toMatchObject({ readonly: true, confine: ['class:foot'], launch: { allow: ['foot'] }, authGuard: 'on', strict: true, policy: { firefox: 'click', foot: 'view' }, stopChord: 'super+alt+Escape', takeoverMs: 1500 });
    expect(r.sources.readonly).toBe('file');
    expect(r.sources.strict).toBe('project');
    expect(r.sources.confine).toBe('project');
    const why = r.ignored.map((i) => i.reason);
    for (const k of ['readonly', 'authGuard', 'policy.firefox', 'stopChord', 'takeoverMs']) expect(why.some((w) => w.startsWith(`${k}: `)), k).toBe(true);
    expect(why).toContain('launch.allow: bash not in the person\'s allowlist');
  });

  it('confinement not a subset of the person\'s scopes is ignored; without the person\'s, any is taken', async () => {
    const e = env();
    person(e, { confine: ['launched'] });
    const d = dir({ 'hypruse.config.json': JSON.stringify({ confine: ['class:firefox'] }) });
    expect((await loadConfig({ cwd: d, env: e })).config.confine).toEqual(['launched']);
    expect((await loadConfig({ cwd: d, env: env() })).config.confine).toEqual(['class:firefox']);
  });

  it('an executable project config is not run unless the person trusts its folder', async () => {
    const e = env();
    const marker = join(e.HOME, 'ran');
    const d = dir({ 'hypruse.config.mjs': `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'x');\nexport default { strict: true, plugins: ['./p.mjs'] };\n` });
    const warned: string[] = [];
    const r = await loadConfig({ cwd: d, env: e, warn: (m) => warned.push(m) });
    expect(existsSync(marker)).toBe(false);
    expect(r.config.strict).toBe(false);
    expect(r.project).toBeNull();
    expect(r.ignored[0]!.path).toBe(join(d, 'hypruse.config.mjs'));
    expect(warned[0]).toMatch(/hypruse\.config\.mjs ignored: an executable config runs code/);
    person(e, { trustedProjectDirs: [d] });
    const t = await loadConfig({ cwd: d, env: e });
    expect(existsSync(marker)).toBe(true);
    expect(t.config.strict).toBe(true);
    expect(t.config.plugins).toEqual([join(d, 'p.mjs')]);
  });

  it('a project cannot allow the compositor\'s modifier keys nor choose where the seat is served', async () => {
    const d = dir({ '.hypruserc.json': JSON.stringify({ allowModifierKeys: true, mcp: { http: { host: '0.0.0.0', allowedHosts: ['evil.example'] }, maxResultTokens: 5000 } }) });
    const r = await loadConfig({ cwd: d, env: env(), warn: () => undefined });
    expect(r.config.allowModifierKeys).toBe(false);
    expect(r.config.mcp.http.host).toBe('127.0.0.1');
    expect(r.config.mcp.maxResultTokens).toBe(5000);
    const why = r.ignored.map((i) => i.reason);
    for (const k of ['allowModifierKeys', 'mcp.http']) expect(why.some((w) => w.startsWith(`${k}: `)), k).toBe(true);
  });

  it('plugins of an untrusted data config are not loaded', async () => {
    const d = dir({ 'hypruse.config.json': JSON.stringify({ plugins: ['./evil.mjs'] }) });
    const r = await loadConfig({ cwd: d, env: env() });
    expect(r.config.plugins).toEqual([]);
    expect(r.ignored[0]!.reason).toMatch(/^plugins: plugins run code/);
  });
});

describe('variable grammars kept from hypruse', () => {
  it('parses HYPRUSE_CONFINE lists', () => {
    expect(parseConfine('launched')).toEqual(['launched']);
    expect(parseConfine('class:firefox,foot')).toEqual(['class:firefox', 'class:foot']);
    expect(parseConfine('workspace:3,special:notes')).toEqual(['workspace:3', 'workspace:special:notes']);
    expect(() => parseConfine('firefox')).toThrow(/not a scope/);
  });
  it('parses HYPRUSE_AUTH_GUARD', () => {
    expect(parseAuthGuard('')).toBe('off');
    expect(parseAuthGuard('0')).toBe('off');
    expect(parseAuthGuard('fields')).toBe('strict');
    expect(parseAuthGuard('1')).toBe('on');
    expect(parseAuthGuard('whatever')).toBe('on');
  });
});
