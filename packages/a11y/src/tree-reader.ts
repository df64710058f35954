import type { Rect } from '@hypruse/core';
import { AtspiBus, isGoneError, isMissingInterfaceError, isUnknownObjectError, type CallSpec } from './atspi-bus.js';
import { ATSPI_CACHE_PATH, ATSPI_NULL_PATH, IFACE, NUMERIC_VALUE_ROLES, Role, STATE_NAMES, TEXT_VALUE_ROLES, decodeStates, isEditableCell } from './atspi-constants.js';
import type { Deadline } from './deadline.js';
import { isWidgetClassName } from './app-families.js';
import { ExtentsFixes } from './extents-fix.js';

export interface NodeRef {
  bus: string;
  path: string;
}

/** Everything read about one accessible object. */
export interface RawNode {
  ref: NodeRef;
  depth: number;
  name: string;
  roleId: number;
  roleName: string;
  states: string[];
  /** Short interface names (Accessible, Component, Action, Text, Value, EditableText, ...). */
  interfaces: string[];
  childRefs: NodeRef[];
  /** Children that were read (tree order). */
  children: RawNode[];
  /** Window-relative extents, null when the object has no Component interface. */
  extents: Rect | null;
  actions: string[];
  /** Text content (at most `textLimit` characters); undefined when not read. Never set for password fields. */
  text?: string;
  textLength?: number;
  password?: boolean;
  value?: { current: number; min: number; max: number };
}

export interface ReadNodeOptions {
  /** Read the child list (needed to walk further). */
  children?: boolean;
  /** Read extents, actions, text and values. */
  details?: boolean;
  /** Read the text of any Text object (not only text fields), up to this many characters. */
  anyText?: boolean;
  textLimit?: number;
  /**
   * Read the details only of the nodes this accepts (judged on name, role, states and
   * interfaces); the others keep no extents and no actions, as a cached read leaves them.
   */
  wanted?: (node: RawNode) => boolean;
}

export interface TreeReadOptions {
  maxNodes: number;
  /** Whether to walk below a node (default: always). */
  descend?: (node: RawNode) => boolean;
  details?: boolean;
  /** Stop early once this returns true for a node (the node is in the result). */
  stopAt?: (node: RawNode) => boolean;
  /** Details only for the nodes this accepts (ReadNodeOptions.wanted). */
  wanted?: (node: RawNode) => boolean;
  /** Leave out a child and its subtree (a closed menu's items): judged on the child read without its details and on its parent. */
  prune?: (node: RawNode, parent: RawNode) => boolean;
  /**
   * Below a node this accepts, read only the descendants that are `showing` (one Collection.GetMatches
   * call on it names them all): for a container whose `showing` state means "in view" (a web page
   * scrolled so that most of it is out of view). A showing descendant the walk does not reach (under
   * a parent that is not showing: a fixed element in a scrolled-out box) is read as a child of the
   * node. Without a usable Collection the whole subtree is read.
   */
  showingOnly?: (node: RawNode) => boolean;
}

export interface TreeReadResult {
  root: RawNode;
  nodes: number;
  truncated: boolean;
  stoppedAt?: RawNode;
}

/** The details of one object (RawNode's extents, actions, value, text). */
export interface NodeDetails {
  extents: Rect | null;
  actions: string[];
  value?: { current: number; min: number; max: number };
  text?: { password: boolean; text?: string; length?: number };
}

/** Copy read details onto a node. */
export function applyDetails(node: RawNode, d: NodeDetails): void {
  node.extents = d.extents;
  node.actions = d.actions;
  if (d.value) node.value = d.value;
  if (d.text) {
    if (d.text.password) node.password = true;
    else {
      node.text = d.text.text;
      node.textLength = d.text.length;
    }
  }
}

const DEFAULT_TEXT_LIMIT = 200;
/** Children of a container that manages its descendants asked at most (see TreeReader.childRefs). */
export const MANAGED_CHILDREN_MAX = 1000;
const PASSWORD_ATTR = /pass(word|wd)|secret/i;

/**
 * Reads accessible objects with every request of a tree level in flight at
 * once: the properties of one node go out together, the calls that depend on
 * the interface list (extents, actions, text, value) are chained per node, so
 * the app's queue never runs dry while one slow node is answered.
 */
export class TreeReader {
  /** Role names per (bus, role number): constant within one toolkit, so read once. */
  private readonly roleNames = new Map<string, Promise<string>>();
  /** Applications asked for their bus address (which makes at-spi2-atk publish its cache), by bus name. */
  private readonly activated = new Map<string, Promise<void>>();

  /** Each application's extents fix (extents-fix.ts): every extents read here goes through it. */
  readonly fixes: ExtentsFixes;

  constructor(private readonly bus: AtspiBus) {
    this.fixes = new ExtentsFixes(bus);
  }

  /** One object read on its own (not in a tree read), its extents placed as a tree read places them (ExtentsFixes.placeOne). */
  async readOne(ref: NodeRef, deadline: Deadline, opts: ReadNodeOptions = {}, depth = 0): Promise<RawNode | null> {
    const node = await this.readNode(ref, depth, deadline, opts);
    if (node?.extents) node.extents = await this.fixes.placeOne(ref, node.extents, deadline);
    return node;
  }

