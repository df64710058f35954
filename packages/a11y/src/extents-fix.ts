import type { Rect } from '@hypruse/core';
import type { AtspiBus } from './atspi-bus.js';
import { ATSPI_NULL_PATH, COORD_TYPE_SCREEN, COORD_TYPE_WINDOW, IFACE, Role } from './atspi-constants.js';
import { extentsFixFamily, familyOfApp, type AppFamily } from './app-families.js';
import type { Deadline } from './deadline.js';
import { ABSURD_ORIGIN } from './elements.js';
import type { NodeRef, RawNode } from './tree-reader.js';
import { engineOfClass, engineOfToolkit, evenInset } from './web-engines.js';

/**
 * How the boxes one application reports over AT-SPI are made window-relative. Chosen once per
 * application from the app-family table (app-families.ts, AppFamily.extentsFix) and the web-engine
 * table (web-engines.ts, WebEngine.surfaceInset); every reader of extents goes through ExtentsFixes.
 * - `screen-less-origin` (Qt 5): SCREEN extents less the window's SCREEN origin, its WINDOW ones being wrong;
 * - `surface-inset` (Chromium): WINDOW extents less the surface's even inset past the window; a web
 *   document's boxes, which Chromium gives in its device pixels (its browser controls' in logical
 *   ones), divided by the scale it renders at (2 on a scale-1.5 output without fractional scaling);
 * - `embedded-pane` (LibreOffice under GTK 3): WINDOW extents, a root pane's branch moved by its holder's origin.
 */
export type ExtentsFix = 'screen-less-origin' | 'surface-inset' | 'embedded-pane';

type Point = { x: number; y: number };
/** A box's placement below a moved root: x' = x * scale + x0, y' = y * scale + y0, sizes times scale. */
type Placement = { x: number; y: number; scale: number };

/** How deep below the window a root pane is looked for. */
const PANE_DEPTH = 4;
/** Ancestors walked up from an object read alone to find whether it lies below a moved pane. */
const MAX_ANCESTORS = 40;
/** Object paths remembered per application (below a moved pane or not) before the memory is started again. */
const MAX_REMEMBERED = 50000;

interface AppState {
  fix: ExtentsFix | null;
  family: AppFamily | null;
  /** Which coordinate type its extents are asked in. */
  coords: typeof COORD_TYPE_WINDOW | typeof COORD_TYPE_SCREEN;
  /** Subtracted from every box it reports (the window's SCREEN origin, the surface inset); measured at each read of a window. */
  offset: Point | null;
  /** The measurement of `offset` under way (or done) for the window last prepared. */
  measuring: Promise<void> | null;
  /** By object path, how its boxes are placed (null: not below a moved pane or a scaled document). */
  below: Map<string, Placement | null>;
  /** surface-inset: the last tree read found a scaled web document (placeOne then places boxes below one). */
  scaled?: boolean;
}

/** The extents fix an application needs, from what it reports about itself (and its window's class). */
export function extentsFixOf(app: { toolkit: string; version: string; name: string }, windowClass?: string): ExtentsFix | null {
  const engine = engineOfToolkit(app.toolkit) ?? engineOfClass(windowClass);
  if (engine?.surfaceInset === 'even') return 'surface-inset';
  return extentsFixFamily(app)?.fix ?? null;
}

/**
 * The one place where extents are corrected, per application (by bus name). A read of a window calls
 * prepare() first; TreeReader.readExtents asks in coordType() and, once ready(), corrects with adjust(); a tree read
 * ends with placeTree(); an object read on its own (a refresh, a scrolling ancestor, a popup's screen
 * box) is placed by placeOne().
 */
export class ExtentsFixes {
  private readonly fixes = new Map<string, Promise<{ fix: ExtentsFix | null; family: AppFamily | null }>>();
  private readonly apps = new Map<string, AppState>();

  constructor(private readonly bus: AtspiBus) {}

  /** The fix chosen for `bus` (prepare() chose it), or null. */
  fixOf(bus: string): ExtentsFix | null {
    return this.apps.get(bus)?.fix ?? null;
  }

  /** The app family prepare() found for `bus` (from its toolkit and application name), or null. */
  familyOf(bus: string): AppFamily | null {
    return this.apps.get(bus)?.family ?? null;
  }

