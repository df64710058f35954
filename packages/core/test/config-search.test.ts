import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/index.js';
import { CONFIG_SEARCH_PLACES, mayHaveConfigFile, previewConfig } from '../src/config/search.js';

// cosmiconfig stops at os.homedir() ($HOME) and reads $XDG_CONFIG_HOME from the process: both point into a
// fresh directory, and the working directory is below that home
let home: string;
let cwd: string;
const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'hypruse-search-home-'));
  cwd = join(home, 'project', 'sub');
  mkdirSync(cwd, { recursive: true });
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = join(home, '.config');
});
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});
const put = (path: string, text: string) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
};
const env = (extra: Record<string, string> = {}) => ({ HOME: home, ...extra });

describe('the config file pre-scan (mayHaveConfigFile) never misses a file cosmiconfig would load', () => {
  it('says no file when there is none, and loadConfig agrees', async () => {
    put(join(cwd, 'package.json'), JSON.stringify({ name: 'unrelated' }));
    expect(mayHaveConfigFile(cwd, env())).toBe(false);
    expect((await loadConfig({ cwd, env: env() })).file).toBeNull();
  });

  it.each(CONFIG_SEARCH_PLACES.filter((p) => p !== 'package.json' && !p.startsWith('config.')))('finds %s in the working directory and in a parent', async (place) => {
    const text = place.endsWith('.json') || place === '.hypruserc' ? '{"strict":true}' : place.match(/\.ya?ml$/) ? 'strict: true\n' : 'export default { strict: true };\n';
    for (const dir of [cwd, join(home, 'project')]) {
      const d = mkdtempSync(join(dir, 'x-'));
      put(join(d, place), text);
      // an executable project config runs only from a folder the person trusts
      if (/\.(js|mjs|cjs|ts|mts|cts)$/.test(place)) put(join(home, '.config', 'hypruse', 'config.json'), JSON.stringify({ trustedProjectDirs: [d] }));
      expect(mayHaveConfigFile(d, env())).toBe(true);
      expect((await loadConfig({ cwd: d, env: env() })).config.strict).toBe(true);
    }
  });

  it('counts a package.json with a "hypruse" (or, in the working directory, "cosmiconfig") key, or one that does not parse', () => {
    put(join(home, 'project', 'package.json'), JSON.stringify({ hypruse: { strict: true } }));
    expect(mayHaveConfigFile(cwd, env())).toBe(true);
    const other = join(home, 'other');
    put(join(other, 'package.json'), JSON.stringify({ cosmiconfig: { searchPlaces: ['x.json'] } }));
    expect(mayHaveConfigFile(other, env())).toBe(true);
    const broken = join(home, 'broken');
    put(join(broken, 'package.json'), '{ not json');
    expect(mayHaveConfigFile(broken, env())).toBe(true);
  });

  it('counts cosmiconfig meta configuration, the global config directory and HYPRUSE_CONFIG', () => {
    const meta = join(home, 'meta');
    put(join(meta, '.config/config.json'), '{}');
    expect(mayHaveConfigFile(meta, env())).toBe(true);
    expect(mayHaveConfigFile(cwd, env({ HYPRUSE_CONFIG: '/nowhere.json' }))).toBe(true);
    expect(mayHaveConfigFile(cwd, env())).toBe(false);
    mkdirSync(join(home, '.config', 'hypruse'), { recursive: true });
    expect(mayHaveConfigFile(cwd, env())).toBe(true);
  });
});

describe('previewConfig gives what loadConfig gives for initialize', () => {
  it.each<Record<string, string>>([{}, { HYPRUSE_READONLY: '1' }, { HYPRUSE_DRYRUN: 'yes' }, { HYPRUSE_READONLY: 'on', HYPRUSE_DRYRUN: 'true' }, { HYPRUSE_READONLY: '0', HYPRUSE_DRYRUN: '' }, { HYPRUSE_BACKGROUND: '1' }])('with %o', async (vars) => {
    const full = (await loadConfig({ cwd, env: env(vars) })).config;
    expect(previewConfig({ cwd, env: env(vars) })).toEqual({ readonly: full.readonly, dryRun: full.dryRun, background: full.background });
  });

  it('refuses a bad variable exactly as loadConfig does, and is null when a file may exist', async () => {
    const bad = env({ HYPRUSE_SCREENSHOT_MODE: 'video' });
    const err = await loadConfig({ cwd, env: bad }).catch((e: Error) => e);
    expect(() => previewConfig({ cwd, env: bad })).toThrow((err as Error).message);
    put(join(cwd, 'hypruse.config.json'), '{"readonly":true}');
    expect(previewConfig({ cwd, env: env() })).toBeNull();
  });
});