  /** Read one object; null when it is gone (or defunct). */
  async readNode(ref: NodeRef, depth: number, deadline: Deadline, opts: ReadNodeOptions = {}): Promise<RawNode | null> {
    const call = (iface: string, member: string, signature?: string, body?: unknown[]) =>
      this.bus.call({ dest: ref.bus, path: ref.path, iface, member, signature, body } satisfies CallSpec, deadline);
    const details = opts.details !== false;

    const nameP = call(IFACE.Properties, 'Get', 'ss', [IFACE.Accessible, 'Name']).then((b) => String(variantValue(b[0]) ?? '')).then((n) =>
      // a toolkit that names an unlabelled widget by its class (GTK 4: "GtkMenuButton"): its description (the tooltip) if any, else no name
      isWidgetClassName(n)
        ? call(IFACE.Properties, 'Get', 'ss', [IFACE.Accessible, 'Description']).then(
            (d) => String(variantValue(d[0]) ?? '').trim(),
            () => '',
          )
        : n,
    );
    const roleP = call(IFACE.Accessible, 'GetRole').then((b) => Number(b[0] ?? 0));
    const roleNameP = roleP.then((roleId) => this.roleName(ref, roleId, deadline));
    const stateP = call(IFACE.Accessible, 'GetState').then((b) => decodeStates((b[0] as number[]) ?? []));
    const ifaceP = call(IFACE.Accessible, 'GetInterfaces').then((b) => ((b[0] as string[]) ?? []).map((n) => n.replace(/^org\.a11y\.atspi\./, '')));
    const childrenP = opts.children
      ? Promise.all([stateP, ifaceP]).then(([states, interfaces]) => this.childRefs({ ref, states, interfaces }, deadline))
      : Promise.resolve([] as NodeRef[]);

    const none: NodeDetails = { extents: null, actions: [] };
    const wanted = opts.wanted;
    const detailsP = !details
      ? Promise.resolve(none)
      : wanted
        ? // judged once name, role, states and interfaces are in: one round trip later, far fewer calls
          Promise.all([nameP, roleP, stateP, ifaceP]).then(([name, roleId, states, interfaces]) =>
            wanted({ ref, depth, name, roleId, roleName: '', states, interfaces, childRefs: [], children: [], extents: null, actions: [] })
              ? this.readDetails({ ref, roleId, states, interfaces }, deadline, opts)
              : none,
          )
        : Promise.all([roleP, stateP, ifaceP]).then(([roleId, states, interfaces]) => this.readDetails({ ref, roleId, states, interfaces }, deadline, opts));

    let parts;
    try {
      parts = await Promise.all([nameP, roleP, roleNameP, stateP, ifaceP, childrenP, detailsP]);
    } catch (err) {
      if (isGoneError(err)) return null;
      throw err;
    }
    const [name, roleId, roleName, states, interfaces, childRefs, d] = parts;
    if (states.includes('defunct')) return null;
    const node: RawNode = { ref, depth, name, roleId, roleName, states, interfaces, childRefs, children: [], extents: null, actions: [] };
    applyDetails(node, d);
    return node;
  }

  /**
   * The children of a node, asked live. A container that manages its descendants and counts more
   * of them than MANAGED_CHILDREN_MAX (a spreadsheet: LibreOffice Calc counts 2^31-1 cells, and
   * creates every one it is asked for, for minutes and gigabytes) is never asked for all of them:
   * a table gives the cells it shows (the block between the cells at its top-left and bottom-right
   * corners, at most MANAGED_CHILDREN_MAX), anything else no children.
   */
  async childRefs(node: Pick<RawNode, 'ref' | 'states' | 'interfaces'>, deadline: Deadline, knownCount?: number): Promise<NodeRef[]> {
    const { ref } = node;
    const call = (iface: string, member: string, signature?: string, body?: unknown[]) =>
      this.bus.call({ dest: ref.bus, path: ref.path, iface, member, signature, body } satisfies CallSpec, deadline);
    const toRef = (v: unknown): NodeRef | null => {
      const [bus, path] = (v as [string, string]) ?? ['', ''];
      return path && path !== ATSPI_NULL_PATH ? { bus: bus || ref.bus, path } : null;
    };
    // (a cache gives -1 for the count of a container whose children it does not hold)
    if (node.states.includes('manages-descendants')) {
      const count = knownCount !== undefined && knownCount >= 0 ? knownCount : Number(variantValue((await call(IFACE.Properties, 'Get', 'ss', [IFACE.Accessible, 'ChildCount']))[0]) ?? 0);
      if (count > MANAGED_CHILDREN_MAX) {
        if (!node.interfaces.includes('Table') || !node.interfaces.includes('Component')) return [];
        return this.shownCells(ref, call, toRef, deadline).catch((err: unknown) => {
          if (deadline.fired || isGoneError(err)) throw err;
          return [];
        });
      }
    }
    const b = await call(IFACE.Accessible, 'GetChildren');
    return ((b[0] as Array<[string, string]>) ?? []).map(toRef).filter((r): r is NodeRef => r !== null);
  }

