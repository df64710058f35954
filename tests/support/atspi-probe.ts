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

/**
 * The objects at the points a `ui` listing gave (global centre points, in its order), found among
 * libatspi's nodes by their window-relative boxes and the window's origin on screen (from sway).
 * Undefined where no node has its centre there.
 */
export function atPoints(nodes: ProbeNode[], origin: { x: number; y: number }, points: Array<{ x: number; y: number }>): Array<ProbeNode | undefined> {
  const at = (n: ProbeNode) => (n.box ? `${origin.x + n.box[0] + Math.floor(n.box[2] / 2)},${origin.y + n.box[1] + Math.floor(n.box[3] / 2)}` : '');
  return points.map((p) => nodes.find((n) => at(n) === `${p.x},${p.y}`));
}
