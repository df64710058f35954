import { z } from 'zod';
import { NotFoundError, ROLE_SHORT, Tokens, UsageError, fact, type SessionState, type ToolContext, type Window } from '@hypruse/core';
import { findWindow, requirePosition, snapshot } from './desktop.js';
import { windowField } from './fields.js';
import { closestNames, matchNames, normalizeName, normalizeRole } from './match.js';
import { loadMarks, readUi, type ReadOptions, type UiItem, type UiRead } from './ui-read.js';

/**
 * Element ids and element resolution: every tool that takes an element (`click_ui`, `act`,
 * `get_text`, `wait_for`, `menu`, `sequence` steps) resolves `{id | name | mark, role?, index?}`
 * here, against a fresh read of the window or one the caller already holds.
 *
 * An id names one accessible object (its bus name and object path) in one window. The same object
 * keeps its id across reads, so an id from an earlier `ui` stays usable while the object lives.
 * Before a tool acts on an id, the object must still be in the window with the role and name it was
 * listed with; otherwise the call fails with `not_found.stale_id` and the current candidates.
 * Ids are kept in the session (and, for CLI verbs, in the runtime dir with the rest of the CLI state).
 */

/** What an id was given to: the window, the object, and the role and name it was listed with. */
export interface StoredElement {
  w: string;
  b: string;
  p: string;
  r: string;
  n: string;
}

export interface ElementIds {
  v: 1;
  next: number;
  ids: Record<string, StoredElement>;
}

export const ELEMENT_IDS_KEY = 'elements';
/** Ids kept per session; the oldest go first. */
const MAX_IDS = 4000;

const refKey = (window: string, bus: string, path: string) => `${window}\u0000${bus}\u0000${path}`;
const reverse = new WeakMap<ElementIds, Map<string, number>>();

/** The session's id table (created empty on first use). */
export function elementIds(session: SessionState): ElementIds {
  const got = session.bag.get(ELEMENT_IDS_KEY) as ElementIds | undefined;
  if (got && got.v === 1 && typeof got.next === 'number' && got.ids && typeof got.ids === 'object') return got;
  const fresh: ElementIds = { v: 1, next: 1, ids: {} };
  session.bag.set(ELEMENT_IDS_KEY, fresh);
  return fresh;
}

function reverseOf(t: ElementIds): Map<string, number> {
  let m = reverse.get(t);
  if (!m) {
    m = new Map();
    for (const [id, e] of Object.entries(t.ids)) m.set(refKey(e.w, e.b, e.p), Number(id));
    reverse.set(t, m);
  }
  return m;
}

/**
 * Give every item of a read its id (an object seen before keeps its id; its listed role and name are
 * updated) and its parent's id (its nearest listed ancestor).
 */
export function assignIds(session: SessionState, window: string, items: UiItem[]): void {
  const t = elementIds(session);
  const rev = reverseOf(t);
  for (const it of items) {
    const key = refKey(window, it.ref.bus, it.ref.path);
    let id = rev.get(key);
    if (id === undefined || !t.ids[String(id)]) {
      id = t.next++;
      rev.set(key, id);
    }
    t.ids[String(id)] = { w: window, b: it.ref.bus, p: it.ref.path, r: it.role, n: it.name };
    it.id = id;
  }
  for (const it of items) {
    if (it.up?.id) it.parent = it.up.id;
    else delete it.parent;
  }
  const ids = Object.keys(t.ids);
  if (ids.length > MAX_IDS) {
    for (const id of ids.map(Number).sort((a, b) => a - b).slice(0, ids.length - MAX_IDS)) {
      const e = t.ids[String(id)];
      rev.delete(refKey(e.w, e.b, e.p));
      delete t.ids[String(id)];
    }
  }
}

/** Forget the ids of windows that are gone (their objects cannot come back). */
export function forgetWindows(session: SessionState, live: ReadonlySet<string>): void {
  const t = elementIds(session);
  const rev = reverseOf(t);
  for (const [id, e] of Object.entries(t.ids)) {
    if (live.has(e.w)) continue;
    rev.delete(refKey(e.w, e.b, e.p));
    delete t.ids[id];
  }
}

