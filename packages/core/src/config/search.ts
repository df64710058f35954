/**
 * Where a configuration file may be, without loading cosmiconfig or zod: the
 * MCP server's stdio front answers `initialize` from the environment alone
 * when no file can be there, and loads the configuration after its reply.
 * The file search itself (load.ts) uses the same list of names.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { envOverrides } from './env.js';

/** cosmiconfig's search places for hypruse, in order (load.ts passes exactly these). */
export const CONFIG_SEARCH_PLACES: readonly string[] = [
  'package.json',
  '.hypruserc',
  '.hypruserc.json',
  '.hypruserc.yaml',
  '.hypruserc.yml',
  '.hypruserc.js',
  '.hypruserc.mjs',
  '.hypruserc.ts',
  'hypruse.config.ts',
  'hypruse.config.mts',
  'hypruse.config.js',
  'hypruse.config.mjs',
  'hypruse.config.json',
  'config.ts',
  'config.js',
  'config.mjs',
  'config.json',
];

/** cosmiconfig's own meta configuration files in the working directory (they may add search places). */
const META_PLACES = ['package.yaml', '.config/config.json', '.config/config.yaml', '.config/config.yml', '.config/config.js', '.config/config.ts', '.config/config.cjs', '.config/config.mjs'];

/** A package.json counts when it has a "hypruse" key (or "cosmiconfig" in the working directory); one that does not parse counts too. */
function packageCounts(path: string, meta: boolean): boolean {
  if (!existsSync(path)) return false;
  try {
    const pkg = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown> | null;
    return typeof pkg !== 'object' || pkg === null || 'hypruse' in pkg || (meta && 'cosmiconfig' in pkg);
  } catch {
    return true;
  }
}

/**
 * False only when cosmiconfig's global search (from `cwd` up to the home
 * directory, then $XDG_CONFIG_HOME/hypruse) provably finds no file: no
 * HYPRUSE_CONFIG, no search place exists, no package.json on the way has a
 * "hypruse" key, no cosmiconfig meta configuration in `cwd`, no global
 * config directory. True means: run the real search.
 */
export function mayHaveConfigFile(cwd: string, env: NodeJS.ProcessEnv): boolean {
  if (env.HYPRUSE_CONFIG) return true;
  const start = resolve(cwd);
  if (packageCounts(join(start, 'package.json'), true)) return true;
  if (META_PLACES.some((p) => existsSync(join(start, p)))) return true;
  // os.homedir() is what cosmiconfig stops at (it reads $HOME); env-paths reads XDG_CONFIG_HOME from process.env
  const stop = resolve(homedir());
  for (let dir = start; ; ) {
    for (const place of CONFIG_SEARCH_PLACES) {
      const p = join(dir, place);
      if (place === 'package.json' ? packageCounts(p, false) : existsSync(p)) return true;
    }
    const parent = dirname(dir);
    if (dir === stop || parent === dir) break;
    dir = parent;
  }
  return existsSync(join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'hypruse'));
}

/** What `initialize` needs of the configuration (its instructions differ in read-only and dry-run sessions). */
export interface ConfigPreview {
  readonly: boolean;
  dryRun: boolean;
  background: boolean;
}

/**
 * The configuration's `readonly` and `dryRun` from the environment alone, with
 * every HYPRUSE_* variable checked as loadConfig checks it (a bad one throws
 * the same UsageError); null when a configuration file may exist (then only
 * loadConfig knows). Defaults are the schema's (a unit test keeps them equal).
 */
export function previewConfig(opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): ConfigPreview | null {
  const env = opts.env ?? process.env;
  const overrides = envOverrides(env);
  if (mayHaveConfigFile(opts.cwd ?? process.cwd(), env)) return null;
  const value = (path: string) => overrides.find((o) => o.path === path)?.value;
  return { readonly: value('readonly') === true, dryRun: value('dryRun') === true, background: value('background') === true };
}
