// Contract target: the protocols-only wlroots plugin against real sway 1.12 in
// the real-compositor guest (tests/real), through the Wayland protocols alone.
// Registered only when HYPRUSE_CONTRACT_TARGETS names it (the guest does). The
// plugin's Wayland connection goes through a transparent proxy so the suite
// can drop it; the plugin knows no pid or con id, so a window's address is
// found by its unique title once the compositor says which output shows it.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WlrootsCompositorFactory } from '@hypruse/compositor-wlroots';
import type { ContractEnv, ContractTarget } from '@hypruse/contract-kit';
import { realContractEnv } from '../../real/support/contract-env.js';
import { realCompositor } from '../../real/support/session.js';
import { UnixProxy } from '../../real/support/socket-proxy.js';

export const target: ContractTarget = {
  id: 'real-wlroots-sway-1.12',
  selectOnly: true,

  async unavailable() {
    if (realCompositor() !== 'sway') return 'not inside the real-compositor guest running sway (node tests/real/run.mjs)';
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
    const env = realContractEnv('sway', factory, compositor, {
      spareWorkspace: 'hypruse-contract',
      dropEvents: async () => {
        if (proxy.drop() === 0) throw new Error('real wlroots target: there was no Wayland connection to drop');
      },
      cleanup: () => proxy.close(),
    });
    const spawn = env.spawnWindow;
    let n = 0;
    env.spawnWindow = async (o) => {
      const title = o.title ?? `contract window ${++n}`;
      const r = await spawn({ ...o, title });
      const deadline = Date.now() + 10000;
      while (Date.now() < deadline) {
        const w = (await compositor.snapshot()).windows.find((x) => x.title === title && x.workspace !== null);
        if (w) return { pid: r.pid, address: w.address };
        await new Promise((res) => setTimeout(res, 40));
      }
      throw new Error(`real wlroots target: no toplevel titled "${title}" within 10 s`);
    };
    return env;
  },
};
