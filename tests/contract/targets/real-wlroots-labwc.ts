// Contract target: the protocols-only wlroots plugin against real labwc 0.20
// in the real-compositor guest (tests/real). labwc has no IPC: the plugin is
// the only way hypruse reaches it, and the independent reader of a window is
// wlrctl (its own wlr-foreign-toplevel client). Registered only when
// HYPRUSE_CONTRACT_TARGETS names it (the guest does). The plugin's Wayland
// connection goes through a transparent proxy so the suite can drop it; a
// window is found by its unique title, first in wlrctl's list, then its
// address in the plugin's, once the compositor says which output shows it.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WlrootsCompositorFactory } from '@hypruse/compositor-wlroots';
import type { ContractEnv, ContractTarget } from '@hypruse/contract-kit';
import { realContractEnv } from '../../real/support/contract-env.js';
import { realCompositor, wlrctlToplevels } from '../../real/support/session.js';
import { UnixProxy } from '../../real/support/socket-proxy.js';

export const target: ContractTarget = {
  id: 'real-wlroots-labwc-0.20',
  selectOnly: true,

  async unavailable() {
    if (realCompositor() !== 'labwc') return 'not inside the real-compositor guest running labwc (node tests/real/run.mjs)';
    const rt = process.env.XDG_RUNTIME_DIR ?? '';
    const display = process.env.WAYLAND_DISPLAY ?? '';
    return display && existsSync(display.startsWith('/') ? display : join(rt, display)) ? null : `no Wayland socket for WAYLAND_DISPLAY=${display}`;
  },

  async start(): Promise<ContractEnv> {
    const rt = process.env.XDG_RUNTIME_DIR!;
    const display = process.env.WAYLAND_DISPLAY!;
    const proxy = await new UnixProxy(display.startsWith('/') ? display : join(rt, display), join(mkdtempSync(join(tmpdir(), 'hypruse-wlr-')), 'wayland-proxy')).listen();
    const factory = new WlrootsCompositorFactory();
    const compositor = await factory.create({ env: { WAYLAND_DISPLAY: proxy.socketPath, XDG_RUNTIME_DIR: rt }, runtimeDir: rt });
    return realContractEnv('labwc', factory, compositor, {
      spareWorkspace: 'hypruse-contract',
      dropEvents: async () => {
        if (proxy.drop() === 0) throw new Error('real labwc target: there was no Wayland connection to drop');
      },
      cleanup: () => proxy.close(),
      async locate(title) {
        if (!(await wlrctlToplevels()).some((t) => t.title === title)) return null;
        const w = (await compositor.snapshot()).windows.find((x) => x.title === title && x.workspace !== null);
        return w ? { address: w.address, workspace: w.workspace! } : null;
      },
    });
  },
};
