import { collapseRepeatedName, readingSequence, type A11yElement, type Rect } from '@hypruse/core';

function union(a: Rect, b: Rect): Rect {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
}
import {
  ACTIONABLE_ROLES, CHECKABLE_ROLES, SELECTION_ROLES, CLICK_ACTIONS, CONTAINER_ROLES, NUMERIC_VALUE_ROLES, Role, TEXT_VALUE_ROLES, isEditableCell,
} from './atspi-constants.js';
import { nameContains } from './match.js';
import type { RawNode } from './tree-reader.js';
import { TAB_NAME_NOISE } from './web-engines.js';

/** The object replacement character browsers put in text where an embedded object sits. */
const EMBEDDED_OBJECT = /\uFFFC/g;

/** A web document (a page or a frame of one). */
const isDocument = (n: RawNode): boolean => n.roleId === Role.DOCUMENT_WEB || n.roleId === Role.DOCUMENT_FRAME;

/**
 * The documents of background tabs: a browser that keeps them in the tree (Firefox) reports them
 * `visible` but not `showing`, while the page on screen is `showing`. Only when some document is
 * showing (a toolkit that never sets `showing` hides nothing). Right after a tab switch the page
 * left behind may still be `showing` for a moment while the selected tab (and the window title)
 * already name the new one: when the selected page tab names one of the documents, the documents
 * it does not name are the background ones.
 */
export function backgroundDocuments(root: RawNode): Set<RawNode> {
  const docs: RawNode[] = [];
  const selectedTabs = new Set<string>();
  const stack = [root];
  while (stack.length > 0) {
    const n = stack.pop() as RawNode;
    if (isDocument(n)) {
      docs.push(n);
      continue;
    }
    if (n.roleId === Role.PAGE_TAB && n.states.includes('selected') && n.name.trim()) selectedTabs.add(tabTitle(n.name));
    stack.push(...n.children);
  }
  const named = docs.filter((d) => selectedTabs.has(tabTitle(d.name)));
  if (docs.length > 1 && named.length > 0) return new Set(docs.filter((d) => !named.includes(d)));
  if (!docs.some((d) => d.states.includes('showing'))) return new Set();
  return new Set(docs.filter((d) => !d.states.includes('showing')));
}

/** A tab's or a page's title as both name it (a browser's tab name may carry a suffix such as its memory use). */
function tabTitle(name: string): string {
  return name.replace(TAB_NAME_NOISE, '').replace(EMBEDDED_OBJECT, '').trim();
}

/** The option a combo box shows (its selected item), from the children read with it. */
function shownOption(node: RawNode): string | undefined {
  const stack = [...node.children];
  while (stack.length > 0) {
    const n = stack.shift() as RawNode;
    if ((n.roleId === Role.MENU_ITEM || n.roleId === Role.LIST_ITEM) && n.states.includes('selected')) return n.name.trim();
    stack.push(...n.children);
  }
  return undefined;
}

/** Origins further out than this are unrendered widgets (hidden notebook pages report millions). */
export const ABSURD_ORIGIN = 20000;

export interface ElementFilter {
  actionableOnly: boolean;
  name?: string;
  /** Logical size of the compositor window: boxes whose centre falls outside are dropped (0 = no check). */
  windowWidth: number;
  windowHeight: number;
  /** Also keep visible objects that are scrolled out of view (not showing, or outside the window), marked offscreen. */
  offscreen?: boolean;
  /** Objects in a popup surface (placed by placePopupItems): kept even outside the window's box. */
  popups?: ReadonlySet<RawNode>;
  /** Popup objects whose extents are not where they show (placePopupItems): marked unplaced. */
  unplaced?: ReadonlySet<RawNode>;
  /**
   * An object that is not `showing` is off the screen whatever box it reports (WebEngine.unshownIsHidden):
   * listed only by a read that asks for scrolled-out objects, marked offscreen.
   */
  hideUnshown?: boolean;
  /** Also keep the items of closed menus (A11yReadOptions.closedMenus), marked offscreen. */
  closedMenus?: boolean;
  /** `showing` says nothing in this tree (WebEngine.undrawn 'unshowing' while the window is not drawn): it is not used. */
  showingUnknown?: boolean;
}

function hasClickAction(node: RawNode): boolean {
  return node.actions.some((a) => CLICK_ACTIONS.has(a.toLowerCase()));
}

/** An element an agent can act on: a control role, an editable text, or a non-container with a click-like action. */
export function isActionable(node: RawNode): boolean {
  if (ACTIONABLE_ROLES.has(node.roleId)) return true;
  if (node.roleId === Role.TEXT && (node.states.includes('editable') || node.interfaces.includes('EditableText'))) return true;
  if (isEditableCell(node)) return true;
  return hasClickAction(node) && !CONTAINER_ROLES.has(node.roleId);
}

