import { Role } from './atspi-constants.js';
import type { Deadline } from './deadline.js';
import { ABSURD_ORIGIN } from './elements.js';
import type { RawNode, TreeReader } from './tree-reader.js';

/** How deep below the window a root pane is looked for. */
const PANE_DEPTH = 4;

/**
 * A root pane that a native container holds below controls of its own reports its box, and every box
 * below it, relative to that container: origin (0,0) and exactly the container's size, while the
 * container sits elsewhere in the window. LibreOffice 7.4 with GTK 3 does this: its root pane lies in
 * a GTK panel under the GTK menu bar (y 26), so every cell and toolbar button was placed 26 px too
 * high and a click on spreadsheet cell C3 selected C1. Such a branch is moved by the container's origin.
 */
export async function placeEmbeddedPanes(root: RawNode, reader: TreeReader, d: Deadline): Promise<number> {
  const found: Array<{ pane: RawNode; holder: RawNode }> = [];
  const walk = (n: RawNode, depth: number) => {
    for (const c of n.children) {
      if (c.roleId === Role.ROOT_PANE) found.push({ pane: c, holder: n });
      else if (depth < PANE_DEPTH) walk(c, depth + 1);
    }
  };
  walk(root, 0);
  let moved = 0;
  for (const { pane, holder } of found) {
    const [h, p] = await Promise.all([
      holder.extents ? Promise.resolve(holder.extents) : reader.readExtents(holder, d).catch(() => null),
      pane.extents ? Promise.resolve(pane.extents) : reader.readExtents(pane, d).catch(() => null),
    ]);
    if (!h || !p || p.x !== 0 || p.y !== 0 || (h.x === 0 && h.y === 0)) continue;
    if (p.width !== h.width || p.height !== h.height || p.width <= 0 || p.height <= 0) continue;
    if (Math.abs(h.x) > ABSURD_ORIGIN || Math.abs(h.y) > ABSURD_ORIGIN) continue;
    const stack = [pane];
    while (stack.length) {
      const n = stack.pop() as RawNode;
      const e = n.extents;
      if (e && Math.abs(e.x) <= ABSURD_ORIGIN && Math.abs(e.y) <= ABSURD_ORIGIN) n.extents = { ...e, x: e.x + h.x, y: e.y + h.y };
      stack.push(...n.children);
    }
    moved++;
  }
  return moved;
}