  /**
   * Before a window of `app` is read: choose the application's fix (once: its toolkit name and
   * version, its name), and measure what it subtracts for this window (one GetExtents of the frame,
   * for screen-less-origin and surface-inset only).
   */
  async prepare(app: NodeRef, appName: string, frame: NodeRef, window: { class?: string; width: number; height: number }, d: Deadline): Promise<void> {
    let chosen = this.fixes.get(app.bus);
    if (!chosen) {
      const prop = (name: string) =>
        this.bus
          .call({ dest: app.bus, path: app.path, iface: IFACE.Properties, member: 'Get', signature: 'ss', body: ['org.a11y.atspi.Application', name] }, d)
          .then((b) => String((b[0] as { value?: unknown } | undefined)?.value ?? ''), () => '');
      chosen = Promise.all([prop('ToolkitName'), prop('Version')]).then(([toolkit, version]) => ({
        fix: extentsFixOf({ toolkit, version, name: appName }, window.class),
        family: familyOfApp({ toolkit, name: appName }),
      }));
      this.fixes.set(app.bus, chosen);
      chosen.catch(() => this.fixes.delete(app.bus));
    }
    const { fix, family } = await chosen;
    let st = this.apps.get(frame.bus);
    if (!st) this.apps.set(frame.bus, (st = { fix, family, coords: COORD_TYPE_WINDOW, offset: null, measuring: null, below: new Map() }));
    st.fix = fix;
    st.family = family;
    if (fix !== 'screen-less-origin' && fix !== 'surface-inset') return;
    // measured beside the tree read (not before it): readExtents waits for it before correcting a box
    const coords = fix === 'screen-less-origin' ? COORD_TYPE_SCREEN : COORD_TYPE_WINDOW;
    st.coords = coords;
    const state = st;
    const measuring = this.bus
      .call({ dest: frame.bus, path: frame.path, iface: IFACE.Component, member: 'GetExtents', signature: 'u', body: [coords] }, d)
      .then(
        (b) => toRect(b[0]),
        () => null,
      )
      .then((r) => {
        // screen-less-origin without the window's origin: SCREEN extents as they are (window-relative on Wayland);
        // surface-inset: a maximized window has no shadow, no inset
        if (state.measuring === measuring) state.offset = !r ? null : fix === 'screen-less-origin' ? { x: r.x, y: r.y } : evenInset(r, window);
      });
    st.measuring = measuring;
  }

  /** Resolves once the offset of `bus`'s window being read is known (at once when none is being measured). */
  ready(bus: string): Promise<void> | null {
    return this.apps.get(bus)?.measuring ?? null;
  }

  /** The coordinate type `bus`'s extents are asked in. */
  coordType(bus: string): number {
    return this.apps.get(bus)?.coords ?? COORD_TYPE_WINDOW;
  }

  /** A box read from `bus` (in coordType()) made window-relative; a zero box (an unmapped object) stays as it is. */
  adjust<R extends Rect | null>(bus: string, r: R): R {
    const o = this.apps.get(bus)?.offset;
    if (!o || !r || (r.width <= 0 && r.height <= 0)) return r;
    return { ...r, x: r.x - o.x, y: r.y - o.y };
  }

  /**
   * After a tree read, the roots whose branch is placed apart, with every box below them:
   * - `embedded-pane`: a root pane at (0,0) with exactly the size of the native container holding it,
   *   while that container sits elsewhere in the window, is moved by the container's origin
   *   (LibreOffice 7.4 under GTK 3: the pane lies in a GTK panel under the GTK menu bar, y 26; a click on
   *   cell C3 selected C1);
   * - `surface-inset`: a web document whose box is its holder's times a scale (Chromium gives a page's
   *   boxes in device pixels, its own controls' in logical ones: on a scale-1.5 output sway 1.7 gives it
   *   buffers of scale 2, and a button at logical y 285 read y 570) is scaled back to the holder's.
   * Which objects lie below such a root is remembered for placeOne(). `read` gives a node's extents as
   * adjust() left them. Returns the number of roots placed.
   */
  async placeTree(root: RawNode, read: (n: RawNode) => Promise<Rect | null>): Promise<number> {
    const st = this.apps.get(root.ref.bus);
    if (st?.fix !== 'embedded-pane' && st?.fix !== 'surface-inset') return 0;
    if (st.below.size > MAX_REMEMBERED) st.below.clear();
    const found: Array<{ pane: RawNode; holder: RawNode }> = [];
    const rootRole = st.fix === 'embedded-pane' ? (n: RawNode) => n.roleId === Role.ROOT_PANE : (n: RawNode) => WEB_DOCUMENTS.has(n.roleId);
    const walk = (n: RawNode, depth: number) => {
      for (const c of n.children) {
        if (rootRole(c)) found.push({ pane: c, holder: n });
        else if (st.fix === 'surface-inset' || depth < PANE_DEPTH) walk(c, depth + 1);
      }
    };
    walk(root, 0);
    const moves = new Map<RawNode, Placement>();
    for (const { pane, holder } of found) {
      const [h, p] = await Promise.all([holder.extents ?? read(holder).catch(() => null), pane.extents ?? read(pane).catch(() => null)]);
      if (!h || !p || !placed(h) || !placed(p) || p.width <= 0 || p.height <= 0 || h.width <= 0 || h.height <= 0) continue;
      const m = st.fix === 'embedded-pane' ? paneMove(h, p) : documentScale(h, p, st.offset);
      if (m) moves.set(pane, m);
    }
    if (st.fix === 'surface-inset' && moves.size === 0) {
      // nothing scaled in this window (a scale-1 output): no memory kept, placeOne leaves boxes as they are
      st.below.clear();
      st.scaled = false;
      return 0;
    }
    if (st.fix === 'surface-inset') st.scaled = true;
    const stack: Array<{ n: RawNode; by: Placement | null }> = [{ n: root, by: null }];
    while (stack.length) {
      const { n, by: above } = stack.pop()!;
      const by = moves.get(n) ?? above;
      st.below.set(n.ref.path, by);
      if (by && n.extents && placed(n.extents)) n.extents = placeBox(n.extents, by);
      for (const c of n.children) stack.push({ n: c, by });
    }
    return moves.size;
  }

