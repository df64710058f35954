import type { A11yOption, Rect } from '@hypruse/core';
import { isMissingInterfaceError, type AtspiBus } from './atspi-bus.js';
import { ATSPI_NULL_PATH, COORD_TYPE_SCREEN, IFACE, Role } from './atspi-constants.js';
import { ABSURD_ORIGIN } from './elements.js';
import type { Deadline } from './deadline.js';
import type { NodeRef, RawNode, TreeReader } from './tree-reader.js';

/** AtspiScrollType ANYWHERE: scroll as little as needed to show the whole object. */
const SCROLL_ANYWHERE = 6;

/** Containers that show part of their content: the element is seen only inside their boxes. */
const SCROLLING_ROLES: ReadonlySet<number> = new Set([Role.SCROLL_PANE, Role.VIEWPORT, Role.LIST, Role.LIST_BOX, Role.TABLE, Role.TREE, Role.TREE_TABLE]);
/** Where the walk up from an element stops: its window. */
const TOP_ROLES: ReadonlySet<number> = new Set([Role.FRAME, Role.WINDOW, Role.DIALOG, Role.ALERT, Role.APPLICATION]);
/** Ancestors looked at above an element (deeper trees are not walked further). */
const MAX_ANCESTORS = 40;

/** A box that is really somewhere (GTK 3 gives scrolled-out objects INT_MIN origins). */
const usableBox = (e: Rect | null): e is Rect => e !== null && e.width > 0 && e.height > 0 && Math.abs(e.x) <= ABSURD_ORIGIN && Math.abs(e.y) <= ABSURD_ORIGIN;

function intersect(a: Rect, b: Rect): Rect {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  return { x, y, width: Math.max(0, Math.min(a.x + a.width, b.x + b.width) - x), height: Math.max(0, Math.min(a.y + a.height, b.y + b.height) - y) };
}

/** What holds a combo box's options. */
const OPTION_HOLDERS: ReadonlySet<number> = new Set([Role.MENU, Role.LIST, Role.LIST_BOX, Role.TABLE, Role.TREE_TABLE]);
/** What an option of a combo box is. */
const OPTION_ROLES: ReadonlySet<number> = new Set([Role.MENU_ITEM, Role.LIST_ITEM, Role.CHECK_MENU_ITEM, Role.RADIO_MENU_ITEM, Role.TREE_ITEM]);

/** How many parents up from a cell its table is looked for (Thunar's name column: a cell in a cell). */
const TABLE_DEPTH = 3;

/** How deep below an option a label is looked for when the option itself has no name (list rows). */
const LABEL_DEPTH = 3;

/**
 * Semantic operations on one accessible object (EditableText, Component,
 * Selection). Each answers false (or null) when the object lacks the
 * interface, so the caller can fall back to pointer and keyboard.
 */
export class ElementOps {
  constructor(private readonly bus: AtspiBus, private readonly reader: TreeReader) {}

  private call(ref: NodeRef, d: Deadline, iface: string, member: string, signature?: string, body?: unknown[]): Promise<unknown[]> {
    return this.bus.call({ dest: ref.bus, path: ref.path, iface, member, signature, body }, d);
  }

  /** Run a call that may hit a missing interface: undefined then. */
  private async optional<T>(p: Promise<T>): Promise<T | undefined> {
    try {
      return await p;
    } catch (err) {
      if (isMissingInterfaceError(err)) return undefined;
      throw err;
    }
  }

  async setText(ref: NodeRef, text: string, d: Deadline): Promise<boolean> {
    const r = await this.optional(this.call(ref, d, IFACE.EditableText, 'SetTextContents', 's', [text]));
    return r !== undefined && r[0] === true;
  }

  /**
   * Insert at the caret (CaretOffset; the end when the caret is outside the text) through
   * EditableText.InsertText. ATK takes the length in bytes of UTF-8, offsets in characters.
   */
  async insertText(ref: NodeRef, text: string, d: Deadline): Promise<{ offset: number; before: string } | null> {
    const count = await this.optional(this.call(ref, d, IFACE.Properties, 'Get', 'ss', [IFACE.Text, 'CharacterCount']));
    if (count === undefined) return null;
    const total = Number(unwrap(count[0]));
    const got = await this.optional(this.call(ref, d, IFACE.Text, 'GetText', 'ii', [0, -1]));
    const before = typeof got?.[0] === 'string' ? got[0] : '';
    const caret = await this.optional(this.call(ref, d, IFACE.Properties, 'Get', 'ss', [IFACE.Text, 'CaretOffset']));
    const at = Number(unwrap(caret?.[0]) ?? -1);
    const offset = Number.isInteger(at) && at >= 0 && at <= total ? at : total;
    const r = await this.optional(this.call(ref, d, IFACE.EditableText, 'InsertText', 'isi', [offset, text, Buffer.byteLength(text, 'utf8')]));
    return r !== undefined && r[0] === true ? { offset, before } : null;
  }

