// Contract target: the sway plugin against real sway 1.12 (wlroots 0.20,
// headless, two outputs, one at scale 1.5) in the real-compositor guest
// (tests/real). Registered only when HYPRUSE_CONTRACT_TARGETS names it (the
// guest does). The plugin talks to sway through the transparent i3-ipc proxy
// (support/sway-proxy.ts) so the suite can drop the event connection.
import { existsSync } from 'node:fs';
import { SwayCompositorFactory, type SwayCompositor } from '@hypruse/compositor-sway';
import { slowLaunchCommand } from '../support/slow-launch.js';
import type { ContractEnv, ContractTarget } from '../target.js';
import { SwayProxy } from '../support/sway-proxy.js';
import { moveWindowIndependently, realCompositor, scaled, startApp, until, windowOfPid } from '../../real/support/session.js';

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
    const compositor = (await new SwayCompositorFactory().create({
      env: { SWAYSOCK: proxy.socketPath, WAYLAND_DISPLAY: process.env.WAYLAND_DISPLAY ?? '', XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR ?? '' },
      runtimeDir: process.env.XDG_RUNTIME_DIR ?? null,
    })) as SwayCompositor;
    const apps = new Set<number>();
    return {
      compositor,
      async spawnWindow(opts) {
        const args = ['-a', opts.appId ?? 'hypruse.contract', '-T', opts.title ?? 'contract window'];
        // the terminal names its window from the program inside (OSC 2), like an app titling its window late
        if (opts.lateTitle) args.push('sh', '-c', 'sleep 0.8; printf "\\033]2;%s\\007" "$0"; exec sleep 3600', opts.lateTitle);
        const app = startApp('foot', args);
        const pid = app.pid!;
        apps.add(pid);
        const w = await until(`foot (pid ${pid}) in sway's tree`, () => windowOfPid('sway', pid), scaled(15000));
        if (opts.workspace && w.workspace !== opts.workspace) {
          await moveWindowIndependently('sway', w.address, opts.workspace);
          await until(`${w.address} on workspace ${opts.workspace}`, async () => (await windowOfPid('sway', pid))?.workspace === opts.workspace, scaled(5000));
        }
        return { pid, address: w.address };
      },
      launchCommand: "foot -a hypruse.contract.launch -T 'contract launch'",
      slowLaunchCommand: slowLaunchCommand('exec foot -a "$APP" -T "$TITLE"'),
      spareWorkspace: 'hypruse-contract',
      dropEvents: async () => {
        if (proxy.dropEventConnections() === 0) throw new Error('real sway target: there was no event connection to drop');
      },
      async stop() {
        await compositor.dispose();
        for (const pid of apps) {
          try {
            process.kill(pid, 'SIGTERM');
          } catch {
            /* gone */
          }
        }
        await proxy.close();
      },
    };
  },
};
