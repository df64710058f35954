// The part of a contract target (tests/contract/targets/real-*.ts) that is the
// same on every real compositor in the guest: windows are real foot terminals
// started outside hypruse, found through the compositor's own client, moved
// there independently when a workspace is asked for, and killed at the end.
import type { Compositor } from '@hypruse/core';
import { slowLaunchCommand } from '../../contract/support/slow-launch.js';
import type { ContractEnv } from '../../contract/target.js';
import { moveWindowIndependently, scaled, startApp, until, windowOfPid, type RealCompositor } from './session.js';

export function realContractEnv(
  c: RealCompositor,
  compositor: Compositor,
  opts: { spareWorkspace: string; dropEvents: () => Promise<void>; cleanup: () => Promise<void> },
): ContractEnv {
  const apps = new Set<number>();
  const where = c === 'hyprland' ? 'hyprctl clients' : "sway's tree";
  return {
    compositor,
    async spawnWindow(o) {
      const args = ['-a', o.appId ?? 'hypruse.contract', '-T', o.title ?? 'contract window'];
      // the terminal names its window from the program inside (OSC 2), like an app titling its window late
      if (o.lateTitle) args.push('sh', '-c', 'sleep 0.8; printf "\\033]2;%s\\007" "$0"; exec sleep 3600', o.lateTitle);
      const pid = startApp('foot', args).pid!;
      apps.add(pid);
      const w = await until(`foot (pid ${pid}) in ${where}`, () => windowOfPid(c, pid), scaled(15000));
      if (o.workspace && w.workspace !== o.workspace) {
        await moveWindowIndependently(c, w.address, o.workspace);
        await until(`${w.address} on workspace ${o.workspace}`, async () => (await windowOfPid(c, pid))?.workspace === o.workspace, scaled(5000));
      }
      return { pid, address: w.address };
    },
    launchCommand: "foot -a hypruse.contract.launch -T 'contract launch'",
    slowLaunchCommand: slowLaunchCommand('exec foot -a "$APP" -T "$TITLE"'),
    spareWorkspace: opts.spareWorkspace,
    dropEvents: opts.dropEvents,
    async stop() {
      await compositor.dispose();
      for (const pid of apps) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          /* gone */
        }
      }
      await opts.cleanup();
    },
  };
}
