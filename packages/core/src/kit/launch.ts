import { launchWaitExtras, type LaunchResult } from '../contracts/compositor.js';
import type { Window } from '../contracts/desktop.js';
import { awaitLaunchedWindow, type LaunchSteps, type LaunchWaitOptions } from '../process/await-launch.js';

/** What a plugin adds to the launch wait to place the window it found. */
export interface PlaceSteps extends LaunchSteps {
  /** The window at `address` as the desktop lists it now. */
  window(address: string): Promise<Window | null>;
  /** Whether the window is where the person asked (default: its workspace equals the request). */
  placed?(window: Window, workspace: string): boolean | Promise<boolean>;
  /** Move it there without following it. */
  move(address: string, workspace: string): Promise<void>;
}

/**
 * The one launch-and-place policy: wait for the launched process's own window
 * (core's awaitLaunchedWindow: splashes, replaced first windows, hand-offs),
 * then, when a workspace was asked for and the app ignored it, move the window
 * there silently and say so in one note. The pid is the started process's when
 * hypruse started it, else (the compositor started it) the window's own.
 */
export async function launchAndPlace(steps: PlaceSteps, opts: LaunchWaitOptions & { workspace?: string }): Promise<LaunchResult> {
  const wait = await awaitLaunchedWindow(steps, opts);
  const extras = await launchWaitExtras(wait, (a) => steps.window(a).catch(() => null));
  if (!wait.window) return { pid: wait.pid, window: null, note: wait.note, ...extras };
  const address = wait.window.address;
  let window = await steps.window(address);
  const pid = wait.pid ?? wait.window.pid ?? window?.pid ?? null;
  const target = opts.workspace;
  if (!target || !window || (await (steps.placed ? steps.placed(window, target) : window.workspace === target))) return { pid, window, ...extras };
  const landed = window.workspace;
  await steps.move(address, target);
  window = (await steps.window(address)) ?? window;
  return { pid, window, relocated: true, note: `the window opened on workspace ${JSON.stringify(landed)} and was moved to ${JSON.stringify(target)}`, ...extras };
}
