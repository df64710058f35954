// The part of a contract target (tests/contract/targets/real-*.ts) that is the
// same on every real compositor in the guest: windows are real foot terminals
// started outside hypruse, found through the compositor's own client, moved
// there independently when a workspace is asked for, and killed at the end.
import { execFileSync } from 'node:child_process';
import { constants, mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Compositor, CompositorFactory } from '@hypruse/core';
import { slowLaunchCommand } from '@hypruse/contract-kit';
import type { ContractEnv } from '@hypruse/contract-kit';
import { moveWindowIndependently, scaled, startApp, until, windowOfPid, type RealCompositor } from './session.js';

export function realContractEnv(
  c: RealCompositor,
  factory: CompositorFactory,
  compositor: Compositor,
  opts: {
    spareWorkspace: string;
    dropEvents: () => Promise<void>;
    cleanup: () => Promise<void>;
    /** Where the compositor tells no pid (the wlroots plugin): the window of a started app, found by its unique title (workspace null where unknown). */
    locate?: (title: string) => Promise<{ address: string; workspace: string | null } | null>;
  },
): ContractEnv {
  const apps = new Set<number>();
  const where = c === 'hyprland' ? 'hyprctl clients' : c === 'labwc' ? "wlrctl's toplevel list" : "sway's tree";
  return {
    compositor,
    factory,
    // no layer-shell client in the guest: C-LAYERS checks the kinds of what the session lists
    openLayer: null,
    async spawnWindow(o) {
      const args = ['-a', o.appId ?? 'hypruse.contract', '-T', o.title ?? 'contract window'];
      // The terminal names its window from the program inside (OSC 2), like an app titling its window late.
      // It does so when told through a FIFO, a while after the window was found under its first title (the
      // time scale's 0.8 s): a fixed delay from its start ran out before a foot window even mapped on a
      // loaded guest.
      let fifo: string | null = null;
      if (o.lateTitle) {
        fifo = join(mkdtempSync(join(tmpdir(), 'hypruse-late-title-')), 'go');
        execFileSync('mkfifo', [fifo]);
        args.push('sh', '-c', 'read go < "$1"; printf "\\033]2;%s\\007" "$0"; exec sleep 3600', o.lateTitle, fifo);
      }
      const pid = startApp('foot', args).pid!;
      apps.add(pid);
      const title = o.title ?? 'contract window';
      const w = await until(`foot (pid ${pid}) in ${where}`, () => (opts.locate ? opts.locate(title) : windowOfPid(c, pid)), scaled(15000));
      if (fifo) {
        const path = fifo;
        setTimeout(() => void tellFifo(path), scaled(800));
      }
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

/** Write one line into a FIFO once its reader is there (never blocks: gives up after a while), then remove it. */
async function tellFifo(path: string): Promise<void> {
  const deadline = Date.now() + scaled(15000);
  try {
    for (;;) {
      try {
        const fh = await open(path, constants.O_WRONLY | constants.O_NONBLOCK);
        await fh.write('go\n');
        await fh.close();
        return;
      } catch (e) {
        // ENXIO: no reader yet
        if ((e as NodeJS.ErrnoException).code !== 'ENXIO' || Date.now() > deadline) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    rmSync(dirname(path), { recursive: true, force: true });
  }
}