/** Roles whose name is usually given by a separate label next to them. */
const LABELLED_ROLES = new Set(['text', 'entry', 'password text', 'combo box', 'spin button', 'slider', 'date editor', 'editbar']);
const LABEL_ROLES = new Set(['label', 'static']);

/**
 * Attach labels to the fields they label: a nameless field (or a combo box named by its chosen
 * item, which becomes its value) takes the text of the nearest label in
 * the same container on its row to its left, else of a label just above it (a small gap, left edges
 * aligned). Each label names one field. Pure: works on window-relative extents.
 */
export function attachLabels(items: UiItem[]): void {
  const labels = items.filter((i) => LABEL_ROLES.has(i.role) && !i.actionable && i.name.trim() !== '');
  if (!labels.length) return;
  const used = new Set<UiItem>();
  for (const f of items) {
    // GTK 3 names a combo box by its chosen item ("Red"): that is its value, its label names it
    // Qt 5 keeps the item chosen when it was first read as the name ("North" after South was chosen): a name that is one of its options is no name either
    const combo = f.role === 'combo box' && f.name.trim() !== '' && (f.value === undefined || items.some((o) => o.up === f && o.name.trim() === f.name.trim()));
    if (!LABELLED_ROLES.has(f.role) || (f.name.trim() !== '' && !combo)) continue;
    const fe = f.extents;
    const fcy = fe.y + fe.height / 2;
    let best: { l: UiItem; d: number } | null = null;
    for (const l of labels) {
      if (used.has(l) || l.up !== f.up) continue;
      const le = l.extents;
      const lcy = le.y + le.height / 2;
      const gapX = fe.x - (le.x + le.width);
      const gapY = fe.y - (le.y + le.height);
      let d = Infinity;
      if (gapX >= -4 && gapX <= 300 && Math.abs(lcy - fcy) <= Math.max(fe.height, le.height) / 2) d = gapX;
      else if (gapY >= -4 && gapY <= Math.max(12, le.height) && Math.abs(le.x - fe.x) <= 24) d = 1000 + gapY;
      if (d < (best?.d ?? Infinity)) best = { l, d };
    }
    if (best) {
      used.add(best.l);
      if (combo && f.value === undefined) f.value = f.name.trim();
      f.name = best.l.name.trim();
      f.labelledBy = -1 - labels.indexOf(best.l); // resolved to the label's id once ids are assigned
    }
  }
}

/** Roles of a container that frames the document on screen. */
const WINDOW_ROLES = new Set(['frame', 'window', 'dialog']);

/**
 * Name the one document area of a window when nothing names it (no name, no label): a multi-line
 * editable text takes the name of the document it shows, the selected page tab's (the only tab, or
 * the selected one), else the window's. Qt's QPlainTextEdit (featherpad) and GTK 4's source view
 * (gnome-text-editor) carry no name a person could use.
 */
export function nameDocumentArea(items: UiItem[], windowTitle: string): void {
  const areas = items.filter((i) => i.name.trim() === '' && i.states.includes('multi-line') && i.states.includes('editable') && !i.password);
  if (areas.length !== 1) return;
  const tabs = items.filter((i) => i.role === 'page tab' && i.name.trim() !== '');
  const tab = tabs.length === 1 ? tabs[0] : tabs.filter((t) => t.states.includes('selected')).length === 1 ? tabs.find((t) => t.states.includes('selected')) : undefined;
  const frame = items.find((i) => WINDOW_ROLES.has(i.role) && i.name.trim() !== '' && i.up === undefined);
  const name = (tab?.name ?? frame?.name ?? windowTitle).trim();
  if (name) areas[0].name = name;
}

export interface ElementRead extends UiRead {
  /** Every element with a box (controls, labels, named containers), with ids, in tree order, the children of each container in reading order (as the reader lists them). */
  items: UiItem[];
}