  /** The cells a huge table shows: rows and columns from its top-left to its bottom-right shown cell, row by row, capped. */
  private async shownCells(
    ref: NodeRef,
    call: (iface: string, member: string, signature?: string, body?: unknown[]) => Promise<unknown[]>,
    toRef: (v: unknown) => NodeRef | null,
    deadline: Deadline,
  ): Promise<NodeRef[]> {
    // in the application's own coordinates (its points are asked in them)
    const coords = this.fixes.coordType(ref.bus);
    const box = await this.readExtents({ ref, interfaces: ['Component'] }, deadline, true);
    if (!box || box.width <= 0 || box.height <= 0) return [];
    const inset = 3;
    const corner = async (x: number, y: number): Promise<{ row: number; col: number } | null> => {
      const at = toRef((await call(IFACE.Component, 'GetAccessibleAtPoint', 'iiu', [Math.round(x), Math.round(y), coords]))[0]);
      if (!at) return null;
      const index = Number((await this.bus.call({ dest: at.bus, path: at.path, iface: IFACE.Accessible, member: 'GetIndexInParent' }, deadline))[0]);
      if (!(index >= 0)) return null;
      const [row, col] = await Promise.all([
        call(IFACE.Table, 'GetRowAtIndex', 'i', [index]).then((b) => Number(b[0])),
        call(IFACE.Table, 'GetColumnAtIndex', 'i', [index]).then((b) => Number(b[0])),
      ]);
      return row >= 0 && col >= 0 ? { row, col } : null;
    };
    const [a, b] = await Promise.all([corner(box.x + inset, box.y + inset), corner(box.x + box.width - inset, box.y + box.height - inset)]);
    if (!a || !b || b.row < a.row || b.col < a.col) return [];
    // a row or column before the top-left corner that still shows (partly, or the point missed it) is kept
    const shows = async (row: number, col: number, side: 'left' | 'top'): Promise<boolean> => {
      if (row < 0 || col < 0) return false;
      const cell = toRef((await call(IFACE.Table, 'GetAccessibleAt', 'ii', [row, col]))[0]);
      const e = cell ? await this.readExtents({ ref: cell, interfaces: ['Component'] }, deadline, true) : null;
      if (!e || e.width <= 0 || e.height <= 0) return false;
      return side === 'left' ? e.x + e.width > box.x + 1 && e.x < box.x + box.width : e.y + e.height > box.y + 1 && e.y < box.y + box.height;
    };
    for (let i = 0; i < 3 && (await shows(a.row, a.col - 1, 'left')); i++) a.col--;
    for (let i = 0; i < 3 && (await shows(a.row - 1, a.col, 'top')); i++) a.row--;
    const cols = b.col - a.col + 1;
    const rows = Math.min(b.row - a.row + 1, Math.max(1, Math.floor(MANAGED_CHILDREN_MAX / cols)));
    const cells: Array<Promise<NodeRef | null>> = [];
    for (let r = a.row; r < a.row + rows; r++) {
      for (let c = a.col; c < a.col + Math.min(cols, MANAGED_CHILDREN_MAX); c++) cells.push(call(IFACE.Table, 'GetAccessibleAt', 'ii', [r, c]).then((x) => toRef(x[0])));
    }
    return (await Promise.all(cells)).filter((r): r is NodeRef => r !== null);
  }

  /**
   * What depends on the interface list: extents, actions, a numeric value, text. Calls of one
   * object go out together; a missing interface or method is an absent detail, not a failure.
   */
  async readDetails(
    node: Pick<RawNode, 'ref' | 'roleId' | 'states' | 'interfaces'>,
    deadline: Deadline,
    opts: Pick<ReadNodeOptions, 'anyText' | 'textLimit'> = {},
    /** Extents already read (readExtents): not asked again. */
    knownExtents?: Rect | null,
  ): Promise<NodeDetails> {
    const { ref, roleId, interfaces: ifs } = node;
    const call = (iface: string, member: string, signature?: string, body?: unknown[]) =>
      this.bus.call({ dest: ref.bus, path: ref.path, iface, member, signature, body } satisfies CallSpec, deadline);
    const optional = <T>(p: Promise<T>): Promise<T | undefined> =>
      p.catch((err) => {
        if (isMissingInterfaceError(err)) return undefined;
        throw err;
      });
    const extentsP = knownExtents !== undefined ? Promise.resolve(knownExtents) : this.readExtents(node, deadline);
    const actionsP = ifs.includes('Action')
      ? optional(call(IFACE.Action, 'GetActions')).then((b) => ((b?.[0] as Array<[string, string, string]>) ?? []).map((a) => String(a[0])))
      : Promise.resolve([] as string[]);
    const valueP =
      ifs.includes('Value') && NUMERIC_VALUE_ROLES.has(roleId)
        ? // one property at a time: Chromium 156's bridge aborts the whole process answering GetAll on
          // Value (a property whose value has no type leaves the a{sv} reply half written), and Qt 5.15's
          // bridge reads a second argument GetAll does not have and crashes (SIGSEGV, featherpad 1.3.5)
          Promise.all(
            (['CurrentValue', 'MinimumValue', 'MaximumValue'] as const).map((k) =>
              call(IFACE.Properties, 'Get', 'ss', [IFACE.Value, k]).then(
                (b) => [k, b[0]] as const,
                (err: unknown) => {
                  // "Get failed": the bridge has no such value (Chromium's scroll bars); gone objects stay errors
                  if (deadline.fired || isGoneError(err)) throw err;
                  return [k, undefined] as const;
                },
              ),
            ),
          ).then((kv) => (kv[0][1] === undefined ? undefined : toValue(Object.fromEntries(kv))))
        : Promise.resolve(undefined);
    const textP =
      ifs.includes('Text') && (opts.anyText || TEXT_VALUE_ROLES.has(roleId) || roleId === Role.PASSWORD_TEXT || isEditableCell(node))
        ? this.readText(roleId, call, optional, opts.textLimit ?? DEFAULT_TEXT_LIMIT)
        : Promise.resolve(undefined);
    const [extents, actions, value, text] = await Promise.all([extentsP, actionsP, valueP, textP]);
    return { extents, actions, value, text };
  }

