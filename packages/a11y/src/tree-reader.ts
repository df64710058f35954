import type { Rect } from '@hypruse/core';
import { AtspiBus, isGoneError, isMissingInterfaceError, type CallSpec } from './atspi-bus.js';
import { ATSPI_NULL_PATH, COORD_TYPE_WINDOW, IFACE, NUMERIC_VALUE_ROLES, Role, TEXT_VALUE_ROLES, decodeStates } from './atspi-constants.js';
import type { Deadline } from './deadline.js';

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
}

export interface TreeReadOptions {
  maxNodes: number;
  /** Whether to walk below a node (default: always). */
  descend?: (node: RawNode) => boolean;
  details?: boolean;
  /** Stop early once this returns true for a node (the node is in the result). */
  stopAt?: (node: RawNode) => boolean;
}

export interface TreeReadResult {
  root: RawNode;
  nodes: number;
  truncated: boolean;
  stoppedAt?: RawNode;
}

const DEFAULT_TEXT_LIMIT = 200;
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

  constructor(private readonly bus: AtspiBus) {}

  /** Read one object; null when it is gone (or defunct). */
  async readNode(ref: NodeRef, depth: number, deadline: Deadline, opts: ReadNodeOptions = {}): Promise<RawNode | null> {
    const call = (iface: string, member: string, signature?: string, body?: unknown[]) =>
      this.bus.call({ dest: ref.bus, path: ref.path, iface, member, signature, body } satisfies CallSpec, deadline);
    const optional = <T>(p: Promise<T>): Promise<T | undefined> =>
      p.catch((err) => {
        if (isMissingInterfaceError(err)) return undefined;
        throw err;
      });
    const details = opts.details !== false;

    const nameP = call(IFACE.Properties, 'Get', 'ss', [IFACE.Accessible, 'Name']).then((b) => String(variantValue(b[0]) ?? ''));
    const roleP = call(IFACE.Accessible, 'GetRole').then((b) => Number(b[0] ?? 0));
    const roleNameP = roleP.then((roleId) => this.roleName(ref, roleId, deadline));
    const stateP = call(IFACE.Accessible, 'GetState').then((b) => decodeStates((b[0] as number[]) ?? []));
    const ifaceP = call(IFACE.Accessible, 'GetInterfaces').then((b) => ((b[0] as string[]) ?? []).map((n) => n.replace(/^org\.a11y\.atspi\./, '')));
    const childrenP = opts.children
      ? call(IFACE.Accessible, 'GetChildren').then((b) =>
          ((b[0] as Array<[string, string]>) ?? [])
            .filter(([, path]) => path && path !== ATSPI_NULL_PATH)
            .map(([bus, path]) => ({ bus: bus || ref.bus, path })),
        )
      : Promise.resolve([] as NodeRef[]);

    const extentsP = details
      ? ifaceP.then((ifs) =>
          ifs.includes('Component')
            ? optional(call(IFACE.Component, 'GetExtents', 'u', [COORD_TYPE_WINDOW])).then((b) => toRect(b?.[0]))
            : null,
        )
      : Promise.resolve(null);
    const actionsP = details
      ? ifaceP.then((ifs) =>
          ifs.includes('Action')
            ? optional(call(IFACE.Action, 'GetActions')).then((b) => ((b?.[0] as Array<[string, string, string]>) ?? []).map((a) => String(a[0])))
            : [],
        )
      : Promise.resolve([] as string[]);
    const valueP = details
      ? Promise.all([ifaceP, roleP]).then(([ifs, roleId]) =>
          ifs.includes('Value') && NUMERIC_VALUE_ROLES.has(roleId)
            ? optional(call(IFACE.Properties, 'GetAll', 's', [IFACE.Value])).then((b) => toValue(b?.[0]))
            : undefined,
        )
      : Promise.resolve(undefined);
    const textP = details
      ? Promise.all([ifaceP, roleP, stateP]).then(([ifs, roleId]) =>
          ifs.includes('Text') && (opts.anyText || TEXT_VALUE_ROLES.has(roleId) || roleId === Role.PASSWORD_TEXT)
            ? this.readText(roleId, call, optional, opts.textLimit ?? DEFAULT_TEXT_LIMIT)
            : undefined,
        )
      : Promise.resolve(undefined);

    let parts;
    try {
      parts = await Promise.all([nameP, roleP, roleNameP, stateP, ifaceP, childrenP, extentsP, actionsP, valueP, textP]);
    } catch (err) {
      if (isGoneError(err)) return null;
      throw err;
    }
    const [name, roleId, roleName, states, interfaces, childRefs, extents, actions, value, text] = parts;
    if (states.includes('defunct')) return null;
    const node: RawNode = { ref, depth, name, roleId, roleName, states, interfaces, childRefs, children: [], extents, actions };
    if (value) node.value = value;
    if (text) {
      if (text.password) node.password = true;
      else {
        node.text = text.text;
        node.textLength = text.length;
      }
    }
    return node;
  }

  /**
   * Walk the tree below `root` level by level, each level fully pipelined.
   * Stops after `maxNodes` objects (flagging `truncated`).
   */
  async readTree(root: NodeRef, deadline: Deadline, opts: TreeReadOptions): Promise<TreeReadResult | null> {
    const rootNode = await this.readNode(root, 0, deadline, { children: true, details: opts.details });
    if (!rootNode) return null;
    let nodes = 1;
    let truncated = false;
    if (opts.stopAt?.(rootNode)) return { root: rootNode, nodes, truncated, stoppedAt: rootNode };
    let level: RawNode[] = [rootNode];
    while (level.length > 0) {
      const pending: Array<{ parent: RawNode; ref: NodeRef }> = [];
      for (const parent of level) {
        if (opts.descend && !opts.descend(parent)) continue;
        for (const ref of parent.childRefs) {
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
        pending.map((p) => this.readNode(p.ref, p.parent.depth + 1, deadline, { children: true, details: opts.details })),
      );
      const next: RawNode[] = [];
      for (let i = 0; i < read.length; i++) {
        const n = read[i];
        if (!n) continue;
        pending[i].parent.children.push(n);
        next.push(n);
      }
      if (opts.stopAt) {
        // Tree order within the level is the order of `next`.
        const hit = firstInTreeOrder(rootNode, next, opts.stopAt);
        if (hit) return { root: rootNode, nodes, truncated, stoppedAt: hit };
      }
      level = next;
    }
    return { root: rootNode, nodes, truncated };
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