/** Read a window's elements with labels attached and ids assigned; `ui`, and every element-taking tool through resolveElement, reads this way. */
export async function readElements(ctx: ToolContext, windowArg: string, opts: ReadOptions = {}): Promise<ElementRead> {
  const r = await readUi(ctx, windowArg, '', false, opts);
  attachLabels(r.items);
  nameDocumentArea(r.items, r.window.title);
  assignIds(ctx.session, r.window.address, r.items);
  const labels = r.items.filter((i) => LABEL_ROLES.has(i.role) && !i.actionable && i.name.trim() !== '');
  for (const i of r.items) if (i.labelledBy !== undefined && i.labelledBy < 0) i.labelledBy = labels[-1 - i.labelledBy]?.id;
  forgetWindows(ctx.session, new Set(r.desktop.windows.map((w) => w.address)));
  return r;
}

/** Roles of a web page's document, whose `busy` state says the page is still loading. */
export const PAGE_ROLES: ReadonlySet<string> = new Set(['document web', 'document frame']);

/** Whether a read holds a web page, and whether that page is still loading (its document busy). */
export function pageState(items: ReadonlyArray<Pick<UiItem, 'role' | 'states'>>): 'none' | 'loading' | 'loaded' {
  const docs = items.filter((i) => PAGE_ROLES.has(i.role));
  if (docs.length === 0) return 'none';
  return docs.some((i) => i.states.includes('busy')) ? 'loading' : 'loaded';
}

/** The elements a name or role is matched against: controls, labels attached to nothing, and named containers; labels that name a field are the field. */
export function matchable(items: UiItem[], actionableOnly: boolean): UiItem[] {
  const labelIds = new Set(items.map((i) => i.labelledBy).filter((x): x is number => typeof x === 'number'));
  return items.filter((i) => !labelIds.has(i.id) && (!actionableOnly || i.actionable));
}

// ---------------------------------------------------------------- arguments

/** `id` of an element from ui ([12] → 12). */
export const idField = z.number().int().min(0).max(10_000_000).default(0).describe('Element id from ui (`[12] push button "OK"` → 12; 0 = unset). Checked to still be the same element before use.');
export const elementNameField = fact(z.string().max(200)).default('').describe('Accessible name (from ui): exact, else contained, else all words in any order; case, accents and whitespace ignored.');
export const roleField = fact(z.string().max(60)).default('').describe('Only elements of this role, e.g. "check box", "push button" (spaces optional).');
export const indexField = z.number().int().min(-1).max(1000).default(-1).describe('Pick this candidate (0-based, in reading order: rows top to bottom, left to right) when the name matches several.');

/** The element arguments every element-taking tool accepts; spread into its z.object (add `mark` where marks apply). */
export const elementArgs = {
  id: idField,
  name: elementNameField,
  role: roleField,
  index: indexField,
  window: windowField,
};

export const markField = z.number().int().min(0).max(10000).default(0).describe('Mark number from marks (0 = unset).');

export interface ElementQuery {
  id?: number;
  name?: string;
  mark?: number;
  role?: string;
  index?: number;
  window?: string;
}

export interface ResolvedElement {
  /** The read the element was found in (reuse it to verify an action, or pass it to the next resolve). */
  read: ElementRead;
  item: UiItem;
  id: number;
  window: Window;
  x: number;
  y: number;
  role: string;
  name: string;
  /** How to name it in a result: `push button "OK" [12]` (or `mark 3 (...)`). */
  label: string;
  mark?: number;
  /** How it was found. */
  by: 'id' | 'name' | 'role' | 'mark';
}

export interface ResolveOptions {
  /** A read to reuse (its window must be the element's window), else the window is read now. */
  read?: ElementRead;
  /** Match names among controls only (default true); false also matches labels and named containers. */
  actionableOnly?: boolean;
  /** What the element is needed for, in messages ("clicking", "reading its text"). */
  purpose?: string;
  /** false: the element is only read, never pointed at (a window without a reported position is read too). */
  points?: boolean;
  /** Also find elements scrolled out of view (UiItem.offscreen), for scroll_to. */
  offscreen?: boolean;
  /**
   * Among several elements matching the name, the ones this is true of win (a select's combo
   * box over the label naming it, a check box over its label text).
   */
  prefer?: (item: UiItem) => boolean;
}

/** An element as a line in an error's candidate list, and as data. */
export function elementBrief(i: UiItem): string {
  return `[${i.id}] ${i.role} "${i.name}"`;
}