  /**
   * Window-relative extents (in the application's coordinate type, corrected by its extents fix:
   * ExtentsFixes.adjust); `raw`: as the application gives them in that coordinate type. A pane's
   * move (embedded-pane) is not applied here: a tree read ends with ExtentsFixes.placeTree, an object
   * read alone with readOne. Null without the Component interface (or its method).
   */
  readExtents(node: Pick<RawNode, 'ref' | 'interfaces'>, deadline: Deadline, raw = false): Promise<Rect | null> {
    if (!node.interfaces.includes('Component')) return Promise.resolve(null);
    const ready = raw ? null : this.fixes.ready(node.ref.bus);
    return this.bus
      .call({ dest: node.ref.bus, path: node.ref.path, iface: IFACE.Component, member: 'GetExtents', signature: 'u', body: [this.fixes.coordType(node.ref.bus)] } satisfies CallSpec, deadline)
      .then(
        async (b) => {
          const r = toRect(b[0]);
          if (raw) return r;
          // (the window's offset is measured under the read that prepared it: a hung app fails this read's ceiling)
          if (ready) await Promise.race([ready, deadline.promise]);
          return this.fixes.adjust(node.ref.bus, r);
        },
        (err) => {
          if (isMissingInterfaceError(err)) return null;
          throw err;
        },
      );
  }

  /**
   * Walk the tree below `root` level by level, each level fully pipelined.
   * Stops after `maxNodes` objects (flagging `truncated`).
   */
  async readTree(root: NodeRef, deadline: Deadline, opts: TreeReadOptions): Promise<TreeReadResult | null> {
    const rootNode = await this.readNode(root, 0, deadline, { children: true, details: opts.details, wanted: opts.wanted });
    if (!rootNode) return null;
    let nodes = 1;
    let truncated = false;
    if (opts.stopAt?.(rootNode)) return { root: rootNode, nodes, truncated, stoppedAt: rootNode };
    const shown = new ShownScope(this, deadline, opts.showingOnly);
    shown.enter(rootNode, undefined);
    let level: RawNode[] = [rootNode];
    while (level.length > 0) {
      const pending: Array<{ parent: RawNode; ref: NodeRef }> = [];
      const allowed = await Promise.all(level.map((parent) => shown.childRefs(parent)));
      for (let li = 0; li < level.length; li++) {
        const parent = level[li];
        if (opts.descend && !opts.descend(parent)) continue;
        for (const ref of allowed[li]) {
          if (nodes >= opts.maxNodes) {
            truncated = true;
            break;
          }
          pending.push({ parent, ref });
          nodes++;
        }
        if (truncated) break;
      }
      const read = await Promise.all(
        pending.map((p) => this.readNode(p.ref, p.parent.depth + 1, deadline, { children: true, details: opts.details, wanted: opts.wanted })),
      );
      const next: RawNode[] = [];
      for (let i = 0; i < read.length; i++) {
        const n = read[i];
        if (!n) continue;
        if (opts.prune?.(n, pending[i].parent)) continue;
        pending[i].parent.children.push(n);
        shown.enter(n, pending[i].parent);
        next.push(n);
      }
      if (opts.stopAt) {
        // Tree order within the level is the order of `next`.
        const hit = firstInTreeOrder(rootNode, next, opts.stopAt);
        if (hit) return { root: rootNode, nodes, truncated, stoppedAt: hit };
      }
      level = next;
    }
    if (!truncated) nodes += await shown.adoptOrphans(opts.maxNodes - nodes, (ref, depth) => this.readNode(ref, depth, deadline, { children: true, details: opts.details, wanted: opts.wanted }));
    return { root: rootNode, nodes, truncated };
  }

