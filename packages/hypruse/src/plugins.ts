import { createRequire } from 'node:module';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HypruseError, PLUGIN_API_VERSION, type HyprusePlugin } from '@hypruse/core';

/** Load a third-party plugin named in the config: an npm package name or a path relative to the config file. */
export async function loadPlugin(spec: string, baseDir: string): Promise<HyprusePlugin> {
  let mod: Record<string, unknown>;
  const isPath = spec.startsWith('.') || isAbsolute(spec);
  try {
    if (isPath) {
      const file = resolve(baseDir, spec);
      if (/\.[mc]?ts$/.test(file)) {
        const { createJiti } = await import('jiti');
        mod = (await createJiti(import.meta.url, { interopDefault: false }).import(file)) as Record<string, unknown>;
      } else {
        mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      }
    } else {
      const require = createRequire(resolve(baseDir, 'package.json'));
      let entry: string;
      try {
        entry = require.resolve(spec);
      } catch {
        throw new Error(`package "${spec}" is not installed (looked from ${baseDir})`);
      }
      mod = (await import(pathToFileURL(entry).href)) as Record<string, unknown>;
    }
  } catch (err) {
    throw new HypruseError('error.plugin', `plugin "${spec}" failed to load: ${(err as Error).message}`, {
      hint: 'fix or remove it from `plugins` in your hypruse config',
      cause: err,
    });
  }
  const candidate = (mod.default ?? mod.plugin) as Partial<HyprusePlugin> | undefined;
  if (!candidate || typeof candidate !== 'object' || typeof candidate.register !== 'function' || typeof candidate.name !== 'string') {
    throw new HypruseError('error.plugin', `plugin "${spec}" exports no plugin definition (expected a default export from definePlugin({ name, apiVersion, register }))`);
  }
  if (candidate.apiVersion !== PLUGIN_API_VERSION) {
    throw new HypruseError(
      'error.plugin',
      `plugin "${candidate.name}" (${spec}) declares plugin API version ${String(candidate.apiVersion)}, but this hypruse implements version ${PLUGIN_API_VERSION}`,
    );
  }
  return candidate as HyprusePlugin;
}

/** Order plugins so each comes after the ones it depends on; a missing dependency is an error naming both. */
export function orderPlugins(plugins: HyprusePlugin[]): HyprusePlugin[] {
  const byName = new Map(plugins.map((p) => [p.name, p]));
  const out: HyprusePlugin[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (p: HyprusePlugin) => {
    if (state.get(p.name) === 'done') return;
    if (state.get(p.name) === 'visiting') throw new HypruseError('error.plugin', `plugin "${p.name}" has a dependency cycle`);
    state.set(p.name, 'visiting');
    for (const d of p.dependsOn ?? []) {
      const dep = byName.get(d);
      if (!dep) throw new HypruseError('error.plugin', `plugin "${p.name}" needs plugin "${d}", which is not loaded`);
      visit(dep);
    }
    state.set(p.name, 'done');
    out.push(p);
  };
  plugins.forEach(visit);
  return out;
}
