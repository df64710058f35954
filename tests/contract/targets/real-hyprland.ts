// Contract target: the Hyprland plugin against real Hyprland 0.57 (Lua
// config) in the real-compositor guest (tests/real). Registered only when
// HYPRUSE_CONTRACT_TARGETS names it (the guest does). The plugin sees the
// real instance through a directory of its own whose request socket is the
// real one and whose event socket is a transparent proxy, so the suite can
// drop the event connection from the server side. Windows are real foot
// terminals started outside hypruse (support/contract-env.ts).
import { mkdtempSync, rmSync, symlinkSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HyprlandCompositorFactory } from '@hypruse/compositor-hyprland';
import type { ContractEnv, ContractTarget } from '@hypruse/contract-kit';
import { realContractEnv } from '../../real/support/contract-env.js';
import { UnixProxy } from '../../real/support/socket-proxy.js';
import { realCompositor } from '../../real/support/session.js';

export const target: ContractTarget = {
  id: 'real-hyprland-0.57',
  selectOnly: true,

  async unavailable() {
    if (realCompositor() !== 'hyprland') return 'not inside the real-compositor guest running Hyprland (node tests/real/run.mjs)';
    const sig = process.env.HYPRLAND_INSTANCE_SIGNATURE;
    const run = process.env.XDG_RUNTIME_DIR;
    if (!sig || !run || !existsSync(join(run, 'hypr', sig, '.socket.sock'))) return `no Hyprland instance socket for HYPRLAND_INSTANCE_SIGNATURE=${sig}`;
    return null;
  },

  async start(): Promise<ContractEnv> {
    const sig = process.env.HYPRLAND_INSTANCE_SIGNATURE!;
    const real = join(process.env.XDG_RUNTIME_DIR!, 'hypr', sig);
    const fakeRun = mkdtempSync(join(tmpdir(), 'hypr-contract-'));
    const dir = join(fakeRun, 'hypr', sig);
    mkdirSync(dir, { recursive: true });
    symlinkSync(join(real, '.socket.sock'), join(dir, '.socket.sock'));
    if (existsSync(join(real, 'hyprland.lock'))) symlinkSync(join(real, 'hyprland.lock'), join(dir, 'hyprland.lock'));
    const proxy = await new UnixProxy(join(real, '.socket2.sock'), join(dir, '.socket2.sock')).listen();
    const factory = new HyprlandCompositorFactory();
    const compositor = await factory.create({
      env: { HYPRLAND_INSTANCE_SIGNATURE: sig, XDG_RUNTIME_DIR: fakeRun, WAYLAND_DISPLAY: process.env.WAYLAND_DISPLAY ?? '' },
      runtimeDir: fakeRun,
    });
    return realContractEnv('hyprland', factory, compositor, {
      spareWorkspace: '3',
      dropEvents: async () => {
        if (proxy.drop() === 0) throw new Error('real Hyprland target: there was no event connection to drop');
      },
      cleanup: async () => {
        await proxy.close();
        rmSync(fakeRun, { recursive: true, force: true });
      },
    });
  },
};
