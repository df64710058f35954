// The contract target of the protocols-only wlroots plugin on a real compositor
// in the guest (tests/real): one factory, one target per compositor
// (tests/contract/targets/real-wlroots-*.ts), which differ by id and by the
// compositor whose session they need. Registered only when
// HYPRUSE_CONTRACT_TARGETS names them (the guest does). The plugin's Wayland
// connection goes through a transparent proxy so the suite can drop it. The
// plugin knows no pid, so a started window is found by its unique title:
// first in wlrctl's list (an independent wlr-foreign-toplevel client), then
// in the plugin's, once the plugin can place it (an output, or a workspace it
// says it cannot know). The spare workspace is one the compositor lists and
// does not show focused (ext-workspace-v1 creates none here), or a name when
// the plugin switches none.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WlrootsCompositorFactory } from '@hypruse/compositor-wlroots';
import type { ContractEnv, ContractTarget } from '@hypruse/contract-kit';
import { realContractEnv } from './contract-env.js';
import { realCompositor, wlrctlToplevels, type RealCompositor } from './session.js';
import { UnixProxy } from './socket-proxy.js';

export function realWlrootsTarget(id: string, on: Exclude<RealCompositor, 'hyprland'>): ContractTarget {
  return {
    id,
    selectOnly: true,

    async unavailable() {
      if (realCompositor() !== on) return `not inside the real-compositor guest running ${on} (node tests/real/run.mjs)`;
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
      const listed = compositor.capabilities.has('workspace') ? (await compositor.snapshot()).workspaces.find((w) => !w.focused && !w.hidden) : undefined;
      return realContractEnv(on, factory, compositor, {
        spareWorkspace: listed?.name ?? 'hypruse-contract',
        dropEvents: async () => {
          if (proxy.drop() === 0) throw new Error(`${id}: there was no Wayland connection to drop`);
        },
        cleanup: () => proxy.close(),
        async locate(title) {
          if (!(await wlrctlToplevels()).some((t) => t.title === title)) return null;
          const w = (await compositor.snapshot()).windows.find((x) => x.title === title && (x.workspace !== null || x.workspaceUnknown !== undefined));
          return w ? { address: w.address, workspace: w.workspace } : null;
        },
      });
    },
  };
}