/** Elements that report something even without a name (a value, a checked state, a text field). */
export function isValueBearing(node: RawNode): boolean {
  return (
    CHECKABLE_ROLES.has(node.roleId) ||
    NUMERIC_VALUE_ROLES.has(node.roleId) ||
    TEXT_VALUE_ROLES.has(node.roleId) ||
    node.roleId === Role.PASSWORD_TEXT ||
    node.password === true ||
    // a list or tab list holds a selection (what act select picks from)
    (SELECTION_ROLES.has(node.roleId) && node.interfaces.includes('Selection'))
  );
}

/**
 * Whether a toolkit sets the `showing` state below the window. GTK 4 (4.8 measured) sets it on
 * the frame only: its buttons are `visible`, `sensitive`, `focusable` and never `showing`, yet
 * click fine, so for such a tree `visible` has to stand for `showing`.
 */
export function reportsShowing(root: RawNode): boolean {
  const stack = [...root.children];
  while (stack.length > 0) {
    const n = stack.pop() as RawNode;
    if (n.states.includes('showing')) return true;
    stack.push(...n.children);
  }
  return false;
}

/** Convert one raw node to the contract's element (no filtering). `showingReported`: see reportsShowing. */
export function toElement(node: RawNode, showingReported = true): A11yElement {
  const s = new Set(node.states);
  const usable = (s.has('showing') || !showingReported) && s.has('visible') && (s.has('sensitive') || s.has('enabled'));
  const el: A11yElement = {
    ref: { bus: node.ref.bus, path: node.ref.path },
    role: node.roleName,
    roleId: node.roleId,
    // GTK pads menu item names with spaces (the accelerator column); GTK 4.8 doubles a button's name ("Cancel Cancel")
    name: collapseRepeatedName((node.roleId === Role.PAGE_TAB ? node.name.replace(TAB_NAME_NOISE, '') : node.name).replace(EMBEDDED_OBJECT, '').trim(), node.children.map((c) => c.name)),
    states: node.states,
    extents: node.extents ?? { x: 0, y: 0, width: 0, height: 0 },
    actions: node.actions,
    clickable: usable && (hasClickAction(node) || isActionable(node)),
    actionable: isActionable(node),
    depth: node.depth,
  };
  if (node.password || node.roleId === Role.PASSWORD_TEXT) {
    el.password = true;
  } else if (node.value && NUMERIC_VALUE_ROLES.has(node.roleId)) {
    const { current, min, max } = node.value;
    el.value = { current, min, max };
    if (Number.isFinite(min) && Number.isFinite(max) && max > min) el.value.percent = Math.round(((current - min) / (max - min)) * 100);
    if (node.text !== undefined) el.value.text = node.text;
  } else if (node.roleId === Role.COMBO_BOX && shownOption(node) !== undefined) {
    el.value = { text: shownOption(node) as string };
  } else if (node.text !== undefined) {
    el.value = { text: node.text.replace(EMBEDDED_OBJECT, '') };
  }
  if (CHECKABLE_ROLES.has(node.roleId)) el.checked = s.has('checked') || s.has('pressed');
  if (s.has('focused')) el.focused = true;
  return el;
}

/** Why a box is not on screen, or null when it is usable. */
export function boxProblem(node: RawNode, windowWidth: number, windowHeight: number): string | null {
  const e = node.extents;
  if (!e) return 'no extents';
  if (e.width <= 0 || e.height <= 0) return 'zero size';
  if (Math.abs(e.x) > ABSURD_ORIGIN || Math.abs(e.y) > ABSURD_ORIGIN) return 'absurd origin';
  if (windowWidth > 0 && windowHeight > 0) {
    const cx = e.x + Math.floor(e.width / 2);
    const cy = e.y + Math.floor(e.height / 2);
    if (cx < 0 || cy < 0 || cx >= windowWidth || cy >= windowHeight) return 'outside the window';
  }
  return null;
}

/**
 * Whether a node read without its details (extents, actions, value, text) may still pass
 * collectElements' filter: the nodes whose details a cached read fetches. Never false for a node
 * collectElements would list.
 */
export function mayBeListed(node: RawNode, filter: Pick<ElementFilter, 'actionableOnly' | 'name'>): boolean {
  if (filter.name !== undefined && filter.name !== '' && !nameContains(node.name, filter.name)) return false;
  // a click action can only come from the Action interface
  if (filter.actionableOnly && !isActionable(node) && !(node.interfaces.includes('Action') && !CONTAINER_ROLES.has(node.roleId))) return false;
  // value-bearing by role (password fields are text roles); extents need the Component interface
  if (node.name.trim() === '' && !isValueBearing(node)) return false;
  return node.interfaces.includes('Component');
}

/** Roles of menus and their items. */
const MENU_ROLES: ReadonlySet<number> = new Set([Role.MENU, Role.POPUP_MENU, Role.MENU_ITEM, Role.CHECK_MENU_ITEM, Role.RADIO_MENU_ITEM, Role.TEAROFF_MENU_ITEM]);