  async text(ref: NodeRef, limit: number, d: Deadline): Promise<string | null> {
    const node = await this.reader.readNode(ref, 0, d, { details: true, anyText: true, textLimit: limit });
    if (!node || node.password) return null;
    return node.text ?? null;
  }

  async focus(ref: NodeRef, d: Deadline): Promise<boolean> {
    const r = await this.optional(this.call(ref, d, IFACE.Component, 'GrabFocus'));
    return r !== undefined && r[0] === true;
  }

  /**
   * Scroll the element into view: Component.ScrollTo where the toolkit implements it, else
   * (`focus: true`) the keyboard focus on the element or on its nearest focusable ancestor inside
   * its scrolling container (GTK 3 answers ScrollTo with false, and scrolls a list so that its
   * focused row is wholly shown). What was sent, or null when neither could be.
   */
  async scrollTo(ref: NodeRef, d: Deadline, how: 'scroll' | 'focus'): Promise<'scroll' | 'focus' | null> {
    if (how === 'scroll') {
      const r = await this.optional(this.call(ref, d, IFACE.Component, 'ScrollTo', 'u', [SCROLL_ANYWHERE]));
      return r !== undefined && r[0] === true ? 'scroll' : null;
    }
    let at: NodeRef | null = ref;
    for (let i = 0; at && i < MAX_ANCESTORS; i++) {
      const node = await this.reader.readNode(at, 0, d, { details: false });
      if (!node || TOP_ROLES.has(node.roleId) || SCROLLING_ROLES.has(node.roleId)) return null;
      if (node.states.includes('focusable') && (await this.focus(at, d))) return 'focus';
      at = await this.parent(at, d);
    }
    return null;
  }

  /**
   * The part of the window (window-relative) where the element can be seen: the intersection of the
   * boxes of its scrolling ancestors (scroll pane, viewport, list, table, tree); null when it has no
   * such ancestor with a usable box. A list's box may be its whole content (GTK 3): intersecting
   * with it changes nothing, while the viewport or scroll pane around it clips.
   */
  async visibleArea(ref: NodeRef, d: Deadline): Promise<Rect | null> {
    let area: Rect | null = null;
    let at = await this.parent(ref, d);
    for (let i = 0; at && i < MAX_ANCESTORS; i++) {
      const node = await this.reader.readNode(at, 0, d, { details: false });
      if (!node || TOP_ROLES.has(node.roleId)) break;
      if (SCROLLING_ROLES.has(node.roleId)) {
        const box = await this.reader.fixes.placeOne(at, await this.reader.readExtents(node, d), d);
        if (usableBox(box)) area = area ? intersect(area, box) : box;
      }
      at = await this.parent(at, d);
    }
    return area;
  }

  private async parent(ref: NodeRef, d: Deadline): Promise<NodeRef | null> {
    const r = await this.optional(this.call(ref, d, IFACE.Properties, 'Get', 'ss', [IFACE.Accessible, 'Parent']));
    const v = r?.[0];
    const inner = v && typeof v === 'object' && 'value' in v ? (v as { value: unknown }).value : v;
    if (!Array.isArray(inner) || inner.length < 2) return null;
    const [bus, path] = inner.map(String);
    if (!path || path === ATSPI_NULL_PATH) return null;
    return { bus: bus || ref.bus, path };
  }

  /** The options of a selection container in the order Selection numbers them; null without a Selection interface. */
  /**
   * The options of a selection container: its Selection's children, or, for a combo box without
   * Selection (an HTML <select> in Firefox and Chromium), the option items it holds, selected by
   * their own default action.
   */
  private async optionNodes(ref: NodeRef, d: Deadline): Promise<{ items: RawNode[]; selection: boolean } | null> {
    const node = await this.reader.readNode(ref, 0, d, { children: true, details: false });
    if (!node) return null;
    const selection = node.interfaces.includes('Selection');
    if (!selection && node.roleId !== Role.COMBO_BOX) return null;
    let items = await this.children(node, d);
    // a combo box holds its options in a menu (or list) child: the Selection counts those
    if (node.roleId === Role.COMBO_BOX) {
      const holder = items.find((c) => OPTION_HOLDERS.has(c.roleId));
      items = holder ? await this.children(holder, d) : items.filter((c) => OPTION_ROLES.has(c.roleId));
      if (!selection) items = items.filter((c) => OPTION_ROLES.has(c.roleId));
    }
    if (!selection && items.length === 0) return null;
    return { items, selection };
  }

  async options(ref: NodeRef, d: Deadline): Promise<A11yOption[] | null> {
    const found = await this.optionNodes(ref, d);
    if (!found) return null;
    const { items, selection } = found;
    const names = await Promise.all(items.map((c) => this.label(c, d)));
    const selected = await Promise.all(
      items.map((c, i) =>
        selection
          ? this.optional(this.call(ref, d, IFACE.Selection, 'IsChildSelected', 'i', [i])).then((r) => (r ? r[0] === true : c.states.includes('selected')))
          : Promise.resolve(c.states.includes('selected') || c.states.includes('checked')),
      ),
    );
    return items.map((_, i) => ({ index: i, name: names[i], selected: selected[i] }));
  }

