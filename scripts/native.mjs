// Builds the optional native addon (usocket, fd passing for the in-process
// Wayland keyboard and screencopy) from the local Node headers. npm 11 skips
// implicit node-gyp installs of dependencies, so this runs after install.
// A failure is not fatal: hypruse then falls back to wtype and grim, and
// `hypruse doctor` says which path is in use.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';

const require = createRequire(import.meta.url);
let dir;
try {
  dir = dirname(require.resolve('usocket/package.json', { paths: [join(process.cwd(), 'packages/wayland')] }));
} catch {
  console.error('hypruse: usocket not installed; the wtype/grim fallback will be used');
  process.exit(0);
}
if (existsSync(join(dir, 'build/Release/uwrap.node'))) process.exit(0);
const gyp = require.resolve('node-gyp/bin/node-gyp.js', { paths: [dir] });
const r = spawnSync(process.execPath, [gyp, 'rebuild'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
if (r.status !== 0) console.error('hypruse: building usocket failed; the wtype/grim fallback will be used');
else console.error('hypruse: built usocket (fd passing) for the in-process Wayland keyboard');
