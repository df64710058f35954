import { z } from 'zod';
import { fact, scaledMs, type EventSubscription, type ToolContext } from '@hypruse/core';
import { compositorOf, snapshot } from './desktop.js';
import { readElements } from './elements.js';
import { uiLine, type UiItem } from './ui-read.js';

/** At most this many opened things are reported, each with at most ITEMS controls. */
const MAX_OPENED = 3;
const ITEMS = 12;

/** How long an action that may open a window (a button, a menu item) is given to open it (scaled). */
export const OPEN_WAIT_MS = 400;

const openedItem = z.strictObject({ id: z.number(), role: fact(z.string()), name: z.string(), x: z.number(), y: z.number() });

/** What an action opened: new windows (dialogs) and the open menu of the acted window, with their first controls. */
export const openedShape = z.array(
  z.strictObject({
    kind: z.enum(['window', 'menu']),
    window: fact(z.string()),
    class: fact(z.string()),
    title: z.string(),
    items: z.array(openedItem),
    more: z.number().optional(),
  }),
);

export interface Opened {
  lines: string[];
  data: z.output<typeof openedShape>;
}

export interface OpenWatch {
  window: string;
  before: Set<string>;
  sub: EventSubscription | null;
  close(): void;
}

/** Take note of the open windows before an action (and listen for new ones). */
export async function watchOpened(ctx: ToolContext, window: string): Promise<OpenWatch> {
  const comp = compositorOf(ctx);
  const sub = comp.capabilities.has('events') ? await comp.subscribe().catch(() => null) : null;
  const d = await snapshot(ctx);
  return { window, before: new Set(d.windows.map((w) => w.address)), sub, close: () => sub?.close() };
}

function itemOf(i: UiItem) {
  return { id: i.id, role: i.role, name: i.name, x: i.x, y: i.y };
}

/**
 * What the action opened: windows that appeared since `watchOpened` (waiting
 * up to `waitMs` for one when the action may open one), and, when `menus`,
 * the open menu (popup items) of the acted window. Best effort: a read that
 * fails leaves that part out.
 */
export async function openedSince(ctx: ToolContext, watch: OpenWatch, opts: { waitMs?: number; menus?: boolean } = {}): Promise<Opened | null> {
  const end = Date.now() + scaledMs(opts.waitMs ?? 0, ctx.env);
  const out: Opened = { lines: [], data: [] };
  try {
    if (watch.sub) {
      for (;;) {
        const left = end - Date.now();
        const e = await watch.sub.next(Math.max(0, left), ctx.signal);
        if (!e || e.type === 'window_open') break;
      }
    }
    const d = await snapshot(ctx);
    const fresh = d.windows.filter((w) => !watch.before.has(w.address)).slice(0, MAX_OPENED);
    for (const w of fresh) {
      let items: UiItem[] = [];
      try {
        items = (await readElements(ctx, w.address)).items.filter((i) => i.actionable);
      } catch {
        /* not yet readable: the window alone is reported */
      }
      out.data.push({ kind: 'window', window: w.address, class: w.class, title: w.title, items: items.slice(0, ITEMS).map(itemOf), ...(items.length > ITEMS ? { more: items.length - ITEMS } : {}) });
      out.lines.push(`opened window ${w.address} ${w.class} "${w.title}"${items.length ? `: ${items.length} control(s)` : ''}`);
      for (const i of items.slice(0, ITEMS)) out.lines.push(`  ${uiLine(i, i.id)}`);
    }
    if (opts.menus && out.data.length < MAX_OPENED && d.windows.some((w) => w.address === watch.window)) {
      const r = await readElements(ctx, watch.window);
      const items = r.items.filter((i) => i.popup && i.actionable);
      if (items.length) {
        out.data.push({ kind: 'menu', window: watch.window, class: r.window.class, title: r.window.title, items: items.slice(0, ITEMS).map(itemOf), ...(items.length > ITEMS ? { more: items.length - ITEMS } : {}) });
        out.lines.push(`opened a menu in ${watch.window}: ${items.length} item(s)`);
        for (const i of items.slice(0, ITEMS)) out.lines.push(`  ${uiLine(i, i.id)}`);
      }
    }
  } catch {
    /* the report of what opened is best effort: the action happened */
  }
  return out.data.length ? out : null;
}