  /**
   * A box of one object read on its own (after adjust()), placed as a tree read would place it: moved
   * (or scaled) when the object lies below a root placeTree() placed (known from the last tree read,
   * else found by walking up its ancestors to an object it read).
   */
  async placeOne(ref: NodeRef, r: Rect | null, d: Deadline): Promise<Rect | null> {
    const st = this.apps.get(ref.bus);
    if (!r || !placed(r) || !st) return r;
    if (st.fix !== 'embedded-pane' && !(st.fix === 'surface-inset' && st.scaled)) return r;
    const by = await this.paneOffset(st, ref, d);
    return by ? placeBox(r, by) : r;
  }

  private async paneOffset(st: AppState, ref: NodeRef, d: Deadline): Promise<Placement | null> {
    const walked: string[] = [];
    let at: NodeRef | null = ref;
    let by: Placement | null = null;
    for (let i = 0; at && i < MAX_ANCESTORS; i++) {
      const known = st.below.get(at.path);
      if (known !== undefined) {
        by = known;
        break;
      }
      walked.push(at.path);
      at = await this.parent(at, d);
      if (at && at.bus !== ref.bus) break;
    }
    for (const p of walked) st.below.set(p, by);
    return by;
  }

  private async parent(ref: NodeRef, d: Deadline): Promise<NodeRef | null> {
    const b = await this.bus.call({ dest: ref.bus, path: ref.path, iface: IFACE.Properties, member: 'Get', signature: 'ss', body: [IFACE.Accessible, 'Parent'] }, d).catch((err: unknown) => {
      if (d.fired) throw err;
      return null;
    });
    const v = b?.[0];
    const inner = v && typeof v === 'object' && 'value' in v ? (v as { value: unknown }).value : v;
    if (!Array.isArray(inner) || inner.length < 2) return null;
    const [bus, path] = inner.map(String);
    return path && path !== ATSPI_NULL_PATH ? { bus: bus || ref.bus, path } : null;
  }
}

const WEB_DOCUMENTS: ReadonlySet<number> = new Set([Role.DOCUMENT_WEB, Role.DOCUMENT_FRAME]);
/** A document this much larger (or smaller) than its holder is scaled; closer to 1 it is laid out as it is. */
const SCALE_TOLERANCE = 0.04;

/** embedded-pane: a root pane at (0,0) of its holder's size, the holder elsewhere: moved by the holder's origin. */
function paneMove(h: Rect, p: Rect): Placement | null {
  if (p.x !== 0 || p.y !== 0 || (h.x === 0 && h.y === 0)) return null;
  if (p.width !== h.width || p.height !== h.height) return null;
  return { x: h.x, y: h.y, scale: 1 };
}

/**
 * surface-inset: a document whose box is its holder's box times one scale (sizes and the origin
 * before the inset was taken off, both ways): its boxes are divided by it, the inset kept.
 */
function documentScale(h: Rect, p: Rect, inset: Point | null): Placement | null {
  const k = p.width / h.width;
  if (Math.abs(k - 1) <= SCALE_TOLERANCE) return null;
  const i = inset ?? { x: 0, y: 0 };
  const near = (a: number, b: number) => Math.abs(a - b) <= Math.max(2, Math.abs(b) * SCALE_TOLERANCE);
  // the height and the surface-relative origin scale alike: a document merely wider than its holder is not scaled
  if (!near(p.height, h.height * k) || !near(p.x + i.x, (h.x + i.x) * k) || !near(p.y + i.y, (h.y + i.y) * k)) return null;
  return { x: i.x / k - i.x, y: i.y / k - i.y, scale: 1 / k };
}

function placeBox(r: Rect, by: Placement): Rect {
  if (by.scale === 1) return { ...r, x: r.x + by.x, y: r.y + by.y };
  return { x: Math.round(r.x * by.scale + by.x), y: Math.round(r.y * by.scale + by.y), width: Math.round(r.width * by.scale), height: Math.round(r.height * by.scale) };
}

/** A box that is somewhere (GTK 3 gives unmapped objects INT_MIN origins, never moved). */
function placed(e: Rect): boolean {
  return Math.abs(e.x) <= ABSURD_ORIGIN && Math.abs(e.y) <= ABSURD_ORIGIN;
}

function toRect(v: unknown): Rect | null {
  if (!Array.isArray(v) || v.length < 4) return null;
  const [x, y, width, height] = v.map(Number);
  return { x, y, width, height };
}
