// Bundles the distribution (our workspace packages inlined, npm dependencies
// external) into packages/hypruse/dist with code splitting, so heavy modules
// (MCP SDK, sharp, dbus-next) load only on the paths that need them.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = join(here, '..');
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
// Pure-JS dependencies on the start path are bundled: one file loads much faster
// than zod's many ESM modules. Native, binary-shipping and lazily loaded ones stay external.
const BUNDLED = new Set(['zod', 'tsyringe', 'reflect-metadata']);
const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})].filter((d) => !BUNDLED.has(d));

const t0 = Date.now();
rmSync(join(pkgDir, 'dist'), { recursive: true, force: true });
await build({
  entryPoints: { bin: join(pkgDir, 'src/bin.ts'), index: join(pkgDir, 'src/index.ts'), config: join(pkgDir, 'src/config.ts') },
  outdir: join(pkgDir, 'dist'),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  conditions: ['@hypruse/source'],
  external: [...external, ...external.map((e) => `${e}/*`)],
  sourcemap: 'linked',
  logLevel: 'warning',
  define: { __HYPRUSE_VERSION__: JSON.stringify(pkg.version) },
  banner: { js: "import { createRequire as __hypruseCreateRequire } from 'node:module'; const require = __hypruseCreateRequire(import.meta.url);" },
});
console.error(`hypruse: built packages/hypruse/dist in ${Date.now() - t0} ms`);