function candidateData(items: UiItem[]) {
  return items.map((c, index) => ({ index, id: c.id, role: c.role, name: c.name, x: c.x, y: c.y, clickable: c.clickable, ...(c.checked !== undefined ? { checked: c.checked } : {}) }));
}

export function describeElement(i: UiItem): string {
  return `${i.role} "${i.name}" [${i.id}]`;
}

function resolved(read: ElementRead, item: UiItem, by: ResolvedElement['by'], mark?: number, label?: string): ResolvedElement {
  return { read, item, id: item.id, window: read.window, x: item.x, y: item.y, role: item.role, name: item.name, label: label ?? describeElement(item), by, ...(mark ? { mark } : {}) };
}

/** The role as the compact tree shows it: the short name (`button`, `checkbox`), `entry` for an editable one-line text. */
export function displayRole(item: Pick<UiItem, 'role' | 'states'>): string {
  if (item.role === 'text' && item.states.includes('editable') && !item.states.includes('multi-line')) return 'entry';
  return ROLE_SHORT[item.role] ?? item.role;
}

/** Whether an element has the role an agent named (its AT-SPI role or the short name the tree shows; empty = any). */
export function roleMatches(item: UiItem, role: string): boolean {
  if (role.trim() === '') return true;
  const want = normalizeRole(role);
  return normalizeRole(item.role) === want || normalizeRole(displayRole(item)) === want;
}

/** The window a stored id belongs to, checked against the `window` argument. */
function idWindow(ctx: ToolContext, id: number, windowArg: string | undefined): StoredElement {
  const t = elementIds(ctx.session);
  const e = t.ids[String(id)];
  if (!e) {
    throw new NotFoundError('not_found.element', `no element with id ${id}${Object.keys(t.ids).length ? '' : ' (no ids given yet)'}`, {
      hint: 'ids come from ui: call ui on the window to get current ids',
    });
  }
  if (windowArg && windowArg !== 'active' && windowArg !== e.w) {
    throw new UsageError(`element id ${id} belongs to window ${e.w}, not ${windowArg}: leave window out or pass ${e.w}`);
  }
  return e;
}

/**
 * Resolve one element. Exactly one of id, name or mark (role alone picks by role);
 * `role` narrows names, `index` picks among several. Misses, ambiguity and stale ids
 * are `not_found` errors whose data lists candidates with ids.
 */
export async function resolveElement(ctx: ToolContext, q: ElementQuery, opts: ResolveOptions = {}): Promise<ResolvedElement> {
  const r = await resolveOnce(ctx, q, opts);
  if (!r.read.reused) return r;
  // an element of a reused read: acted on only once it is known to be still there, else found again in a fresh read
  const a11y = ctx.services.get(Tokens.Accessibility);
  if (!a11y.exists || (await a11y.exists(r.item.ref, ctx.signal))) return r;
  a11y.forget?.();
  return resolveOnce(ctx, q, { ...opts, read: undefined });
}

