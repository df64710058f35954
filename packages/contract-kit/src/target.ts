import type { Compositor, CompositorFactory } from '@hypruse/core';

/** One compositor under contract test: what the suite needs besides the Compositor itself. */
export interface ContractEnv {
  compositor: Compositor;
  /** The factory that made it (its manifest is checked against it: C-MANIFEST). */
  factory: CompositorFactory;
  /**
   * Start a process that opens one window (outside hypruse); resolves with its pid once the compositor lists the window.
   * With `lateTitle`, the app sets that title about 0.8 s after its window opened (an app that names its window late).
   */
  spawnWindow(opts: { title?: string; appId?: string; workspace?: string; lateTitle?: string }): Promise<{ pid: number; address: string }>;
  /** A shell command for compositor.launch() that opens exactly one window. */
  launchCommand: string;
  /** A program named like the class of the one window it opens 1.5 s after it starts (support/slow-launch.ts). */
  slowLaunchCommand: string;
  /** An existing or creatable workspace name that is not the focused one. */
  spareWorkspace: string;
  /** Kill the event connection from the server side (to test reconnection); null if the target cannot. */
  dropEvents: (() => Promise<void>) | null;
  /**
   * Put a layer-shell surface with this namespace on the overlay level (a locker, a launcher) and return how to remove it;
   * null if the target cannot (it then lists what the session has).
   */
  openLayer: ((namespace: string) => Promise<() => Promise<void>>) | null;
  stop(): Promise<void>;
}

export interface ContractTarget {
  id: string;
  /** Run only when the suite is asked for it by id (`only`) (targets that exist only in a special environment, such as the real-compositor guest). */
  selectOnly?: boolean;
  /** null when available; otherwise the reason it cannot run here. */
  unavailable(): Promise<string | null>;
  start(): Promise<ContractEnv>;
}