  /** The `bus|path` of an object's parent; null when it has none or is gone. */
  async parentKey(ref: NodeRef, deadline: Deadline): Promise<string | null> {
    try {
      const b = await this.bus.call({ dest: ref.bus, path: ref.path, iface: IFACE.Properties, member: 'Get', signature: 'ss', body: [IFACE.Accessible, 'Parent'] }, deadline);
      const v = variantValue(b[0]) as [string, string] | undefined;
      return v && v[1] && v[1] !== ATSPI_NULL_PATH ? `${v[0] || ref.bus}|${v[1]}` : null;
    } catch (err) {
      if (deadline.fired || !isGoneError(err)) throw err;
      return null;
    }
  }

  /**
   * The objects below `ref` in the `showing` state, as `bus|path` keys (Collection.GetMatches, in
   * the application: one call); null when the object offers no usable Collection.
   */
  async showingBelow(ref: NodeRef, deadline: Deadline): Promise<Set<string> | null> {
    const refs = await this.inStateBelow(ref, 'showing', deadline);
    return refs ? new Set(refs.map((r) => `${r.bus}|${r.path}`)) : null;
  }

  /**
   * The objects below `ref` in state `state`, in tree order (Collection.GetMatches, in the
   * application: one call); null when the object offers no usable Collection.
   */
  async inStateBelow(ref: NodeRef, state: string, deadline: Deadline): Promise<NodeRef[] | null> {
    // rule (aiia{ss}iaiiasib): states {state} all of them; any attributes, roles and interfaces
    const states = [0, 0];
    const bit = STATE_NAMES.indexOf(state as (typeof STATE_NAMES)[number]);
    if (bit < 0) return null;
    states[bit >> 5] = (1 << (bit & 31)) | 0;
    const ALL = 1;
    const CANONICAL = 1;
    try {
      const b = await this.bus.call(
        { dest: ref.bus, path: ref.path, iface: IFACE.Collection, member: 'GetMatches', signature: '(aiia{ss}iaiiasib)uib', body: [[states, ALL, {}, ALL, [], ALL, [], ALL, false], CANONICAL, 0, true] },
        deadline,
      );
      const out: NodeRef[] = [];
      for (const [bus, path] of (b[0] as Array<[string, string]>) ?? []) if (path && path !== ATSPI_NULL_PATH) out.push({ bus: bus || ref.bus, path });
      return out;
    } catch (err) {
      if (deadline.fired || isGoneError(err)) throw err;
      return null;
    }
  }

