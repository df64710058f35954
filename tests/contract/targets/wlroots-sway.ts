// Contract target: the no-IPC wlroots plugin against the real headless sway of
// the test desktop harness, through the Wayland protocols only (sway offers
// zwlr_foreign_toplevel_manager_v1). The plugin's Wayland connection goes
// through a transparent proxy so the suite can drop it "from the server
// side". Windows are the harness's `foot` fixture; the plugin knows no pid or
// con id, so a window's address is found by its unique title.
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { WlrootsCompositorFactory } from '@hypruse/compositor-wlroots';
import { slowLaunchCommand, type ContractEnv, type ContractTarget } from '@hypruse/contract-kit';
import { desktopState, killFixture, launchFixture } from '../../support/desktop.js';
import { UnixProxy } from '../../real/support/socket-proxy.js';

export const target: ContractTarget = {
  id: 'wlroots-sway',

  async unavailable() {
    return desktopState() ? null : 'no test desktop is running (npm run desktop -- start; needs sway)';
  },

  async start(): Promise<ContractEnv> {
    const state = desktopState();
    if (!state) throw new Error('wlroots-sway target: no test desktop is running');
    const display = state.waylandDisplay.startsWith('/') ? state.waylandDisplay : join(state.runtimeDir, state.waylandDisplay);
    const proxy = await new UnixProxy(display, join(mkdtempSync(join(tmpdir(), 'hypruse-wlr-')), 'wayland-proxy')).listen();
    const factory = new WlrootsCompositorFactory();
    const compositor = await factory.create({ env: { WAYLAND_DISPLAY: proxy.socketPath, XDG_RUNTIME_DIR: state.runtimeDir }, runtimeDir: state.runtimeDir });
    const apps = new Set<number>();
    let n = 0;
    return {
      compositor,
      factory,
      async spawnWindow(opts) {
        const title = opts.title ?? `contract window ${++n}`;
        const args = ['-a', opts.appId ?? 'hypruse.contract', '-T', title];
        if (opts.lateTitle) args.push('sh', '-c', 'sleep 0.8; printf "\\033]2;%s\\007" "$0"; exec sleep 3600', opts.lateTitle);
        const app = await launchFixture('foot', { workspace: opts.workspace, args, timeoutMs: 10000 });
        apps.add(app.pid);
        const deadline = Date.now() + 5000;
        while (Date.now() < deadline) {
          // listed once the compositor has said which output shows it (output_enter may follow the first done)
          const w = (await compositor.snapshot()).windows.find((x) => x.title === title && (x.workspace !== null || x.workspaceUnknown !== undefined));
          if (w) return { pid: app.pid, address: w.address };
          await new Promise((r) => setTimeout(r, 40));
        }
        throw new Error(`wlroots-sway target: no toplevel titled "${title}" within 5 s`);
      },
      launchCommand: "foot -a hypruse.contract.launch -T 'contract launch'",
      slowLaunchCommand: slowLaunchCommand('exec foot -a "$APP" -T "$TITLE"'),
      spareWorkspace: 'hypruse-contract',
      openLayer: null,
      dropEvents: async () => {
        if (proxy.drop() === 0) throw new Error('wlroots-sway target: there was no Wayland connection to drop');
      },
      async stop() {
        await compositor.dispose();
        for (const pid of apps) await killFixture(pid).catch(() => {});
        await proxy.close();
      },
    };
  },
};
