import { dirname, resolve } from 'node:path';
import { ConfigSchema, type HypruseConfig } from './schema.js';
import { envOverrides } from './env.js';
import { CONFIG_SEARCH_PLACES } from './search.js';
import { HypruseError, UsageError } from '../errors.js';
import type { z } from 'zod';

export type ConfigSource = 'default' | 'file' | `env:${string}`;

export interface LoadedConfig {
  config: HypruseConfig;
  /** The file in use, or null. */
  file: string | null;
  /** Where each leaf value came from, by dotted key. */
  sources: Record<string, ConfigSource>;
  baseDir: string;
}

export interface LoadOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Skip the file search (tests). */
  noFile?: boolean;
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

async function searchFile(cwd: string, env: NodeJS.ProcessEnv): Promise<{ filepath: string; config: unknown } | null> {
  const { cosmiconfig } = await import('cosmiconfig');
  const tsLoader = async (filepath: string) => {
    const { createJiti } = await import('jiti');
    const jiti = createJiti(import.meta.url, { interopDefault: true, moduleCache: false });
    return jiti.import(filepath, { default: true });
  };
  const explorer = cosmiconfig('hypruse', {
    searchStrategy: 'global',
    loaders: { '.ts': tsLoader, '.mts': tsLoader, '.cts': tsLoader },
    searchPlaces: [...CONFIG_SEARCH_PLACES],
  });
  if (env.HYPRUSE_CONFIG) {
    const path = resolve(cwd, env.HYPRUSE_CONFIG);
    try {
      const r = await explorer.load(path);
      return r ? { filepath: r.filepath, config: r.config } : null;
    } catch (err) {
      throw new UsageError(`HYPRUSE_CONFIG=${env.HYPRUSE_CONFIG}: cannot load ${path}: ${(err as Error).message}`, { code: 'usage.config' });
    }
  }
  try {
    const r = await explorer.search(cwd);
    if (!r || r.isEmpty) return null;
    // `config.*` names only count inside ~/.config/hypruse/.
    if (/\/config\.(ts|js|mjs|json)$/.test(r.filepath) && !r.filepath.includes('/hypruse/')) return null;
    return { filepath: r.filepath, config: r.config };
  } catch (err) {
    const e = err as Error & { filepath?: string };
    throw new UsageError(`cannot load config file${e.filepath ? ` ${e.filepath}` : ''}: ${e.message}`, { code: 'usage.config' });
  }
}

/** default < file < env. A bad file or variable is a UsageError (exit 2) naming it. */
export async function loadConfig(opts: LoadOptions = {}): Promise<LoadedConfig> {
  const cwd = opts.cwd ?? process.cwd();
  const env = opts.env ?? process.env;
  const found = opts.noFile ? null : await searchFile(cwd, env);
  const raw: Record<string, unknown> = {};
  const sources: Record<string, ConfigSource> = {};

  if (found) {
    const fileConfig = found.config;
    if (typeof fileConfig !== 'object' || fileConfig === null || Array.isArray(fileConfig)) {
      throw new UsageError(`${found.filepath}: the config must be an object (export default defineConfig({...}))`, { code: 'usage.config' });
    }
    const check = ConfigSchema.safeParse(fileConfig);
    if (!check.success) {
      const lines = check.error.issues.map((i) => describeIssue(i, fileConfig));
      throw new UsageError(`${found.filepath}: ${lines.join('; ')}`, {
        code: 'usage.config',
        hint: 'see config/hypruse.schema.json or `hypruse config` for accepted keys and values',
      });
    }
    Object.assign(raw, structuredClone(fileConfig));
    for (const p of leafPaths(fileConfig)) sources[p] = 'file';
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
  const config = parsed.data;
  for (const p of leafPaths(config)) sources[p] ??= 'default';
  return { config, file: found?.filepath ?? null, sources, baseDir: found ? dirname(found.filepath) : cwd };
}

export function configError(err: unknown): HypruseError {
  return err instanceof HypruseError ? err : new HypruseError('error.config', (err as Error).message);
}
