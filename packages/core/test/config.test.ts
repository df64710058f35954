import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
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

  it('reads hypruse.config.ts through the TS loader and records the source', async () => {
    const d = dir({ 'hypruse.config.ts': "const n: number = 1234567;\nexport default { screenshot: { maxImageBytes: n }, strict: true };\n" });
    const r = await loadConfig({ cwd: d, env: env() });
    expect(r.file).toBe(join(d, 'hypruse.config.ts'));
    expect(r.config.screenshot.maxImageBytes).toBe(1234567);
    expect(r.config.strict).toBe(true);
    expect(r.sources['screenshot.maxImageBytes']).toBe('file');
    expect(r.sources['screenshot.mode']).toBe('default');
  });

  it('lets the environment override the file', async () => {
    const d = dir({ 'hypruse.config.json': JSON.stringify({ screenshot: { mode: 'file' }, readonly: false }) });
    const r = await loadConfig({ cwd: d, env: env({ HYPRUSE_SCREENSHOT_MODE: 'image', HYPRUSE_READONLY: 'yes' }) });
    expect(r.config.screenshot.mode).toBe('image');
    expect(r.config.readonly).toBe(true);
    expect(r.sources['screenshot.mode']).toBe('env:HYPRUSE_SCREENSHOT_MODE');
  });

  it('honours HYPRUSE_CONFIG and the package.json key', async () => {
    const d = dir({ 'elsewhere/my.json': JSON.stringify({ mark: true }), 'package.json': JSON.stringify({ name: 'x', hypruse: { clipboard: true } }) });
    expect((await loadConfig({ cwd: d, env: env({ HYPRUSE_CONFIG: join(d, 'elsewhere/my.json') }) })).config.mark).toBe(true);
    expect((await loadConfig({ cwd: d, env: env() })).config.clipboard).toBe(true);
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
    const err = await loadConfig({ cwd: d, env: env() }).catch((e) => e);
    expect(err.code).toBe('usage.config');
    expect(err.message).toContain('hypruse.config.ts');
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
