import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { container } from 'tsyringe';
import { PLUGIN_API_VERSION, Tokens, defaultConfig, type CompositorFactory } from '@hypruse/core';
import { SwayCompositorFactory } from '../src/factory.js';
import { swayPlugin } from '../src/plugin.js';
import { FakeSway } from './support/fake-sway.js';

let fake: FakeSway | null = null;
afterEach(async () => {
  await fake?.stop();
  fake = null;
});

describe('SwayCompositorFactory.detect', () => {
  const f = new SwayCompositorFactory();

  it('declines with a reason when nothing points at sway, never throwing', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rt-'));
    expect(f.detect({ env: {}, runtimeDir: dir })).toEqual({ ok: false, reason: expect.stringContaining('no live sway-ipc') });
    expect(f.detect({ env: {}, runtimeDir: null })).toMatchObject({ ok: false });
    expect(f.detect({ env: { SWAYSOCK: path.join(dir, 'missing.sock') }, runtimeDir: dir })).toEqual({ ok: false, reason: expect.stringContaining('is not a socket') });
    rmSync(dir, { recursive: true });
  });

  it('uses SWAYSOCK when set', async () => {
    fake = await new FakeSway(() => undefined).start();
    const r = f.detect({ env: { SWAYSOCK: fake.socketPath, WAYLAND_DISPLAY: 'wayland-9' }, runtimeDir: '/nowhere' });
    expect(r).toMatchObject({ ok: true, env: { SWAYSOCK: fake.socketPath, WAYLAND_DISPLAY: 'wayland-9' } });
  });

  it('finds a live sway-ipc.<uid>.<pid>.sock in the runtime dir when the environment was stripped, ignoring stale ones', async () => {
    fake = await new FakeSway(() => undefined).start();
    // a stale socket name whose pid does not exist, and a plain file with a live pid
    writeFileSync(path.join(fake.dir, 'sway-ipc.0.999999999.sock'), '');
    const r = f.detect({ env: {}, runtimeDir: fake.dir });
    expect(r).toMatchObject({ ok: true, env: { SWAYSOCK: fake.socketPath, XDG_RUNTIME_DIR: fake.dir } });
  });

  it('create() refuses with unsupported.compositor when sway is absent', () => {
    expect(() => f.create({ env: {}, runtimeDir: null })).toThrow(expect.objectContaining({ code: 'unsupported.compositor' }));
  });
});

describe('swayPlugin', () => {
  it('registers the sway factory under Tokens.CompositorFactory', async () => {
    const child = container.createChildContainer();
    expect(swayPlugin.apiVersion).toBe(PLUGIN_API_VERSION);
    await swayPlugin.register(child, { config: defaultConfig(), baseDir: process.cwd() });
    const factories = child.resolveAll<CompositorFactory>(Tokens.CompositorFactory);
    expect(factories.map((x) => x.id)).toEqual(['sway']);
  });
});
