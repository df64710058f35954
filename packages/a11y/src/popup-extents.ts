import { Role } from './atspi-constants.js';
import type { Deadline } from './deadline.js';
import type { ElementOps } from './element-ops.js';
import type { RawNode } from './tree-reader.js';
import { reportsShowing } from './elements.js';

const MENU_ROLES: ReadonlySet<number> = new Set([Role.MENU, Role.POPUP_MENU]);

/**
 * An open GTK menu is its own popup surface: its items' WINDOW extents are
 * relative to that popup, not to the main window (mousepad's "Save As..."
 * reads (6,163) while it is shown 26 px lower). For every showing object
 * inside a menu, the SCREEN extents (which on Wayland add the popup's offset
 * from the main surface) replace the WINDOW ones when they differ. Returns
 * the nodes inside open menus that have a screen box (moved or not): they may
 * lie outside the main window's box.
 */
export async function placePopupItems(root: RawNode, ops: ElementOps, d: Deadline, unplaced?: Set<RawNode>): Promise<Set<RawNode>> {
  const inside: RawNode[] = [];
  const moved = new Set<RawNode>();
  // GTK 4 sets `showing` on the frame only: its open popover is a visible menu whose extents are
  // where it asked to be placed (its SCREEN extents are the same numbers), not where the output let it show
  const showing = reportsShowing(root);
  const walk = (n: RawNode, underMenu: boolean) => {
    if (underMenu && n.extents && n.states.includes('showing')) inside.push(n);
    else if (underMenu && n.extents && !showing && n.states.includes('visible')) {
      moved.add(n);
      unplaced?.add(n);
    }
    const menu = underMenu || (MENU_ROLES.has(n.roleId) && (showing || n.states.includes('visible')));
    for (const c of n.children) walk(c, menu);
  };
  walk(root, false);
  const screen = await Promise.all(inside.map((n) => ops.screenExtents(n.ref, d).catch(() => null)));
  inside.forEach((n, i) => {
    const s = screen[i];
    const w = n.extents;
    if (!s || !w || s.width <= 0 || s.height <= 0) return;
    // in the popup either way (an app whose extents are read as SCREEN ones already has them: Qt 5)
    moved.add(n);
    if (s.x === w.x && s.y === w.y) return;
    n.extents = { x: s.x, y: s.y, width: s.width, height: s.height };
  });
  return moved;
}