async function resolveOnce(ctx: ToolContext, q: ElementQuery, opts: ResolveOptions): Promise<ResolvedElement> {
  const id = q.id ?? 0;
  const name = q.name ?? '';
  const mark = q.mark ?? 0;
  const role = (q.role ?? '').trim();
  const index = q.index ?? -1;
  const given = (id ? 1 : 0) + (name.trim() ? 1 : 0) + (mark ? 1 : 0);
  if (given > 1) throw new UsageError('pass one of id, name or mark, not several');
  if (given === 0 && !role) throw new UsageError('name the element: id (from ui), name, or role (with index when several share it)');
  const actionableOnly = opts.actionableOnly ?? true;

  if (id) {
    const stored = idWindow(ctx, id, q.window);
    const read = opts.read && opts.read.window.address === stored.w ? opts.read : await readElements(ctx, stored.w, { points: opts.points, offscreen: opts.offscreen });
    const now = read.items.find((i) => i.ref.bus === stored.b && i.ref.path === stored.p);
    if (now && now.role === stored.r && normalizeName(now.name) === normalizeName(stored.n)) return resolved(read, now, 'id');
    const pool = matchable(read.items, false);
    const similar = pool.filter((i) => i.role === stored.r && normalizeName(i.name) === normalizeName(stored.n));
    const near = similar.length ? similar : [...pool.filter((i) => i.role === stored.r && i.name.trim() !== ''), ...closestNames(pool, stored.n)];
    const cands = [...new Set(near)].slice(0, 5);
    const was = `${stored.r} "${stored.n}"`;
    const what = now ? `it is ${now.role} "${now.name}" now` : 'it is gone from the window';
    throw new NotFoundError(
      'not_found.stale_id',
      `stale id ${id}: it was ${was}; ${what}${cands.length ? `. Current candidates: ${cands.map(elementBrief).join(', ')}` : ''}`,
      { hint: 'use a current id (call ui again) or the name', data: { id, was: { role: stored.r, name: stored.n }, candidates: candidateData(cands) } },
    );
  }

  if (mark) {
    const m = await loadMarks(ctx);
    if (!m) throw new NotFoundError('not_found.mark', 'no marks yet; call marks first');
    const it = m.items[String(mark)];
    if (!it) throw new NotFoundError('not_found.mark', `no mark ${mark}; marks are ${Object.keys(m.items).join(', ')} (call marks again if the window changed)`);
    const d = await snapshot(ctx);
    const w = requirePosition(d, findWindow(d, m.window), 'using a mark');
    const read = opts.read && opts.read.window.address === w.address ? opts.read : await readElements(ctx, w.address);
    const px = w.geometry.x + it.dx;
    const py = w.geometry.y + it.dy;
    const same = read.items.filter((i) => i.role === it.role && i.name === it.name);
    same.sort((a, b) => Math.hypot(a.x - px, a.y - py) - Math.hypot(b.x - px, b.y - py));
    if (!same.length) {
      throw new NotFoundError('not_found.stale_id', `mark ${mark} (${it.label}) is no longer in the window`, { hint: 'call marks or ui again' });
    }
    return resolved(read, same[0], 'mark', mark, `mark ${mark} (${it.label})`);
  }

  const read = opts.read && (!q.window || q.window === 'active' || q.window === opts.read.window.address) ? opts.read : await readElements(ctx, q.window ?? '', { points: opts.points, offscreen: opts.offscreen });
  const base = matchable(read.items, actionableOnly);
  const byRole = base.filter((i) => roleMatches(i, role));
  const where = `${read.window.class}`;
  if (role && !byRole.length) {
    const roles = [...new Set(base.map((i) => i.role))];
    throw new NotFoundError('not_found.element', `no ${role} in ${where}; roles here: ${roles.slice(0, 12).join(', ')}`, { hint: 'call ui to see the elements' });
  }
  let pool: UiItem[];
  if (name.trim()) {
    pool = matchNames(byRole, name).pool;
    if (!pool.length) {
      const near = closestNames(byRole.filter((i) => i.name.trim() !== ''), name, 5);
      const what = role ? `${role} named '${name}'` : `element named '${name}'`;
      throw new NotFoundError('not_found.element', `no ${what} in ${where}${near.length ? `; closest: ${near.map(elementBrief).join(', ')}` : ''}`, {
        hint: 'use one of those ids, or call ui to see the names',
        data: { candidates: candidateData(near) },
      });
    }
  } else pool = byRole;
  if (pool.length > 1 && opts.prefer) {
    const preferred = pool.filter(opts.prefer);
    if (preferred.length > 0) pool = preferred;
  }
  const asked = name.trim() ? `'${name}'${role ? ` (${role})` : ''}` : `role ${role}`;
  let pick: UiItem;
  if (index >= 0) {
    if (index >= pool.length) throw new UsageError(`index ${index} is out of range: ${pool.length} candidate(s) for ${asked}`);
    pick = pool[index];
  } else if (pool.length > 1) {
    const shown = pool.slice(0, 8).map(elementBrief).join(', ');
    throw new NotFoundError(
      'not_found.ambiguous',
      `${asked} is ambiguous (${pool.length} candidates); call again with index=N (0-based), id=, role= or a more specific name: ${shown}${pool.length > 8 ? ', ...' : ''}`,
      { data: { candidates: candidateData(pool) } },
    );
  } else pick = pool[0];
  return resolved(read, pick, name.trim() ? 'name' : 'role');
}
