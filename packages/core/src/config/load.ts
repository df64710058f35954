import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { tightenWith } from './tighten.js';
import { ConfigSchema, type HypruseConfig } from './schema.js';
import { envOverrides } from './env.js';
import { CONFIG_SEARCH_PLACES } from './search.js';
import { HypruseError, UsageError } from '../errors.js';
import type { z } from 'zod';

/** `file`: the person's file; `project`: a project config (it can only have made a limit stricter). */
export type ConfigSource = 'default' | 'file' | 'project' | `env:${string}`;

/** A project config, or one of its values, that was not taken, and why. */
export interface IgnoredConfig {
  path: string;
  reason: string;
}

export interface LoadedConfig {
  config: HypruseConfig;
  /** The person's file in use (HYPRUSE_CONFIG or ~/.config/hypruse/), or null. */
  file: string | null;
  /** The project config applied on top (tighten-only), or null. */
  project: string | null;
  /** Project configs not run and project values not taken, with the reason. */
  ignored: IgnoredConfig[];
  /** Where each leaf value came from, by dotted key. */
  sources: Record<string, ConfigSource>;
  baseDir: string;
}

export interface LoadOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Skip the file search (tests). */
  noFile?: boolean;
  /** Where a warning goes (an ignored executable config); stderr by default. */
  warn?: (message: string) => void;
}

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let cur = obj;
  for (const k of keys.slice(0, -1)) {
    if (typeof cur[k] !== 'object' || cur[k] === null || Array.isArray(cur[k])) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[keys[keys.length - 1]] = value;
}

function leafPaths(obj: unknown, prefix = ''): string[] {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return prefix ? [prefix] : [];
  const entries = Object.entries(obj as Record<string, unknown>);
  if (entries.length === 0) return prefix ? [prefix] : [];
  return entries.flatMap(([k, v]) => leafPaths(v, prefix ? `${prefix}.${k}` : k));
}

function describeIssue(issue: z.core.$ZodIssue, root: unknown): string {
  const key = issue.path.join('.') || '(root)';
  let given: unknown = root;
  for (const p of issue.path) given = (given as Record<PropertyKey, unknown> | undefined)?.[p as PropertyKey];
  const givenText = given === undefined ? 'nothing' : JSON.stringify(given);
  return `key "${key}": ${issue.message} (given ${givenText})`;
}

const UNTRUSTED = Symbol('hypruse.untrusted');

/** The person's own config folder: `$XDG_CONFIG_HOME/hypruse`, or `~/.config/hypruse`. */
export function personConfigDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(env.HOME || homedir(), '.config');
  return join(base, 'hypruse');
}