  async selectOption(ref: NodeRef, index: number, d: Deadline): Promise<boolean> {
    const found = await this.optionNodes(ref, d);
    if (!found) return false;
    if (found.selection) {
      const r = await this.optional(this.call(ref, d, IFACE.Selection, 'SelectChild', 'i', [index]));
      return r !== undefined && r[0] === true;
    }
    // no Selection: the option's own action selects it (Firefox: "select", Chromium: its unnamed default)
    const opt = found.items[index];
    if (!opt || !opt.interfaces.includes('Action')) return false;
    const acts = await this.optional(this.call(opt.ref, d, IFACE.Action, 'GetActions'));
    const names = ((acts?.[0] as Array<[string, string, string]>) ?? []).map((a) => String(a[0]).toLowerCase());
    if (names.length === 0) return false;
    const named = ['select', 'click', 'press', 'activate'].map((n) => names.indexOf(n)).find((i) => i >= 0);
    const r = await this.optional(this.call(opt.ref, d, IFACE.Action, 'DoAction', 'i', [named ?? 0]));
    return r !== undefined && r[0] === true;
  }

  /**
   * Select the row of a table that holds `ref` (a cell, or a cell inside a cell) as a single click
   * does, that row alone: the table's Selection.ClearSelection, then Table.AddRowSelection (GTK 3's
   * tree view implements both for any number of columns, where Selection.SelectChild picks a cell
   * of a one-column view only). Null when no table with those interfaces holds it (up to
   * TABLE_DEPTH parents up); else the row and whether the table reads that row alone selected.
   */
  async selectRow(ref: NodeRef, d: Deadline): Promise<{ row: number; selected: boolean } | null> {
    let child = ref;
    let table: RawNode | null = null;
    for (let up = 0; up < TABLE_DEPTH && !table; up++) {
      const p = await this.parent(child, d);
      if (!p) return null;
      const node = await this.reader.readNode(p, 0, d, { children: false, details: false });
      if (!node) return null;
      if (node.interfaces.includes('Table')) table = node;
      else child = p;
    }
    if (!table) return null;
    const index = Number((await this.call(child, d, IFACE.Accessible, 'GetIndexInParent'))[0]);
    const row = Number((await this.call(table.ref, d, IFACE.Table, 'GetRowAtIndex', 'i', [index]))[0]);
    if (!Number.isInteger(row) || row < 0) return null;
    const selectedRows = async () => ((await this.call(table.ref, d, IFACE.Table, 'GetSelectedRows'))[0] as number[] | undefined)?.map(Number) ?? [];
    const now = await selectedRows();
    if (!(now.length === 1 && now[0] === row)) {
      if (now.length > 0 && table.interfaces.includes('Selection')) await this.call(table.ref, d, IFACE.Selection, 'ClearSelection');
      const r = await this.call(table.ref, d, IFACE.Table, 'AddRowSelection', 'i', [row]);
      if (r[0] !== true) return { row, selected: false };
    }
    const after = await selectedRows();
    return { row, selected: after.length === 1 && after[0] === row };
  }

  /**
   * Screen-type extents (relative to the main surface for a popup on Wayland), corrected by the
   * application's extents fix like every other box it reports; null without them.
   */
  async screenExtents(ref: NodeRef, d: Deadline): Promise<Rect | null> {
    const r = await this.optional(this.call(ref, d, IFACE.Component, 'GetExtents', 'u', [COORD_TYPE_SCREEN]));
    const v = r?.[0];
    if (!Array.isArray(v) || v.length < 4) return null;
    const [x, y, width, height] = v.map(Number);
    const ready = this.reader.fixes.ready(ref.bus);
    if (ready) await Promise.race([ready, d.promise]);
    return this.reader.fixes.placeOne(ref, this.reader.fixes.adjust(ref.bus, { x, y, width, height }), d);
  }

  private async children(node: RawNode, d: Deadline): Promise<RawNode[]> {
    const read = await Promise.all(node.childRefs.map((r) => this.reader.readNode(r, node.depth + 1, d, { children: true, details: false })));
    return read.filter((n): n is RawNode => n !== null);
  }

  /** An option's label: its name, else the first named descendant (a list row holds a label). */
  private async label(node: RawNode, d: Deadline, depth = 0): Promise<string> {
    if (node.name.trim() !== '') return node.name.trim();
    if (depth >= LABEL_DEPTH) return '';
    for (const c of await this.children(node, d)) {
      const l = await this.label(c, d, depth + 1);
      if (l) return l;
    }
    return '';
  }
}

/** A D-Bus variant's value (dbus-next gives Properties.Get's answer as { signature, value }). */
function unwrap(v: unknown): unknown {
  return v && typeof v === 'object' && 'value' in v ? (v as { value: unknown }).value : v;
}
