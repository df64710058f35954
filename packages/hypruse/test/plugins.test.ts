import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HypruseError, PLUGIN_API_VERSION, definePlugin, Tokens, defineTool, result } from '@hypruse/core';
import { z } from 'zod';
import { loadPlugin, orderPlugins } from '../src/plugins.js';
import { createSession } from '../src/session.js';

const dir = () => mkdtempSync(join(tmpdir(), 'hypruse-plugin-'));
// a plugin folder inside the checkout, so `@hypruse/core` resolves as it does for an installed plugin
const localDir = () => {
  const base = join(import.meta.dirname, '../../../node_modules/.cache');
  mkdirSync(base, { recursive: true });
  return mkdtempSync(join(base, 'hypruse-plugin-'));
};

describe('third-party plugin loading', () => {
  it('loads a local TypeScript plugin relative to the config file and registers its tool', async () => {
    const d = localDir();
    writeFileSync(
      join(d, 'hello.ts'),
      `import { definePlugin, defineTool, result, Tokens, PLUGIN_API_VERSION } from '@hypruse/core';
import { z } from 'zod';
const hello = defineTool({ name: 'hello', title: 'Hello', kind: 'observe', description: 'says hello', input: z.object({ who: z.string().default('world') }), async handle(a) { return result('hello ' + a.who).build(); } });
export default definePlugin({ name: 'hello', apiVersion: PLUGIN_API_VERSION, register(c) { c.register(Tokens.ToolPlugin, { useValue: hello }); } });
`,
    );
    writeFileSync(join(d, 'hypruse.config.json'), JSON.stringify({ plugins: ['./hello.ts'] }));
    // the person's config (HYPRUSE_CONFIG): a project config's plugins load only from a folder the person trusts
    const s = await createSession({ source: 'cli', cwd: d, env: { HOME: d, HYPRUSE_CONFIG: join(d, 'hypruse.config.json') }, noCompositor: true });
    const r = await s.pipeline.call('hello', { who: 'plugin' });
    expect(r.text[0]).toBe('hello plugin');
    await s.dispose();
  });

  it('names a broken plugin and the cause', async () => {
    const d = dir();
    writeFileSync(join(d, 'broken.mjs'), 'throw new Error("kaboom at import");\n');
    const err = await loadPlugin('./broken.mjs', d).catch((e) => e);
    expect(err).toBeInstanceOf(HypruseError);
    expect(err.code).toBe('error.plugin');
    expect(err.message).toContain('./broken.mjs');
    expect(err.message).toContain('kaboom at import');
  });

  it('names a missing npm plugin', async () => {
    const err = await loadPlugin('hypruse-plugin-that-does-not-exist', dir()).catch((e) => e);
    expect(err.message).toMatch(/hypruse-plugin-that-does-not-exist.*not installed/);
  });

  it('refuses a module without a plugin definition, and a wrong API version', async () => {
    const d = dir();
    writeFileSync(join(d, 'empty.mjs'), 'export const x = 1;\n');
    writeFileSync(join(d, 'future.mjs'), `export default { name: 'future', apiVersion: ${PLUGIN_API_VERSION + 1}, register() {} };\n`);
    expect((await loadPlugin('./empty.mjs', d).catch((e) => e)).message).toMatch(/exports no plugin definition/);
    expect((await loadPlugin('./future.mjs', d).catch((e) => e)).message).toMatch(/API version 2.*implements version 1/);
  });

  it('orders plugins by dependency and names a missing dependency', () => {
    const a = definePlugin({ name: 'a', apiVersion: 1, dependsOn: ['b'], register() {} });
    const b = definePlugin({ name: 'b', apiVersion: 1, register() {} });
    expect(orderPlugins([a, b]).map((p) => p.name)).toEqual(['b', 'a']);
    expect(() => orderPlugins([a])).toThrow(/needs plugin "b"/);
  });

  it('reports why every compositor plugin declined in one error', async () => {
    const d = dir();
    const s = await createSession({ source: 'cli', cwd: d, env: { HOME: d }, noFile: true });
    const err = await s.pipeline.call('desktop', {}).catch((e) => e);
    expect(err.code).toBe('unsupported.compositor');
    for (const id of ['hyprland', 'sway', 'niri']) expect(err.message).toContain(`${id}:`);
    await s.dispose();
  });

  it('a plugin whose register throws names itself', async () => {
    const bad = definePlugin({ name: 'bad-register', apiVersion: 1, register() { throw new Error('no way'); } });
    const tool = defineTool({ name: 't', title: 't', kind: 'observe', description: 'd', input: z.object({}), async handle() { return result('x').build(); } });
    const good = definePlugin({ name: 'good', apiVersion: 1, register(c) { c.register(Tokens.ToolPlugin, { useValue: tool }); } });
    const err = await createSession({ source: 'cli', noFile: true, noCompositor: true, plugins: [good, bad] }).catch((e) => e);
    expect(err.message).toBe('plugin "bad-register" failed to register: no way');
  });
});