/**
 * A closed menu's branch, judged while walking (before the whole tree is known): a menu or menu
 * item neither showing nor visible under a parent that is showing below the window (so the
 * toolkit reports `showing`, as Qt and GTK 3 do; GTK 4 never sets it there). collectElements
 * leaves such a branch out whole, so a walk need not read it: featherpad's closed menus are
 * three quarters of its tree.
 */
export function closedMenuBranch(node: RawNode, parent: RawNode): boolean {
  return parent.depth >= 1 && parent.states.includes('showing') && MENU_ROLES.has(node.roleId) && !node.states.includes('showing') && !node.states.includes('visible');
}

/**
 * The elements of a read tree in document order (each container's children in reading order,
 * see readingSequence), filtered as hypruse's `ui`
 * does: name filter, actionable roles, unnamed nodes only when they carry a
 * value, and only boxes that are really inside the window.
 */
export function collectElements(root: RawNode, filter: ElementFilter): A11yElement[] {
  const out: A11yElement[] = [];
  const showing = !filter.showingUnknown && reportsShowing(root);
  // the items of a closed menu (Qt keeps them in the tree, neither visible nor showing): not controls until the menu opens
  const closedMenu = (node: RawNode) =>
    showing && MENU_ROLES.has(node.roleId) && !node.states.includes('showing') && !node.states.includes('visible') && filter.popups?.has(node) !== true;
  const hidden = new Set<RawNode>();
  const background = backgroundDocuments(root);
  const kept = (node: RawNode): boolean => {
    if (filter.name !== undefined && filter.name !== '' && !nameContains(node.name, filter.name)) return false;
    if (filter.actionableOnly && !isActionable(node)) return false;
    if (node.name.trim() === '' && !isValueBearing(node)) return false;
    const popup = filter.popups?.has(node) === true;
    if (filter.hideUnshown && showing && !popup && !node.states.includes('showing')) {
      if (!filter.offscreen || !node.states.includes('visible')) return false;
      hidden.add(node);
      return true;
    }
    if (boxProblem(node, popup ? 0 : filter.windowWidth, popup ? 0 : filter.windowHeight) === null) return true;
    // scrolled out of view: GTK 3 clears `showing` and reports INT_MIN origins, others a box outside the window
    if (filter.offscreen && !popup && node.states.includes('visible') && (!showing || !node.states.includes('showing') || boxProblem(node, filter.windowWidth, filter.windowHeight) === 'outside the window')) {
      hidden.add(node);
      return true;
    }
    return false;
  };
  const keptClosed = (node: RawNode): boolean =>
    (filter.name === undefined || filter.name === '' || nameContains(node.name, filter.name)) && (!filter.actionableOnly || isActionable(node)) && node.name.trim() !== '';
  // Where a node reads: its own box when it is listed, else the box around its listed descendants, so
  // the order does not depend on the extents of unlisted wrappers (a reader may not fetch those).
  const places = new Map<RawNode, Rect | null>();
  const place = (node: RawNode): Rect | null => {
    if (places.has(node)) return places.get(node) ?? null;
    // a listed node reads where it is (a selected tab holds its whole page); a wrapper where its listed content is
    let box: Rect | null = kept(node) && !hidden.has(node) ? node.extents : null;
    for (const c of box ? [] : node.children) {
      const p = place(c);
      if (p) box = box ? union(box, p) : p;
    }
    places.set(node, box);
    return box;
  };
  // each node with the index of its nearest listed ancestor (-1: none)
  const stack: Array<[RawNode, number]> = [[root, -1]];
  while (stack.length > 0) {
    const [node, up] = stack.pop() as [RawNode, number];
    // a background tab's page: not what the window shows (its tab is listed by title)
    if (background.has(node)) continue;
    const closed = closedMenu(node);
    if (closed && !filter.closedMenus) continue; // and its subtree
    // a closed menu's item has no place on screen: listed (when asked for) only to be run by its action
    const keep = closed ? keptClosed(node) : kept(node);
    if (keep && closed) hidden.add(node);
    const self = keep ? out.length : up;
    if (keep) {
      const el = toElement(node, showing);
      if (up >= 0) el.parent = up;
      if (filter.popups?.has(node) === true) el.popup = true;
      if (filter.unplaced?.has(node) === true) el.unplaced = true;
      if (hidden.has(node)) el.offscreen = true;
      out.push(el);
    }
    // children in reading order: AT-SPI order may contradict the screen (GTK 3's grid lists its last row first)
    const kids = readingSequence(node.children, place);
    for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i], self]);
  }
  return out;
}

/**
 * A skeleton tree: the window has descendants but none of them is named,
 * actionable or carries text/value (Chromium/Electron without accessibility
 * enabled publish such a frame).
 */
export function isSkeleton(root: RawNode): boolean {
  if (root.children.length === 0) return root.childRefs.length === 0;
  const stack = [...root.children];
  while (stack.length > 0) {
    const n = stack.pop() as RawNode;
    if (n.name.trim() !== '' || isActionable(n) || n.interfaces.includes('Text') || n.interfaces.includes('Value')) return false;
    stack.push(...n.children);
  }
  return true;
}
