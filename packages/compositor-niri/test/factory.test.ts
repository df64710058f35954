import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Tokens, type CompositorFactory } from '@hypruse/core';
import { container } from 'tsyringe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NiriCompositor } from '../src/niri-compositor.js';
import { NiriCompositorFactory } from '../src/niri-compositor-factory.js';
import { niriPlugin } from '../src/plugin.js';
import { NiriSimulator } from '../../../tests/simulators/niri/niri-simulator.js';

let sim: NiriSimulator;
let empty: string;
beforeAll(async () => {
  sim = await NiriSimulator.start();
  empty = mkdtempSync(join(tmpdir(), 'niri-empty-'));
  writeFileSync(join(empty, 'niri.wayland-9.1.sock'), ''); // a plain file, and pid 1 is not niri's: must not be picked
});
afterAll(async () => {
  await sim.stop();
  rmSync(empty, { recursive: true, force: true });
});

const factory = new NiriCompositorFactory();

describe('NiriCompositorFactory', () => {
  it('detects niri from NIRI_SOCKET and hands out the session env', () => {
    const r = factory.detect({ env: { NIRI_SOCKET: sim.socketPath }, runtimeDir: null });
    expect(r).toMatchObject({ ok: true, env: { NIRI_SOCKET: sim.socketPath, WAYLAND_DISPLAY: 'wayland-sim' } });
  });

  it('finds the socket in the runtime dir when the host stripped NIRI_SOCKET', () => {
    const r = factory.detect({ env: {}, runtimeDir: sim.dir });
    expect(r).toMatchObject({ ok: true, detail: expect.stringContaining(sim.socketPath) });
  });

  it('falls back to the runtime dir when NIRI_SOCKET is stale', () => {
    const r = factory.detect({ env: { NIRI_SOCKET: '/nonexistent/niri.sock' }, runtimeDir: sim.dir });
    expect(r.ok).toBe(true);
  });

  it('declines with a reason, never throws', () => {
    const r = factory.detect({ env: { NIRI_SOCKET: '/nonexistent/niri.sock' }, runtimeDir: empty });
    expect(r).toEqual({ ok: false, reason: expect.stringMatching(/stale.*no live niri/) });
    expect(factory.detect({ env: {}, runtimeDir: '/nonexistent-dir' })).toMatchObject({ ok: false, reason: expect.stringContaining('cannot be read') });
  });

  it('creates a working compositor, or throws unsupported.compositor when there is none', async () => {
    const c = factory.create({ env: { NIRI_SOCKET: sim.socketPath }, runtimeDir: null });
    expect(c).toBeInstanceOf(NiriCompositor);
    expect(await c.version()).toContain('niri');
    await c.dispose();
    expect(() => factory.create({ env: {}, runtimeDir: empty })).toThrow(expect.objectContaining({ code: 'unsupported.compositor' }));
  });

  it('registers the factory through the plugin', async () => {
    const child = container.createChildContainer();
    await niriPlugin.register(child, { config: {} as never, baseDir: '.' });
    expect(child.resolveAll<CompositorFactory>(Tokens.CompositorFactory).map((f) => f.id)).toEqual(['niri']);
  });
});