  /**
   * The same tree as readTree, from one org.a11y.atspi.Cache.GetItems call (every object the
   * application's bridge holds, with name, role, states, interfaces, parent and child count),
   * instead of five calls per object. A node whose cached children do not add up to its child
   * count (GTK 3 leaves out the children of `manages-descendants` containers) is walked live below
   * it. Only the nodes `wanted` accepts get their details (extents, actions, value, text), in one
   * pipelined batch. Resolves undefined when the application has no usable cache (no interface,
   * an empty one, the window not in it): the caller walks instead.
   */
  async readTreeCached(
    app: NodeRef,
    frame: NodeRef,
    deadline: Deadline,
    opts: TreeReadOptions & {
      wanted?: (n: RawNode) => boolean;
      /**
       * Extents that make a wanted node unlisted whatever else it has (a zero box, a hidden
       * page's absurd origin): such a node gets only its extents, not its actions, value or
       * text; it is in the result's `partial`.
       */
      unlisted?: (node: RawNode, extents: Rect | null) => boolean;
      /** False when `unlisted` is false for the node whatever its extents: its details are asked together with them. */
      mayBeUnlisted?: (node: RawNode) => boolean;
      /**
       * Also rule out, without their extents, the unlisted-looking nodes (`mayBeUnlisted`) below one
       * whose own extents `unlisted` rules out: the topmost such node of a branch (a hidden
       * notebook page) gets its extents asked, and if they rule it out, so are those of every such
       * node below it (GTK 3 gives every unmapped widget the same INT_MIN origin).
       */
      pruneBelow?: boolean;
      items?: Promise<CacheItems | null>;
      /**
       * Nodes whose children are asked live even when the cache holds all of them (by count), judged
       * on the node and its cached children: a web view whose cached document is the page it left
       * (Chromium keeps a replaced document in its cache and never adds the new one).
       */
      liveChildren?: (node: RawNode, cachedChildren: ReadonlyArray<{ roleId: number }>) => boolean;
    },
  ): Promise<(TreeReadResult & { partial?: Set<RawNode> }) | null | undefined> {
    const items = await (opts.items ?? this.cacheItems(app, deadline));
    const frameItem = items?.get(frame.path);
    if (!items || !frameItem || frameItem.ref.bus !== frame.bus) return undefined;
    const kids = new Map<string, CacheItem[]>();
    for (const it of items.values()) {
      let list = kids.get(it.parent);
      if (!list) kids.set(it.parent, (list = []));
      list.push(it);
    }
    for (const list of kids.values()) list.sort((a, b) => a.index - b.index);
    const fromItem = nodeFromCacheItem;
    /** Child refs of a node: from the cache when it holds all of them, else asked live. */
    const complete = new Set<RawNode>();
    const childRefsOf = async (n: RawNode): Promise<NodeRef[]> => {
      const it = items.get(n.ref.path);
      const cached = it && it.ref.bus === n.ref.bus ? (kids.get(n.ref.path) ?? []) : null;
      if (cached && it && cached.length === it.childCount && !opts.liveChildren?.(n, cached)) {
        complete.add(n);
        return cached.map((c) => c.ref);
      }
      try {
        return await this.childRefs(n, deadline, it && it.ref.bus === n.ref.bus ? it.childCount : undefined);
      } catch (err) {
        if (isGoneError(err)) return [];
        throw err;
      }
    };
    const root = fromItem(frameItem, 0);
    if (root.states.includes('defunct')) return null;
    // Every branch descends on its own (a live subtree does not hold up the cached ones), and the
    // role names and details of wanted nodes are asked as soon as a node is known.
    let nodes = 1;
    let overBudget = false;
    const work: Array<Promise<unknown>> = [];
    let failure: { err: unknown } | null = null;
    const track = (p: Promise<unknown>) => work.push(p.catch((err: unknown) => void (failure ??= { err })));
    const gone = new Set<RawNode>();
    const live = new Set<RawNode>();
    const partial = new Set<RawNode>();
    const unlisted = opts.unlisted;
    /** The details of a wanted node: its extents first when they may rule it out, then the rest only if they do not. */
    /** Per node that may be unlisted: whether an ancestor's (or its own) extents rule out its branch. */
    const ruledOut = new Map<RawNode, Promise<boolean>>();
    /** Extents asked for a branch's top node, reused for its own details. */
    const topExtents = new Map<RawNode, Promise<Rect | null>>();
    const prune = opts.pruneBelow === true && unlisted !== undefined && opts.mayBeUnlisted !== undefined;
    const gate = (n: RawNode, parent: RawNode | undefined): void => {
      if (!prune || opts.mayBeUnlisted!(n) === false) return;
      const above = parent ? ruledOut.get(parent) : undefined;
      if (above) {
        ruledOut.set(n, above);
        return;
      }
      if (!n.interfaces.includes('Component')) return;
      const e = this.readExtents(n, deadline);
      e.catch(() => undefined);
      topExtents.set(n, e);
      ruledOut.set(
        n,
        e.then((x) => unlisted!(n, x), () => false),
      );
    };
    const details = async (n: RawNode): Promise<NodeDetails> => {
      if (!unlisted || opts.mayBeUnlisted?.(n) === false) return this.readDetails(n, deadline);
      const top = topExtents.get(n);
      const out = ruledOut.get(n);
      if (!top && out && (await out)) {
        partial.add(n);
        return { extents: null, actions: [] };
      }
      const extents = await (top ?? this.readExtents(n, deadline));
      if (!unlisted(n, extents)) return this.readDetails(n, deadline, {}, extents);
      partial.add(n);
      return { extents, actions: [] };
    };
    const known = (n: RawNode) => {
      track(this.roleName(n.ref, n.roleId, deadline).then((name) => (n.roleName = name)));
      if (opts.details !== false && (!opts.wanted || opts.wanted(n))) {
        track(
          details(n).then(
            (d) => applyDetails(n, d),
            (err) => {
              if (isGoneError(err)) gone.add(n);
              else throw err;
            },
          ),
        );
      }
    };
    const shown = new ShownScope(this, deadline, opts.showingOnly);
    const descend = async (n: RawNode): Promise<void> => {
      if (!live.has(n)) n.childRefs = await childRefsOf(n);
      const refs = await shown.childRefs(n);
      if (nodes + refs.length > opts.maxNodes) {
        overBudget = true;
        return;
      }
      nodes += refs.length;
      const read = await Promise.all(
        refs.map(async (ref) => {
          const it = items.get(ref.path);
          if (it && it.ref.bus === ref.bus) {
            const c = fromItem(it, n.depth + 1);
            return c.states.includes('defunct') ? null : c;
          }
          const c = await this.readNode(ref, n.depth + 1, deadline, { children: true, details: false });
          if (c) live.add(c);
          return c;
        }),
      );
      const children = read.filter((c): c is RawNode => c !== null);
      n.children = children;
      for (const c of children) shown.enter(c, n);
      for (const c of children) gate(c, n);
      for (const c of children) known(c);
      await Promise.all(children.map(descend));
    };
    shown.enter(root, undefined);
    known(root);
    await descend(root);
    // a tree over the node budget is read the way the walk reads it (breadth first, cut at the budget)
    if (overBudget) return this.readTree(frame, deadline, { maxNodes: opts.maxNodes, details: opts.details, showingOnly: opts.showingOnly });
    nodes += await shown.adoptOrphans(opts.maxNodes - nodes, (ref, depth) => this.readNode(ref, depth, deadline, { children: true, details: opts.details, wanted: opts.wanted }));
    for (let i = 0; i < work.length; i++) await work[i];
    if (failure) throw (failure as { err: unknown }).err;
    if (gone.size > 0) {
      const stack = [root];
      while (stack.length) {
        const n = stack.pop() as RawNode;
        n.children = n.children.filter((c) => !gone.has(c));
        stack.push(...n.children);
      }
    }
    return { root, nodes, truncated: false, partial };
  }

