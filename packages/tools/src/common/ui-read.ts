import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  HypruseError, ensurePrivateDir, writeFileExclusive, NotFoundError, Tokens, contains, runtimeDir, toHypruseError, type A11yElement, type Desktop, type ToolContext, type Window,
} from '@hypruse/core';
import { compositorOf, findWindow, requirePosition, snapshot } from './desktop.js';
import { normalizeName } from './match.js';

export interface UiItem {
  /** Element id ([12] in ui), 0 until ids are assigned (common/elements.ts). */
  id: number;
  /** id of the nearest listed ancestor (0: none), set with the ids. */
  parent?: number;
  /** id of the label whose text became this field's name. */
  labelledBy?: number;
  role: string;
  name: string;
  x: number;
  y: number;
  clickable: boolean;
  value?: string | number;
  percent?: number;
  checked?: boolean;
  password?: boolean;
  focused?: boolean;
  /** internal: scrolled out of view (read with ReadOptions.offscreen); x/y are its nearest shown ancestor's point */
  offscreen?: boolean;
  /** internal: in an open menu's popup surface */
  popup?: boolean;
  /** internal: in a popup whose extents are not where it shows (A11yElement.unplaced): activated over AT-SPI */
  unplaced?: boolean;
  /** internal: handle for refresh */
  ref: A11yElement['ref'];
  extents: A11yElement['extents'];
  depth: number;
  /** internal: the nearest listed ancestor in the same read */
  up?: UiItem;
  actionable: boolean;
  states: string[];
}

export interface UiRead {
  desktop: Desktop;
  window: Window;
  items: UiItem[];
  truncated: boolean;
  app: string;
  /**
   * Set when the compositor reports no position for the window (niri: tiled)
   * and the read was asked for without points: x/y are then relative to the
   * window's output, not screen points, and nothing may be pointed at.
   */
  positionUnknown?: string;
  /** The backend gave an earlier read again (the app provably did not change): check an element exists before acting on it. */
  reused?: boolean;
  /** The app does not update this window's tree while it is not drawn (A11yReadResult.frozen): why. */
  frozen?: string;
  /** How long (ms, unscaled) an effect may take to show in this window's tree, when longer than usual (A11yReadResult.settleMs). */
  settleMs?: number;
  /** The app's text fields take no text over AT-SPI EditableText (A11yReadResult.noEditableText): why. */
  noEditableText?: string;
}

export interface ReadOptions {
  /**
   * false: the elements are only read (their text, states), never pointed at,
   * so a window without a reported position is read too. Default true: such a
   * window is refused (`unsupported.capability`).
   */
  points?: boolean;
  /** Also read elements scrolled out of view (act scroll_to finds them so); never listed by ui. */
  offscreen?: boolean;
  /** Also read the items of closed menus that the app keeps neither showing nor visible (Qt), marked offscreen. */
  closedMenus?: boolean;
}

