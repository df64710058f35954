// The npm package as a user gets it: build (when dist is older than the sources), `npm pack`, install the tarball
// into a fresh folder, then `npx hypruse --help`, `hypruse doctor` (no
// desktop: it must still print its report within 5 s), the shipped skill,
// and a third-party compositor plugin (docs/examples) resolving `hypruse`
// from that install.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { ALL_TOOLS } from '@hypruse/tools';
import { REQUIREMENTS } from '@hypruse/contract-kit';

const root = join(import.meta.dirname, '../..');
const pkgDir = join(root, 'packages/hypruse');
let app = '';
let tarball = '';

function sh(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeout?: number }) {
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, encoding: 'utf8', timeout: opts.timeout ?? 180_000 });
  return { code: r.status, out: r.stdout ?? '', err: `${r.stderr ?? ''}${r.error ? String(r.error) : ''}`, ms: Date.now() - t0 };
}

/** A user's shell without any desktop session. */
function bareEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: mkdtempSync(join(tmpdir(), 'hypruse-pack-home-')), XDG_RUNTIME_DIR: mkdtempSync(join(tmpdir(), 'hypruse-pack-run-')), LANG: 'C.UTF-8' };
}

/** Newest modification time of the sources bundled into dist. */
function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist' || e.name === 'test') continue;
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestSource(p) : statSync(p).mtimeMs);
  }
  return newest;
}

beforeAll(() => {
  // `npm test` builds first; rebuilding then would rewrite dist under tests running in parallel
  const bin = join(pkgDir, 'dist/bin.js');
  if (!existsSync(bin) || statSync(bin).mtimeMs < newestSource(join(root, 'packages'))) {
    const build = sh('npm', ['run', 'build'], { cwd: root });
    expect(build.code, build.err).toBe(0);
  }
  const dest = mkdtempSync(join(tmpdir(), 'hypruse-pack-'));
  const pack = sh('npm', ['pack', '--pack-destination', dest, '--json'], { cwd: pkgDir });
  expect(pack.code, pack.err).toBe(0);
  const info = JSON.parse(pack.out)[0] as { filename: string; files: Array<{ path: string }> };
  tarball = join(dest, info.filename);
  const files = info.files.map((f) => f.path);
  for (const f of ['bin/hypruse.js', 'dist/bin.js', 'dist/index.js', 'skill/SKILL.md', 'skill/references/verbs.md', 'skill/references/recipes.md', 'README.md', 'package.json']) {
    expect(files, f).toContain(f);
  }
  expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/'))).toEqual([]);

  app = mkdtempSync(join(tmpdir(), 'hypruse-app-'));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'hypruse-pack-check', private: true, type: 'module' }));
  let install = sh('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: app });
  if (install.code !== 0) {
    // a dependency missing from the npm cache: the registry is reachable here and in CI
    process.stderr.write(`pack test: offline install failed, installing from the registry (${install.err.split('\n').find((l) => /ERR/.test(l)) ?? install.err.slice(0, 200)})\n`);
    install = sh('npm', ['install', '--no-audit', '--no-fund', tarball], { cwd: app });
  }
  expect(install.code, install.err).toBe(0);
}, 600_000);