function realDir(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

/** A cosmiconfig explorer whose loaders run an executable file only when `mayRun(filepath)` (else a marker, nothing executed). */
async function explorerFor(strategy: 'none' | 'global', mayRun: (filepath: string) => boolean, stopDir?: string) {
  const { cosmiconfig, defaultLoaders } = await import('cosmiconfig');
  const tsLoader = async (filepath: string) => {
    const { createJiti } = await import('jiti');
    const jiti = createJiti(import.meta.url, { interopDefault: true, moduleCache: false });
    return jiti.import(filepath, { default: true });
  };
  type Loader = (filepath: string, content: string) => unknown;
  const guard = (load: Loader): Loader => (filepath, content) => (mayRun(filepath) ? load(filepath, content) : { [UNTRUSTED]: filepath });
  return cosmiconfig('hypruse', {
    searchStrategy: strategy,
    ...(stopDir ? { stopDir } : {}),
    loaders: {
      '.js': guard(defaultLoaders['.js'] as Loader),
      '.mjs': guard(defaultLoaders['.mjs'] as Loader),
      '.cjs': guard(defaultLoaders['.cjs'] as Loader),
      '.ts': guard(tsLoader),
      '.mts': guard(tsLoader),
      '.cts': guard(tsLoader),
    },
    searchPlaces: [...CONFIG_SEARCH_PLACES],
  });
}

/** The person's file: HYPRUSE_CONFIG, else the first config in their own config folder. Always loaded (the person wrote it). */
async function personFile(cwd: string, env: NodeJS.ProcessEnv): Promise<{ filepath: string; config: unknown } | null> {
  const explorer = await explorerFor('none', () => true);
  if (env.HYPRUSE_CONFIG) {
    const path = resolve(cwd, env.HYPRUSE_CONFIG);
    try {
      const r = await explorer.load(path);
      return r ? { filepath: r.filepath, config: r.config } : null;
    } catch (err) {
      throw new UsageError(`HYPRUSE_CONFIG=${env.HYPRUSE_CONFIG}: cannot load ${path}: ${(err as Error).message}`, { code: 'usage.config' });
    }
  }
  const dir = personConfigDir(env);
  if (!existsSync(dir)) return null;
  try {
    const r = await explorer.search(dir);
    return r && !r.isEmpty ? { filepath: r.filepath, config: r.config } : null;
  } catch (err) {
    const e = err as Error & { filepath?: string };
    throw new UsageError(`cannot load config file${e.filepath ? ` ${e.filepath}` : ''}: ${e.message}`, { code: 'usage.config' });
  }
}

/**
 * The project's file: the first config from the working directory up to the
 * home directory (not the person's own folder). An executable one is run only
 * when its folder is in `trusted`; otherwise it comes back `untrusted`, unrun.
 */
async function projectFile(cwd: string, env: NodeJS.ProcessEnv, trusted: string[]): Promise<{ filepath: string; config: unknown; untrusted: boolean } | null> {
  const allowed = new Set(trusted.map(realDir));
  const explorer = await explorerFor('global', (filepath) => allowed.has(realDir(dirname(filepath))), resolve(env.HOME || homedir()));
  try {
    const r = await explorer.search(cwd);
    if (!r || r.isEmpty) return null;
    const own = realDir(personConfigDir(env));
    if (realDir(dirname(r.filepath)) === own || /\/config\.(ts|js|mjs|json)$/.test(r.filepath)) return null; // the person's folder (or a `config.*` elsewhere, which never counts)
    const untrusted = typeof r.config === 'object' && r.config !== null && UNTRUSTED in r.config;
    return { filepath: r.filepath, config: r.config, untrusted };
  } catch (err) {
    const e = err as Error & { filepath?: string };
    throw new UsageError(`cannot load config file${e.filepath ? ` ${e.filepath}` : ''}: ${e.message}`, { code: 'usage.config' });
  }
}

function validated(filepath: string, fileConfig: unknown): HypruseConfig {
  if (typeof fileConfig !== 'object' || fileConfig === null || Array.isArray(fileConfig)) {
    throw new UsageError(`${filepath}: the config must be an object (export default defineConfig({...}))`, { code: 'usage.config' });
  }
  const check = ConfigSchema.safeParse(fileConfig);
  if (!check.success) {
    const lines = check.error.issues.map((i) => describeIssue(i, fileConfig));
    throw new UsageError(`${filepath}: ${lines.join('; ')}`, {
      code: 'usage.config',
      hint: 'see config/hypruse.schema.json or `hypruse config` for accepted keys and values',
    });
  }
  return check.data;
}

/**
 * The person's limits: defaults < their file (HYPRUSE_CONFIG, or
 * ~/.config/hypruse/) < HYPRUSE_* variables. Then a project config found
 * from the working directory up makes them stricter, never looser (see
 * tighten.ts); an executable one runs only from a folder the person lists in
 * `trustedProjectDirs`, and is otherwise ignored with a warning. A bad file or
 * variable is a UsageError (exit 2) naming it.
 */
export async function loadConfig(opts: LoadOptions = {}): Promise<LoadedConfig> {
  const cwd = opts.cwd ?? process.cwd();
  const env = opts.env ?? process.env;
  const warn = opts.warn ?? ((m: string) => process.stderr.write(`hypruse warn: ${m}\n`));
  const found = opts.noFile ? null : await personFile(cwd, env);
  const raw: Record<string, unknown> = {};
  const sources: Record<string, ConfigSource> = {};

  if (found) {
    validated(found.filepath, found.config);
    Object.assign(raw, structuredClone(found.config));
    for (const p of leafPaths(found.config)) sources[p] = 'file';
  }

  for (const o of envOverrides(env)) {
    setPath(raw, o.path, o.value);
    sources[o.path] = `env:${o.variable}`;
  }

  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => describeIssue(i, raw));
    throw new UsageError(`invalid configuration: ${lines.join('; ')}`, { code: 'usage.config' });
  }
  let config = parsed.data;
  const ignored: IgnoredConfig[] = [];
  let project: string | null = null;
  const searched = opts.noFile ? null : await projectFile(cwd, env, config.trustedProjectDirs);
  // the person's own file (HYPRUSE_CONFIG naming a file in the working directory) is not a project's too
  const project_ = searched && found && realDir(searched.filepath) === realDir(found.filepath) ? null : searched;
  if (project_?.untrusted) {
    const reason = `an executable config runs code, and its folder is not in trustedProjectDirs of the person's config (${personConfigDir(env)}/config.json): not run, not read`;
    ignored.push({ path: project_.filepath, reason });
    warn(`config ${project_.filepath} ignored: ${reason}`);
  } else if (project_) {
    const pParsed = validated(project_.filepath, project_.config);
    const t = tightenWith(config, project_.config as Record<string, unknown>, pParsed, { dir: dirname(project_.filepath), trusted: config.trustedProjectDirs.map(realDir).includes(realDir(dirname(project_.filepath))),
      personSet: (key) => sources[key] !== undefined,
    });
    config = t.config;
    project = project_.filepath;
    for (const k of t.set) for (const p of leafPaths(getPath(config, k), k)) sources[p] = 'project';
    for (const why of t.ignored) ignored.push({ path: project_.filepath, reason: why });
  }
  for (const p of leafPaths(config)) sources[p] ??= 'default';
  return { config, file: found?.filepath ?? null, project, ignored, sources, baseDir: found ? dirname(found.filepath) : cwd };
}

function getPath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const k of path.split('.')) cur = (cur as Record<string, unknown> | undefined)?.[k];
  return cur;
}

export function configError(err: unknown): HypruseError {
  return err instanceof HypruseError ? err : new HypruseError('error.config', (err as Error).message);
}