/** Read a window's controls over AT-SPI; points are global (window geometry + window-relative extents). No tree: exit 4 with the vision fallback. */
export async function readUi(ctx: ToolContext, windowArg: string, name: string, actionableOnly: boolean, opts: ReadOptions = {}): Promise<UiRead> {
  const desktop = await snapshot(ctx);
  const window = findWindow(desktop, windowArg || 'active');
  if (!ctx.services.has(Tokens.Accessibility)) throw new HypruseError('error.a11y', 'no accessibility backend is installed');
  const a11y = ctx.services.get(Tokens.Accessibility);
  let r;
  try {
    r = await a11y.read(
      { pid: window.pid, title: window.title, width: window.geometry.width, height: window.geometry.height, class: window.class, x: window.geometry.x, y: window.geometry.y, drawn: window.visible },
      { actionableOnly, name: name || undefined, maxNodes: ctx.config.a11y.maxNodes, signal: ctx.signal, ...(opts.offscreen ? { offscreen: true } : {}), ...(opts.closedMenus ? { closedMenus: true } : {}) },
    );
  } catch (err) {
    const e = toHypruseError(err);
    throw new HypruseError(e.code === 'cancelled.request' ? 'cancelled.request' : 'error.a11y', `accessibility read of ${window.class} failed: ${e.message}`, {
      hint: 'use screenshot + zoom instead',
      cause: err,
    });
  }
  if (r.status !== 'ok') {
    const skeleton = r.status === 'no_tree' && r.skeleton;
    throw new NotFoundError('not_found.tree', `${window.class} exposes no accessibility tree${skeleton ? ' (only an empty skeleton: Chromium/Electron apps need --force-renderer-accessibility)' : ''}: ${r.reason}`, {
      hint: 'use screenshot + zoom instead',
      data: { window: window.address, class: window.class },
    });
  }
  // AT-SPI extents are window-relative on Wayland: global points need the window's position
  if (opts.points !== false) requirePosition(desktop, window, 'placing its controls on the screen');
  const g = window.geometry;
  // a compositor that reports neither the window's place nor its size (the Wayland protocols alone) gives
  // nothing to clip the elements to: every element the app shows is the window's
  const clip = window.positionUnknown === undefined || (g.width > 0 && g.height > 0);
  const items: UiItem[] = [];
  // per element of the read: its item, or (dropped) the item of its nearest kept ancestor
  const kept: Array<UiItem | undefined> = [];
  for (const el of r.elements) {
    const e = el.extents;
    const up = el.parent !== undefined ? kept[el.parent] : undefined;
    kept.push(up);
    let x: number;
    let y: number;
    if (el.offscreen) {
      // no place on screen: it is pointed at (by guards) where its nearest shown ancestor is
      let shown = up;
      while (shown?.offscreen) shown = shown.up;
      if (!shown) continue;
      ({ x, y } = shown);
    } else {
      if (e.width <= 0 || e.height <= 0) continue;
      x = g.x + e.x + Math.floor(e.width / 2);
      y = g.y + e.y + Math.floor(e.height / 2);
      if (!el.popup && clip && !contains(g, { x, y })) continue;
    }
    const item: UiItem = {
      id: 0, role: el.role, name: el.name, x, y, clickable: el.clickable, ref: el.ref, extents: el.extents, depth: el.depth, actionable: el.actionable ?? el.clickable, states: el.states,
    };
    if (el.password) item.password = true;
    else if (el.value?.text !== undefined) item.value = el.value.text;
    else if (el.value?.current !== undefined) {
      item.value = el.value.current;
      if (el.value.percent !== undefined) item.percent = el.value.percent;
    }
    if (el.checked !== undefined) item.checked = el.checked;
    if (el.focused) item.focused = true;
    if (el.popup) item.popup = true;
    if (el.unplaced) item.unplaced = true;
    if (el.offscreen) item.offscreen = true;
    if (up) item.up = up;
    kept[kept.length - 1] = item;
    items.push(item);
  }
  // the stale-observation guard compares screen geometry: a read without a position observed none
  if (window.positionUnknown === undefined) ctx.session.observed.set(window.address, { ...g });
  return {
    desktop, window, items, truncated: r.truncated, app: r.app,
    ...(window.positionUnknown !== undefined ? { positionUnknown: window.positionUnknown } : {}),
    ...(r.reused ? { reused: true } : {}),
    ...(r.frozen ? { frozen: r.frozen } : {}),
    ...(r.noEditableText ? { noEditableText: r.noEditableText } : {}),
    ...(r.settleMs ? { settleMs: r.settleMs } : {}),
  };
}

export function uiLine(i: UiItem, n?: number): string {
  const extra = [
    i.value !== undefined ? `value=${JSON.stringify(i.value)}` : '',
    i.percent !== undefined ? `${i.percent}%` : '',
    i.checked !== undefined ? (i.checked ? 'checked' : 'unchecked') : '',
    i.password ? 'password' : '',
    i.focused ? 'focused' : '',
    i.clickable ? '' : 'not clickable',
  ].filter(Boolean);
  return `${n !== undefined ? `[${n}] ` : ''}${i.role} "${i.name}" @${i.x},${i.y}${extra.length ? ` ${extra.join(' ')}` : ''}`;
}

export function uiJson(i: UiItem): Record<string, unknown> {
  const { ref: _ref, extents: _e, depth: _d, up: _u, actionable: _a, states: _s, popup: _p, unplaced: _un, offscreen: _o, id, parent, labelledBy, ...rest } = i;
  return { ...(id ? { id } : {}), ...(parent ? { parent } : {}), ...(labelledBy ? { labelled_by: labelledBy } : {}), ...rest };
}

/** Marks are kept per compositor instance in the runtime dir, so `click_ui --mark N` works from a later CLI process. */
export interface StoredMarks {
  window: string;
  items: Record<string, { dx: number; dy: number; label: string; role: string; name: string }>;
}

function marksFile(ctx: ToolContext): string | null {
  const dir = runtimeDir(ctx.env);
  if (!dir) return null;
  const comp = compositorOf(ctx);
  const instance = comp.instanceId ?? ctx.env.WAYLAND_DISPLAY ?? '';
  const key = createHash('sha256').update(`${comp.id}:${instance}`).digest('hex').slice(0, 12);
  return join(dir, 'hypruse', `marks-${key}.json`);
}

export async function saveMarks(ctx: ToolContext, marks: StoredMarks): Promise<void> {
  ctx.session.bag.set('marks', marks);
  const file = marksFile(ctx);
  if (!file) return;
  ensurePrivateDir(join(file, '..'));
  await writeFileExclusive(file, JSON.stringify(marks));
}

export async function loadMarks(ctx: ToolContext): Promise<StoredMarks | null> {
  const mem = ctx.session.bag.get('marks') as StoredMarks | undefined;
  if (mem) return mem;
  const file = marksFile(ctx);
  if (!file) return null;
  try {
    return JSON.parse(await readFile(file, 'utf8')) as StoredMarks;
  } catch {
    return null;
  }
}

export function filterLabel(name: string): string {
  return normalizeName(name);
}
