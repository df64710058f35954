import type { Rect } from '@hypruse/core';
import { Role } from './atspi-constants.js';
import type { RawNode } from './tree-reader.js';

/** How deep below the window a root pane is looked for. */
const PANE_DEPTH = 4;

/**
 * For an application whose family has a shadow menu bar (AppFamily.shadowMenuBar): a menu bar that
 * is a child of a root pane and has a box of no height, while the window holds another menu bar
 * outside that pane, is taken out of the tree with its menus (LibreOffice 7.4 under GTK 3 keeps
 * VCL's menu bar, 1276x0, beside the GTK menu bar that shows the same File...Help). `read` gives a
 * node's extents when the read did not ask them. Returns the number of menu bars taken out.
 */
export async function dropShadowMenuBars(root: RawNode, read: (n: RawNode) => Promise<Rect | null>): Promise<number> {
  const inPanes: Array<{ bar: RawNode; pane: RawNode }> = [];
  let outside = false;
  const walk = (n: RawNode, depth: number, pane: RawNode | null) => {
    for (const c of n.children) {
      if (c.roleId === Role.MENU_BAR) {
        if (pane && n === pane) inPanes.push({ bar: c, pane });
        else if (!pane && c.children.length > 0) outside = true;
        continue;
      }
      if (c.roleId === Role.ROOT_PANE && !pane) walk(c, 0, c);
      else if (depth < PANE_DEPTH) walk(c, depth + 1, pane);
    }
  };
  walk(root, 0, null);
  if (!outside || inPanes.length === 0) return 0;
  let dropped = 0;
  for (const { bar, pane } of inPanes) {
    const box = bar.extents ?? (await read(bar).catch(() => null));
    if (!box || box.height !== 0 || box.width <= 0) continue;
    pane.children = pane.children.filter((c) => c !== bar);
    dropped++;
  }
  return dropped;
}
