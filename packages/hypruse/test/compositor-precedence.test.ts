// An explicit socket variable (SWAYSOCK, NIRI_SOCKET, HYPRLAND_INSTANCE_SIGNATURE)
// beats another compositor's instance found on disk, whatever the plugin order.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { selectCompositor } from '@hypruse/core';
import { SwayCompositorFactory } from '@hypruse/compositor-sway';
import { NiriCompositorFactory } from '@hypruse/compositor-niri';
import { HyprlandCompositorFactory } from '@hypruse/compositor-hyprland';

const servers: Server[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function runtime(): string {
  const d = mkdtempSync(join(tmpdir(), 'hypr-disc-'));
  dirs.push(d);
  return d;
}

async function sock(path: string): Promise<void> {
  const s = createServer();
  servers.push(s);
  await new Promise<void>((r) => s.listen(path, r));
}

/** An instance dir with a listening .socket.sock; `lock` = pid to write, or null for no lock file; `age` seconds back. */
async function instance(rt: string, sig: string, lock: number | null, age = 0): Promise<void> {
  const dir = join(rt, 'hypr', sig);
  mkdirSync(dir, { recursive: true });
  await sock(join(dir, '.socket.sock'));
  if (lock !== null) writeFileSync(join(dir, 'hyprland.lock'), `${lock}\nwayland-1\n`);
  const t = Date.now() / 1000 - age;
  utimesSync(dir, t, t);
}

describe('explicit socket variables beat discovery', () => {
  const factories = () => [new HyprlandCompositorFactory(), new SwayCompositorFactory(), new NiriCompositorFactory()];

  it('SWAYSOCK set: sway wins over a live Hyprland instance directory found on disk', async () => {
    const rt = runtime();
    await instance(rt, 'live_1', process.pid);
    const swaysock = join(rt, 'sway-ipc.sock');
    await sock(swaysock);
    const env = { XDG_RUNTIME_DIR: rt, SWAYSOCK: swaysock };
    const sel = await selectCompositor(factories(), { env, runtimeDir: rt }, 'auto');
    expect(sel.factory?.id).toBe('sway');
    // without SWAYSOCK, the discovered Hyprland is used
    const bare = await selectCompositor(factories(), { env: { XDG_RUNTIME_DIR: rt }, runtimeDir: rt }, 'auto');
    expect(bare.factory?.id).toBe('hyprland');
  });

  it('NIRI_SOCKET set: niri wins over a discovered Hyprland; HYPRLAND_INSTANCE_SIGNATURE set: Hyprland wins over a discovered sway', async () => {
    const rt = runtime();
    await instance(rt, 'live_1', process.pid);
    const niri = join(rt, 'niri-explicit.sock');
    await sock(niri);
    const sel = await selectCompositor(factories(), { env: { XDG_RUNTIME_DIR: rt, NIRI_SOCKET: niri }, runtimeDir: rt }, 'auto');
    expect(sel.factory?.id).toBe('niri');
    // a live sway-ipc.<uid>.<pid>.sock on disk, but the Hyprland variable is explicit
    await sock(join(rt, `sway-ipc.${process.getuid?.() ?? 1000}.${process.pid}.sock`));
    const order = [new SwayCompositorFactory(), new HyprlandCompositorFactory()];
    const h = await selectCompositor(order, { env: { XDG_RUNTIME_DIR: rt, HYPRLAND_INSTANCE_SIGNATURE: 'live_1' }, runtimeDir: rt }, 'auto');
    expect(h.factory?.id).toBe('hyprland');
    const d = await selectCompositor(order, { env: { XDG_RUNTIME_DIR: rt }, runtimeDir: rt }, 'auto');
    expect(d.factory?.id).toBe('sway');
  });
});
