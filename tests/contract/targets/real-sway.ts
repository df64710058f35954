// Contract target: the sway plugin against real sway 1.12 (wlroots 0.20,
// headless, two outputs, one at scale 1.5) in the real-compositor guest
// (tests/real). Registered only when HYPRUSE_CONTRACT_TARGETS names it (the
// guest does). The plugin talks to sway through the transparent i3-ipc proxy
// (support/sway-proxy.ts) so the suite can drop the event connection.
import { existsSync } from 'node:fs';
import { SwayCompositorFactory, type SwayCompositor } from '@hypruse/compositor-sway';
import type { ContractEnv, ContractTarget } from '@hypruse/contract-kit';
import { SwayProxy } from '../support/sway-proxy.js';
import { realContractEnv } from '../../real/support/contract-env.js';
import { realCompositor } from '../../real/support/session.js';

export const target: ContractTarget = {
  id: 'real-sway-1.12',
  selectOnly: true,

  async unavailable() {
    if (realCompositor() !== 'sway') return 'not inside the real-compositor guest running sway (node tests/real/run.mjs)';
    const sock = process.env.SWAYSOCK;
    return sock && existsSync(sock) ? null : `SWAYSOCK (${sock}) is not a socket`;
  },

  async start(): Promise<ContractEnv> {
    const proxy = await new SwayProxy(process.env.SWAYSOCK!).listen();
    const factory = new SwayCompositorFactory();
    const compositor = (await factory.create({
      env: { SWAYSOCK: proxy.socketPath, WAYLAND_DISPLAY: process.env.WAYLAND_DISPLAY ?? '', XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR ?? '' },
      runtimeDir: process.env.XDG_RUNTIME_DIR ?? null,
    })) as SwayCompositor;
    return realContractEnv('sway', factory, compositor, {
      spareWorkspace: 'hypruse-contract',
      dropEvents: async () => {
        if (proxy.dropEventConnections() === 0) throw new Error('real sway target: there was no event connection to drop');
      },
      cleanup: () => proxy.close(),
    });
  },
};