  /** Read the details of nodes a cached read left without them (their extents, actions, value, text). */
  async fillDetails(nodes: RawNode[], deadline: Deadline): Promise<void> {
    await Promise.all(nodes.map((n) => this.readDetails(n, deadline).then((d) => applyDetails(n, d), (err) => (isGoneError(err) ? undefined : Promise.reject(err)))));
  }

  /**
   * The application's cache, by object path; null when it has none. GTK 3's bridge (at-spi2-atk)
   * publishes /org/a11y/atspi/cache only once a client asked it for its bus address (what screen
   * readers do first), so that is asked once per application.
   */
  async cacheItems(app: NodeRef, deadline: Deadline): Promise<CacheItems | null> {
    let activated = this.activated.get(app.bus);
    if (!activated) {
      activated = this.bus
        .call({ dest: app.bus, path: app.path, iface: 'org.a11y.atspi.Application', member: 'GetApplicationBusAddress' }, deadline)
        .then(
          () => undefined,
          (err) => {
            if (isGoneError(err) || isMissingInterfaceError(err)) return undefined;
            this.activated.delete(app.bus);
            throw err;
          },
        );
      this.activated.set(app.bus, activated);
    }
    await activated;
    let body: unknown[];
    try {
      body = await this.bus.call({ dest: app.bus, path: ATSPI_CACHE_PATH, iface: IFACE.Cache, member: 'GetItems' }, deadline);
    } catch (err) {
      if (isMissingInterfaceError(err) || isUnknownObjectError(err)) return null;
      throw err;
    }
    const raw = (body[0] as unknown[] | undefined) ?? [];
    if (raw.length === 0) return null;
    const out = new Map<string, CacheItem>();
    for (const r of raw) {
      const it = toCacheItem(r, app.bus);
      if (it) out.set(it.ref.path, it);
    }
    return out.size > 0 ? out : null;
  }

  private roleName(ref: NodeRef, roleId: number, deadline: Deadline): Promise<string> {
    const key = `${ref.bus}|${roleId}`;
    let p = this.roleNames.get(key);
    if (!p) {
      p = this.bus
        .call({ dest: ref.bus, path: ref.path, iface: IFACE.Accessible, member: 'GetRoleName' }, deadline)
        .then((b) => String(b[0] ?? ''));
      this.roleNames.set(key, p);
      p.catch(() => this.roleNames.delete(key));
    }
    return p;
  }

  private async readText(
    roleId: number,
    call: (iface: string, member: string, signature?: string, body?: unknown[]) => Promise<unknown[]>,
    optional: <T>(p: Promise<T>) => Promise<T | undefined>,
    limit: number,
  ): Promise<{ password: boolean; text?: string; length?: number }> {
    if (roleId === Role.PASSWORD_TEXT) return { password: true };
    const [attrs, count] = await Promise.all([
      optional(call(IFACE.Accessible, 'GetAttributes')).then((b) => (b?.[0] ?? {}) as Record<string, string>),
      optional(call(IFACE.Properties, 'Get', 'ss', [IFACE.Text, 'CharacterCount'])).then((b) => Number(variantValue(b?.[0]) ?? 0)),
    ]);
    if (isPasswordAttrs(attrs)) return { password: true };
    if (!count || count <= 0) return { password: false, text: '', length: 0 };
    const end = Math.min(count, limit);
    const body = await optional(call(IFACE.Text, 'GetText', 'ii', [0, end]));
    let text = String(body?.[0] ?? '');
    if (count > end) text += '…';
    return { password: false, text, length: count };
  }
}

/** Object attributes that mark a password field (Chromium: text-input-type=password; others: input-type, type). */
export function isPasswordAttrs(attrs: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(attrs)) {
    if (/input-type|^type$|text-input-type|purpose/i.test(k) && PASSWORD_ATTR.test(String(v))) return true;
    if (/^password$/i.test(k) && /^(1|true|yes)$/i.test(String(v))) return true;
  }
  return false;
}

/**
 * Which children a read takes below the nodes TreeReadOptions.showingOnly accepts: only those
 * in the scope's set of showing objects (asked once per scope root); the showing objects the read
 * did not reach are adopted by the scope root at the end.
 */
class ShownScope {
  /** Per node read: the scope it is in (its scope root and that root's showing set). */
  private readonly scopeOf = new Map<RawNode, { root: RawNode; set: Promise<Set<string> | null> }>();
  private readonly reached = new Set<string>();

  constructor(
    private readonly reader: TreeReader,
    private readonly deadline: Deadline,
    private readonly accept: ((n: RawNode) => boolean) | undefined,
  ) {}

  /** A node read below `parent`: in its parent's scope, or the root of a new one. */
  enter(n: RawNode, parent: RawNode | undefined): void {
    if (!this.accept) return;
    const up = parent ? this.scopeOf.get(parent) : undefined;
    this.reached.add(`${n.ref.bus}|${n.ref.path}`);
    if (up) this.scopeOf.set(n, up);
    else if (this.accept(n)) {
      const set = this.reader.showingBelow(n.ref, this.deadline);
      set.catch(() => undefined);
      this.scopeOf.set(n, { root: n, set });
    }
  }

