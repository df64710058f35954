// Bundles the distribution (our workspace packages inlined, npm dependencies
// external) into packages/hypruse/dist with code splitting, so heavy modules
// (MCP SDK, sharp, dbus-next) load only on the paths that need them.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = join(here, '..');
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
// Runtime dependencies (native, binary-shipping or loaded only for config files)
// stay external; everything else, zod and the MCP SDK included, is bundled: one
// file loads much faster than many small ESM modules.
const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})];

// zod's `z.locales` namespace pulls every translation of its messages into the bundle (half of
// zod's size, parsed on every start); hypruse speaks English only, so only `en` is bundled.
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core)$/.test(args.resolveDir) ? { path: join(args.resolveDir, '../locales/en.js'), namespace: 'zod-locales' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

const t0 = Date.now();
rmSync(join(pkgDir, 'dist'), { recursive: true, force: true });
await build({
  entryPoints: { bin: join(pkgDir, 'src/bin.ts'), index: join(pkgDir, 'src/index.ts'), config: join(pkgDir, 'src/config.ts'), contract: join(pkgDir, 'src/contract.ts'), reflect: 'reflect-metadata' },
  outdir: join(pkgDir, 'dist'),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  conditions: ['@hypruse/source'],
  external: [...external, ...external.map((e) => `${e}/*`)],
  sourcemap: 'linked',
  // smaller files parse faster at every start; names are kept for stack traces and error classes
  minify: true,
  keepNames: true,
  plugins: [zodEnglishOnly],
  logLevel: 'warning',
  define: { __HYPRUSE_VERSION__: JSON.stringify(pkg.version) },
  banner: { js: "import { createRequire as __hypruseCreateRequire } from 'node:module'; const require = __hypruseCreateRequire(import.meta.url);" },
});
// The library entries (a plugin's `import 'hypruse'`, a plugin test's `hypruse/contract`) load the
// decorator metadata polyfill before any chunk that needs it: chunk imports are not ordered by source.
// On the banner's line, so the source maps' lines stay right.
for (const entry of ['index.js', 'contract.js']) {
  const file = join(pkgDir, 'dist', entry);
  const text = readFileSync(file, 'utf8');
  const nl = text.indexOf('\n');
  writeFileSync(file, `${text.slice(0, nl)} import './reflect.js';${text.slice(nl)}`);
}
console.error(`hypruse: built packages/hypruse/dist in ${Date.now() - t0} ms`);
