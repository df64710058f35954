// One session environment: what compositor discovery found reaches the
// container (Tokens.SessionEnv, read by every backend), the compositor's
// create(), every tool context and every trust layer call.
import 'reflect-metadata';
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PLUGIN_API_VERSION, TRUST_ORDER, Tokens, definePlugin, defineTool, result, sessionEnvironment, type CompositorEnv, type TrustLayer } from '@hypruse/core';
import { z } from 'zod';
import { createSession } from 'hypruse';
import { FakeCompositor } from '../support/fakes.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const f of cleanups.splice(0)) f();
});

describe('the session environment', () => {
  it('discovery beats a stripped host env and reaches the container, create(), tools and trust layers', async () => {
    const created: CompositorEnv[] = [];
    const seen: { tool?: NodeJS.ProcessEnv; layer?: NodeJS.ProcessEnv } = {};
    const probe: TrustLayer = {
      name: 'probe',
      order: TRUST_ORDER.journal,
      appliesTo: () => true,
      handle: (call, next) => ((seen.layer = call.env), next()),
    };
    const plugin = definePlugin({
      name: 'probe',
      apiVersion: PLUGIN_API_VERSION,
      register(c) {
        c.register(Tokens.CompositorFactory, {
          useValue: {
            id: 'fake',
            detect: () => ({ ok: true as const, detail: 'found in the runtime dir', env: { WAYLAND_DISPLAY: 'wayland-7', FAKESOCK: '/run/fake.sock' } }),
            create: (env: CompositorEnv) => (created.push(env), new FakeCompositor()),
          },
        });
        c.register(Tokens.TrustLayer, { useValue: probe });
        c.register(Tokens.ToolPlugin, {
          useValue: defineTool({
            name: 'env_probe', title: 'env', kind: 'observe', description: 'reports the env', input: z.object({}).strict(),
            async handle(_a, ctx) {
              seen.tool = ctx.env;
              return result('ok').build();
            },
          }),
        });
      },
    });
    const s = await createSession({ source: 'mcp', noFile: true, env: { HOME: '/home/x', PATH: '/usr/bin', XDG_RUNTIME_DIR: '/tmp' }, plugins: [plugin] });
    try {
      const env = s.container.resolve<NodeJS.ProcessEnv>(Tokens.SessionEnv);
      expect(env).toMatchObject({ HOME: '/home/x', WAYLAND_DISPLAY: 'wayland-7', FAKESOCK: '/run/fake.sock', XDG_RUNTIME_DIR: '/tmp' });
      expect(s.env).toBe(env);
      expect(created[0].env).toMatchObject({ WAYLAND_DISPLAY: 'wayland-7' });
      await s.pipeline.call('env_probe', {});
      expect(seen.tool?.WAYLAND_DISPLAY).toBe('wayland-7');
      expect(seen.layer?.WAYLAND_DISPLAY).toBe('wayland-7');
    } finally {
      await s.dispose();
    }
  });

  it('names the session bus in the runtime dir when the host passed none, and keeps one the host passed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hypruse-env-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    expect(sessionEnvironment({ XDG_RUNTIME_DIR: dir }).DBUS_SESSION_BUS_ADDRESS).toBeUndefined();
    const bus = net.createServer().listen(join(dir, 'bus'));
    await new Promise((r) => bus.once('listening', r));
    cleanups.push(() => bus.close());
    expect(sessionEnvironment({ XDG_RUNTIME_DIR: dir }).DBUS_SESSION_BUS_ADDRESS).toBe(`unix:path=${dir}/bus`);
    expect(sessionEnvironment({ XDG_RUNTIME_DIR: dir, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x' }).DBUS_SESSION_BUS_ADDRESS).toBe('unix:path=/x');
    expect(sessionEnvironment({ WAYLAND_DISPLAY: 'wayland-0' }, { WAYLAND_DISPLAY: 'wayland-1' }).WAYLAND_DISPLAY).toBe('wayland-1');
  });
});
