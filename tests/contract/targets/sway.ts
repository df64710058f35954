// Contract target: the sway plugin against the real headless sway of the test
// desktop harness (tests/desktop). The plugin talks to sway through a
// transparent proxy (support/sway-proxy.ts) so the suite can drop the event
// connection "from the server side". Windows opened outside hypruse are the
// harness's `foot` fixture, run as the desktop user.
import { SwayCompositorFactory, type SwayCompositor } from '@hypruse/compositor-sway';
import { desktopState, killFixture, launchFixture } from '../../support/desktop.js';
import { slowLaunchCommand } from '@hypruse/contract-kit';
import type { ContractEnv, ContractTarget } from '@hypruse/contract-kit';
import { SwayProxy } from '../support/sway-proxy.js';

export const target: ContractTarget = {
  id: 'sway',

  async unavailable() {
    const state = desktopState();
    return state ? null : 'no test desktop is running (npm run desktop -- start; needs sway)';
  },

  async start(): Promise<ContractEnv> {
    const state = desktopState();
    if (!state) throw new Error('sway target: no test desktop is running (npm run desktop -- start)');
    const proxy = await new SwayProxy(state.swaysock).listen();
    const factory = new SwayCompositorFactory();
    const compositor = (await factory.create({
      env: { SWAYSOCK: proxy.socketPath, WAYLAND_DISPLAY: state.waylandDisplay, XDG_RUNTIME_DIR: state.runtimeDir },
      runtimeDir: state.runtimeDir,
    })) as SwayCompositor;
    const apps = new Set<number>();
    let n = 0;

    return {
      compositor,
      factory,
      async spawnWindow(opts) {
        const args = ['-a', opts.appId ?? 'hypruse.contract', '-T', opts.title ?? `contract window ${++n}`];
        // the terminal names its window from the program inside (OSC 2), like an app titling its window late
        if (opts.lateTitle) args.push('sh', '-c', 'sleep 0.8; printf "\\033]2;%s\\007" "$0"; exec sleep 3600', opts.lateTitle);
        const app = await launchFixture('foot', { workspace: opts.workspace, args, timeoutMs: 10000 });
        apps.add(app.pid);
        if (app.conId === undefined) throw new Error('sway target: the harness reported no con id for the foot window');
        return { pid: app.pid, address: String(app.conId) };
      },
      launchCommand: "foot -a hypruse.contract.launch -T 'contract launch'",
      slowLaunchCommand: slowLaunchCommand('exec foot -a "$APP" -T "$TITLE"'),
      spareWorkspace: 'hypruse-contract',
      openLayer: null,
      dropEvents: async () => {
        if (proxy.dropEventConnections() === 0) throw new Error('sway target: there was no event connection to drop');
      },
      async stop() {
        await compositor.dispose();
        for (const pid of apps) await killFixture(pid).catch(() => {});
        await proxy.close();
      },
    };
  },
};
