// Contract target: the Hyprland plugin against the protocol-faithful Hyprland
// simulator (tests/simulators/hyprland), Hyprland 0.56 with a Lua config (the
// dialect most likely to break). Windows belong to real processes: each is a
// fake-app.mjs process that maps its window through the simulator's control
// socket, so pids, launch matching by process ancestry and close are real.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { HyprlandCompositorFactory } from '@hypruse/compositor-hyprland';
import { slowLaunchCommand } from '@hypruse/contract-kit';
import type { ContractEnv, ContractTarget } from '@hypruse/contract-kit';
import { FAKE_APP, HyprlandSimulator } from '../../simulators/hyprland/index.js';

const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export const target: ContractTarget = {
  id: 'hyprland',

  async unavailable() {
    return existsSync(FAKE_APP) ? null : `the Hyprland simulator's fake app is missing (${FAKE_APP})`;
  },

  async start(): Promise<ContractEnv> {
    const version = (process.env.HYPRUSE_CONTRACT_HYPRLAND_VERSION ?? '0.56') as '0.50' | '0.54' | '0.56' | 'main';
    const provider = process.env.HYPRUSE_CONTRACT_HYPRLAND_CONFIG === 'hyprlang' ? 'hyprlang' : 'lua';
    const sim = await new HyprlandSimulator({ version, configProvider: provider, processes: 'spawn' }).start();
    const factory = new HyprlandCompositorFactory();
    const compositor = await factory.create({ env: { ...sim.env }, runtimeDir: sim.runtimeDir });
    const children = new Set<ChildProcess>();

    async function spawnWindow(opts: { title?: string; appId?: string; workspace?: string; lateTitle?: string }): Promise<{ pid: number; address: string }> {
      const args = [FAKE_APP, '--title', opts.title ?? 'contract window', '--class', opts.appId ?? 'hypruse.contract'];
      if (opts.workspace) args.push('--workspace', opts.workspace);
      const child = spawn(process.execPath, args, { env: { ...process.env, ...sim.env, HYPRUSE_SIM_CONTROL: sim.controlPath }, stdio: 'ignore' });
      children.add(child);
      child.once('exit', () => children.delete(child));
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline) {
        const w = sim.windows.find((x) => x.pid === child.pid);
        if (w) {
          const late = opts.lateTitle;
          if (late) setTimeout(() => sim.windows.some((x) => x.address === w.address) && sim.setTitle(w.address, late), 800);
          return { pid: child.pid as number, address: w.address };
        }
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error('hyprland target: the fake app mapped no window within 5 s');
    }

    return {
      compositor,
      factory,
      spawnWindow,
      launchCommand: `${shq(process.execPath)} ${shq(FAKE_APP)} --title 'contract launch' --class hypruse.launch --delay 50`,
      slowLaunchCommand: slowLaunchCommand(`exec ${shq(process.execPath)} ${shq(FAKE_APP)} --class "$APP" --title "$TITLE"`),
      spareWorkspace: '3',
      dropEvents: async () => {
        sim.dropEventClients();
      },
      openLayer: async (namespace) => {
        sim.openLayer(namespace, 3);
        return async () => sim.closeLayer(namespace);
      },
      async stop() {
        await compositor.dispose();
        for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
        await sim.stop();
      },
    };
  },
};
