// libatspi (python3-gi) as an accessibility reader independent of hypruse's
// own dbus-next one: what tests assert an element action did.
import { fileURLToPath } from 'node:url';
import { harness } from './desktop.js';

const PROBE = fileURLToPath(new URL('./atspi-probe.py', import.meta.url));

export interface ProbeNode {
  depth: number;
  role: string;
  name: string;
  states: string[];
  text?: string;
  /** window-relative extents [x, y, w, h] */
  box?: [number, number, number, number];
  /** screen-type origin (relative to the main surface on Wayland) */
  screen?: [number, number];
}

/** The showing objects of the application with this pid, read as the desktop user with libatspi. */
export async function probe(pid: number): Promise<ProbeNode[]> {
  const r = await harness(['exec', '--', '/usr/bin/python3', '-W', 'ignore', PROBE, String(pid)], 60000);
  if (r.code !== 0) throw new Error(`atspi probe of pid ${pid} failed (exit ${r.code}): ${r.stderr.trim()}`);
  return r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as ProbeNode);
}
