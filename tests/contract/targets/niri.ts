// Contract target: the niri plugin against the protocol-faithful niri
// simulator (tests/simulators/niri). Windows belong to real processes: each
// is a fake-client.mjs process that maps its own window through the
// simulator, so pids, launch matching and close-by-hangup are real.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NiriCompositorFactory, resolveWorkspace, type NiriCompositor } from '@hypruse/compositor-niri';
import { slowLaunchCommand } from '@hypruse/contract-kit';
import type { ContractEnv, ContractTarget } from '@hypruse/contract-kit';
import { NiriSimulator } from '../../simulators/niri/niri-simulator.js';

const FAKE_CLIENT = fileURLToPath(new URL('../../simulators/niri/fake-client.mjs', import.meta.url));
const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export const target: ContractTarget = {
  id: 'niri',

  async unavailable() {
    return existsSync(FAKE_CLIENT) ? null : `the niri fake client is missing (${FAKE_CLIENT})`;
  },

  async start(): Promise<ContractEnv> {
    const sim = await NiriSimulator.start();
    const factory = new NiriCompositorFactory();
    const compositor = factory.create({ env: sim.env, runtimeDir: sim.dir }) as NiriCompositor;
    const children = new Set<ChildProcess>();

    async function spawnWindow(opts: { title?: string; appId?: string; workspace?: string; lateTitle?: string }): Promise<{ pid: number; address: string }> {
      const args = [FAKE_CLIENT, '--title', opts.title ?? 'contract window', '--app-id', opts.appId ?? 'hypruse.contract'];
      if (opts.workspace) {
        const ws = resolveWorkspace(opts.workspace, await compositor.ipc.workspaces()).workspace;
        if (!ws) throw new Error(`niri target: workspace '${opts.workspace}' does not exist in the simulator`);
        args.push('--workspace', String(ws.id));
      }
      const child = spawn(process.execPath, args, { env: { ...process.env, ...sim.env }, stdio: 'ignore' });
      children.add(child);
      child.once('exit', () => children.delete(child));
      const address = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          sim.off('window-open', onOpen);
          reject(new Error('niri target: the fake client mapped no window within 5 s'));
        }, 5000);
        const onOpen = (id: number) => {
          if (sim.windows.get(id)?.pid !== child.pid) return;
          clearTimeout(timer);
          sim.off('window-open', onOpen);
          resolve(String(id));
        };
        sim.on('window-open', onOpen);
      });
      const late = opts.lateTitle;
      if (late) setTimeout(() => sim.windows.has(Number(address)) && sim.setTitle(Number(address), late), 800);
      return { pid: child.pid!, address };
    }

    return {
      compositor,
      factory,
      spawnWindow,
      launchCommand: `${shq(process.execPath)} ${shq(FAKE_CLIENT)} --title 'contract launch' --app-id hypruse.launch --delay-ms 50`,
      slowLaunchCommand: slowLaunchCommand(`exec ${shq(process.execPath)} ${shq(FAKE_CLIENT)} --app-id "$APP" --title "$TITLE"`),
      spareWorkspace: '3',
      dropEvents: async () => {
        sim.dropEventStreams();
      },
      openLayer: async (namespace) => {
        sim.addLayer({ namespace, output: 'DP-1', layer: 'Overlay', keyboard_interactivity: 'Exclusive' });
        return async () => sim.removeLayer(namespace);
      },
      async stop() {
        await compositor.dispose();
        await sim.stop(); // hangs up on every fake client: they exit
        for (const c of children) c.kill('SIGKILL');
      },
    };
  },
};
