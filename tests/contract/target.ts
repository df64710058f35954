import type { Compositor } from '@hypruse/core';

/** One compositor under contract test: what the suite needs besides the Compositor itself. */
export interface ContractEnv {
  compositor: Compositor;
  /** Start a process that opens one window (outside hypruse); resolves with its pid once the compositor lists the window. */
  spawnWindow(opts: { title?: string; appId?: string; workspace?: string }): Promise<{ pid: number; address: string }>;
  /** A shell command for compositor.launch() that opens exactly one window. */
  launchCommand: string;
  /** An existing or creatable workspace name that is not the focused one. */
  spareWorkspace: string;
  /** Kill the event connection from the server side (to test reconnection); null if the target cannot. */
  dropEvents: (() => Promise<void>) | null;
  stop(): Promise<void>;
}

export interface ContractTarget {
  id: string;
  /** null when available; otherwise the reason it cannot run here. */
  unavailable(): Promise<string | null>;
  start(): Promise<ContractEnv>;
}