  /** The child refs of `n` the read takes. */
  async childRefs(n: RawNode): Promise<NodeRef[]> {
    const scope = this.scopeOf.get(n);
    if (!scope) return n.childRefs;
    const set = await scope.set;
    return set ? n.childRefs.filter((r) => set.has(`${r.bus}|${r.path}`)) : n.childRefs;
  }

  /**
   * Read the showing objects no walk reached (at most `budget` objects), each with its showing
   * subtree, as children of their scope root; the count read. `read` reads one object with its
   * child list.
   */
  async adoptOrphans(budget: number, read: (ref: NodeRef, depth: number) => Promise<RawNode | null>): Promise<number> {
    const roots = new Map<RawNode, Promise<Set<string> | null>>();
    for (const s of this.scopeOf.values()) roots.set(s.root, s.set);
    let count = 0;
    const refOf = (k: string): NodeRef => ({ bus: k.slice(0, k.indexOf('|')), path: k.slice(k.indexOf('|') + 1) });
    for (const [root, setP] of roots) {
      const set = await setP;
      if (!set) continue;
      const unreached = [...set].filter((k) => !this.reached.has(k));
      if (unreached.length === 0) continue;
      // the tops of the unreached branches: under a parent that is not showing (a showing parent the
      // read left out, a closed menu, took its branch with it)
      const parents = await Promise.all(unreached.map((k) => this.reader.parentKey(refOf(k), this.deadline)));
      let level = unreached.filter((_, i) => parents[i] !== null && !set.has(parents[i] as string)).map((k) => ({ parent: root, ref: refOf(k) }));
      while (level.length > 0 && count < budget) {
        level = level.slice(0, budget - count);
        count += level.length;
        const nodes = await Promise.all(level.map((p) => read(p.ref, p.parent.depth + 1)));
        const next: Array<{ parent: RawNode; ref: NodeRef }> = [];
        for (let i = 0; i < nodes.length; i++) {
          const n = nodes[i];
          if (!n || n.states.includes('defunct')) continue;
          level[i].parent.children.push(n);
          for (const c of n.childRefs) if (set.has(`${c.bus}|${c.path}`)) next.push({ parent: n, ref: c });
        }
        level = next;
      }
    }
    return count;
  }
}

function firstInTreeOrder(root: RawNode, level: RawNode[], pred: (n: RawNode) => boolean): RawNode | undefined {
  const hits = new Set(level.filter(pred));
  if (hits.size === 0) return undefined;
  const stack: RawNode[] = [root];
  while (stack.length) {
    const n = stack.pop() as RawNode;
    if (hits.has(n)) return n;
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
  }
  return undefined;
}

/** An application's cached objects by object path. */
export type CacheItems = Map<string, CacheItem>;

/** A node of a cached object, without its details and children (role name empty: asked separately). */
export function nodeFromCacheItem(it: CacheItem, depth: number): RawNode {
  return {
    ref: it.ref, depth, name: it.name, roleId: it.roleId, roleName: '', states: it.states, interfaces: it.interfaces,
    childRefs: [], children: [], extents: null, actions: [],
  };
}

/** One object of org.a11y.atspi.Cache.GetItems. */
export interface CacheItem {
  ref: NodeRef;
  /** Object path of the parent. */
  parent: string;
  index: number;
  childCount: number;
  interfaces: string[];
  name: string;
  roleId: number;
  states: string[];
}

/** Decodes one a((so)(so)(so)iiassusau) element (object, application, parent, index, child count, interfaces, name, role, description, states). */
function toCacheItem(v: unknown, bus: string): CacheItem | null {
  if (!Array.isArray(v) || v.length < 10) return null;
  const [obj, , parent, index, childCount, ifaces, name, role, description, states] = v as [[string, string], unknown, [string, string], number, number, string[], string, number, string, number[]];
  if (!Array.isArray(obj) || typeof obj[1] !== 'string' || !Array.isArray(parent)) return null;
  return {
    ref: { bus: obj[0] || bus, path: obj[1] },
    parent: String(parent[1] ?? ''),
    index: Number(index),
    childCount: Number(childCount),
    interfaces: (ifaces ?? []).map((n) => String(n).replace(/^org\.a11y\.atspi\./, '')),
    // a widget's type name ("GtkMenuButton") is no name: its description (the tooltip) stands for it
    name: isWidgetClassName(String(name ?? '')) ? String(description ?? '').trim() : String(name ?? ''),
    roleId: Number(role ?? 0),
    states: decodeStates(states ?? []),
  };
}

function variantValue(v: unknown): unknown {
  return v && typeof v === 'object' && 'value' in v ? (v as { value: unknown }).value : v;
}

function toRect(v: unknown): Rect | null {
  if (!Array.isArray(v) || v.length < 4) return null;
  const [x, y, width, height] = v.map(Number);
  return { x, y, width, height };
}

function toValue(v: unknown): { current: number; min: number; max: number } | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const num = (k: string) => Number(variantValue(o[k]));
  const current = num('CurrentValue');
  if (!Number.isFinite(current)) return undefined;
  return { current, min: num('MinimumValue'), max: num('MaximumValue') };
}