describe('the npm package', () => {
  it('declares bin, files and engines node >= 20.11', async () => {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(join(app, 'node_modules/hypruse/package.json'), 'utf8'));
    expect(pkg.bin).toEqual({ hypruse: './bin/hypruse.js' });
    expect(pkg.engines).toEqual({ node: '>=20.11' });
    expect(pkg.files).toEqual(['bin', 'dist', 'skill', 'README.md']);
    expect(pkg.scripts?.install ?? pkg.scripts?.postinstall ?? pkg.scripts?.preinstall).toBeUndefined();
  });

  it('npx hypruse --help lists every verb and command', () => {
    const r = sh('npx', ['hypruse', '--help'], { cwd: app, env: bareEnv(), timeout: 60_000 });
    expect(r.code, r.err).toBe(0);
    for (const t of ALL_TOOLS) expect(r.out).toMatch(new RegExp(`^  ${t.name}\\s`, 'm'));
    for (const c of ['serve', 'config', 'doctor', 'init', 'skill', 'journal', 'replay', 'stop']) expect(r.out).toMatch(new RegExp(`^  ${c}\\s`, 'm'));
  });

  it('hypruse doctor runs and prints its report within 5 s without a desktop', () => {
    const r = sh(join(app, 'node_modules/.bin/hypruse'), ['doctor'], { cwd: app, env: bareEnv(), timeout: 20_000 });
    expect(r.ms).toBeLessThan(scaledMs(5000));
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^\[FAIL\] compositor /m);
    expect(r.out).toMatch(/^\[ok\]   trust /m);
    expect(r.out).toMatch(/^\d+ of 16 checks failed/m);
    // koffi came with the package and its prebuilt binary loads: the keyboard path is in-process (only the socket is missing).
    expect(r.out).toMatch(/^\[FAIL\] keyboard +zwp_virtual_keyboard_v1 \(in-process\) cannot be used: no Wayland connection/m);
  });

  it('depends on koffi, whose prebuilt binary is installed with it (nothing compiled)', async () => {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(join(app, 'node_modules/hypruse/package.json'), 'utf8'));
    const koffi = JSON.parse(readFileSync(join(app, 'node_modules/koffi/package.json'), 'utf8'));
    expect(pkg.optionalDependencies?.koffi).toBe(koffi.version);
    expect(readdirSync(join(app, `node_modules/@koromix/koffi-linux-${process.arch}/linux_${process.arch}`))).toContain('koffi.node');
    expect(existsSync(join(app, 'node_modules/usocket'))).toBe(false);
  });

  it('ships the skill where `hypruse skill path` says', () => {
    const r = sh(join(app, 'node_modules/.bin/hypruse'), ['skill', 'path'], { cwd: app, env: bareEnv(), timeout: 20_000 });
    expect(r.code, r.err).toBe(0);
    const dir = r.out.trim();
    expect(dir.startsWith(join(app, 'node_modules'))).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['SKILL.md', 'references']);
  });

  it('a third-party compositor plugin (docs/examples) works against the installed package', async () => {
    copyFileSync(join(root, 'docs/examples/example-compositor.ts'), join(app, 'example-compositor.ts'));
    writeFileSync(join(app, 'hypruse.config.json'), JSON.stringify({ plugins: ['./example-compositor.ts'] }));
    const sock = join(mkdtempSync(join(tmpdir(), 'hypruse-examplewm-')), 'ipc.sock');
    const desktop = {
      compositor: 'examplewm', monitors: [{ name: 'X-1', geometry: { x: 0, y: 0, width: 800, height: 600 }, scale: 1, transform: 0, focused: true, activeWorkspace: '1' }],
      workspaces: [{ id: '1', name: '1', monitor: 'X-1', windows: 1, visible: true, focused: true }],
      windows: [{ address: 'w1', class: 'editor', title: 'notes.txt', pid: null, geometry: { x: 0, y: 0, width: 800, height: 600 }, workspace: '1', floating: false, fullscreen: false, visible: true, focused: true }],
      activeWindow: 'w1', activeWorkspace: '1', cursor: null, layers: null,
    };
    const server = createServer((c) => c.on('data', (d) => {
      const req = JSON.parse(d.toString().trim());
      c.end(`${JSON.stringify(req.cmd === 'desktop' ? { ok: true, desktop } : req.cmd === 'version' ? { ok: true, version: '1.0' } : { ok: true })}\n`);
    }));
    await new Promise<void>((r) => server.listen(sock, r));
    try {
      // the person's config names the plugin (a project config's plugins load only from a folder the person trusts)
      const env = { ...bareEnv(), EXAMPLEWM_SOCKET: sock, HYPRUSE_CONFIG: join(app, 'hypruse.config.json') };
      const run = (...args: string[]) =>
        new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
          // async spawn: the test-local server must keep answering meanwhile
          import('node:child_process').then(({ execFile }) =>
            execFile(join(app, 'node_modules/.bin/hypruse'), args, { cwd: app, env, timeout: 20_000 }, (e, out, err) =>
              resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, out, err }),
            ),
          );
        });
      const d = await run('desktop');
      expect(d.code, d.err).toBe(0);
      expect(d.out).toContain('notes.txt');
      const close = await run('wm', 'close_window', 'w1');
      expect(close.code).toBe(1);
      expect(close.err).toMatch(/^hypruse: unsupported: not supported on examplewm: close/m);
      const doc = await run('doctor');
      expect(doc.out).toMatch(/^\[ok\]   compositor   examplewm 1\.0 via plugin "examplewm"/m);
      expect(doc.out).toMatch(/^\[FAIL\] events .*not supported on examplewm: events/m);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('docs/plugins.md, followed word for word: its files, the installed package and `npx vitest run` pass the contract suite', async () => {
    // step 1 (npm install hypruse vitest): hypruse is the tarball installed above, vitest the workspace's (no network)
    const doc = readFileSync(join(root, 'docs/plugins.md'), 'utf8');
    const files = [...doc.matchAll(/^```[a-z]+ file=(\S+)\n([\s\S]*?)^```$/gm)].map((m) => [m[1], m[2]] as const);
    expect(files.map(([f]) => f).sort()).toEqual(['example-compositor.ts', 'examplewm-server.mjs', 'examplewm.contract.test.ts']);
    const steps = [...doc.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1].trim());
    expect(steps.at(-1)).toBe('npx vitest run');
    const dir = join(app, 'examplewm-plugin');
    mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'examplewm-plugin', private: true, type: 'module' }));
    symlinkSync(join(app, 'node_modules/hypruse'), join(dir, 'node_modules/hypruse'));
    symlinkSync(join(root, 'node_modules/vitest'), join(dir, 'node_modules/vitest'));
    symlinkSync('../vitest/vitest.mjs', join(dir, 'node_modules/.bin/vitest'));
    for (const [name, text] of files) writeFileSync(join(dir, name), text);
    const [cmd, ...args] = steps.at(-1)!.split(' ');
    const r = sh(cmd, [...args, '--no-color'], { cwd: dir, env: { ...bareEnv(), CI: '' }, timeout: scaledMs(120_000) });
    const n = REQUIREMENTS.length + 1;
    expect(r.code, `${r.out}\n${r.err}`).toBe(0);
    expect(r.out).toMatch(new RegExp(`Tests\\s+${n} passed \\(${n}\\)`));
  }, 240_000);
});

