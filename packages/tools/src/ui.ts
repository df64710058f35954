import { z } from 'zod';
import {
  NotFoundError, Tokens, UsageError, defineTool, fact, globalToPixel, regionScale, result, scaledMs, type EventSubscription, type ToolContext, type A11yElement, backgroundRefusal, HypruseError,
} from '@hypruse/core';
import { allowAuthField, confirmField, thenField, windowField } from './common/fields.js';
import { compositorOf, findWindow, requirePosition, snapshot } from './common/desktop.js';
import { assertCapturable, captureFrame, deliverFrame, toplevelIdOf } from './common/image.js';
import { elementArgs, markField, matchable, readElements, resolveElement, roleField, roleMatches } from './common/elements.js';
import { matchNames } from './common/match.js';
import { renderFlat, renderTree } from './common/ui-tree.js';
import { sleep } from './common/pointer.js';
import { ACTIVATE_ACTIONS, FROZEN_HINT, singleClickIndex } from './common/activate.js';
import { OPEN_WAIT_MS, openedShape, openedSince, watchOpened, type Opened } from './common/opened.js';
import { saveMarks, uiJson, uiLine, type UiItem } from './common/ui-read.js';
import { address, className, imageMetaShape, uiElement } from './common/output.js';

const uiOutput = z.strictObject({
  window: address,
  class: className,
  truncated: z.boolean(),
  elements: z.array(uiElement),
  /** the after= that continues a capped listing */
  next_after: z.number().int().optional(),
  /** elements left out by max_chars */
  left: z.number().int().optional(),
});
const marksOutput = z.strictObject({ ...imageMetaShape, legend: z.array(uiElement.extend({ mark: z.number() })), hint: fact(z.string()) });
/** Roles whose click opens a menu or popup (what it opened is awaited briefly and listed). */
const MENU_OPENERS = new Set(['menu', 'menu item', 'combo box', 'menu button']);

const clickUiOutput = z.strictObject({
  clicked: z.strictObject({ id: z.number().optional(), role: fact(z.string()), name: fact(z.string()), x: z.number(), y: z.number(), window: address, mark: z.number().optional() }),
  state: z
    .strictObject({
      states: z.array(fact(z.string())),
      checked: z.boolean().nullable(),
      value: z.strictObject({ text: z.string().optional(), current: z.number().optional(), min: z.number().optional(), max: z.number().optional(), percent: z.number().optional() }).nullable(),
    })
    .optional(),
  opened: openedShape.optional(),
  /** Background mode: the row of a table selected through its AT-SPI Table (0-based), as a single click selects it. */
  selectedRow: z.number().optional(),
});

export const uiTool = defineTool({
  name: 'ui',
  title: 'Accessibility tree',
  effect: 'observe',
  description:
    "A window's controls over accessibility (AT-SPI) as a compact tree: `[12] push button \"OK\"` lines, one space of indent per level, named containers as headers, siblings of one role on one line; values, `checked`, `focused`, `disabled` shown (no `checked` = unchecked; password fields are never read). Labels name the fields they label. Act on an element by its id (click_ui id=12; ids stay valid while the element lives and are checked before use). Use it before any screenshot. `name`/`role` filter; `format=flat` lists each control with its global point; `max_chars` caps the text (continue with `after`).",
  readonlyDescription: "A window's controls over accessibility (AT-SPI) as a compact tree: `[12] push button \"OK\"` lines, one space of indent per level, values and states shown (no `checked` = unchecked; password fields are never read). `name`/`role` filter; `format=flat` lists each control with its global point; `max_chars` caps the text (continue with `after`).",
  input: z
    .object({
      window: windowField,
      name: z.string().max(200).default('').describe('Only controls whose name contains this (case and accents ignored).'),
      actionable: z.boolean().default(true).describe('Only named, actionable controls (false: every element with a box).'),
      role: roleField,
      format: z.enum(['tree', 'flat']).default('tree').describe('tree: compact hierarchy with ids; flat: one control a line with its global point.'),
      max_chars: z.number().int().min(0).max(1_000_000).default(0).describe('Cap the listing at about this many characters (0 = no cap); the last line names the after= for the rest.'),
      after: z.number().int().min(0).default(0).describe('Continue a capped listing after this element id.'),
    })
    .strict(),
  output: uiOutput,
  cli: { positional: ['window'] },
  async handle(args, ctx) {
    const r = await readElements(ctx, args.window);
    const items = listed(r.items, args.name, args.actionable, args.role);
    const more = r.truncated ? ' (stopped after a large tree; try a name filter)' : '';
    if (!items.length) {
      const what = [args.role ? args.role : '', args.name ? `matching '${args.name}'` : ''].filter(Boolean).join(' ');
      throw new NotFoundError('not_found.element', `${what ? `no ${what} elements` : 'no actionable elements'} in ${r.window.class}${more}`, {
        hint: what ? 'try a shorter name, or ui without a filter' : 'use screenshot + zoom instead',
      });
    }
    // within the host's limit unless asked for less: the text, and the elements' JSON a host may show instead
    const budget = ctx.textBudget ?? 0;
    const render = (maxChars: number) => {
      const opts = { maxChars, after: args.after };
      const view = args.format === 'flat' ? renderFlat(items, (i) => uiLine(i, i.id), opts) : renderTree(items, opts);
      let elements = items;
      if (args.after || view.next) {
        // only what the text shows, so text and data agree
        const inText = new Set(view.lines.join('\n').match(/\[(\d+)\]/g)?.map((m) => Number(m.slice(1, -1))) ?? []);
        elements = items.filter((i) => inText.has(i.id));
      }
      return { view, elements };
    };
    let maxChars = budget ? Math.min(args.max_chars || budget, budget) : args.max_chars;
    let { view, elements } = render(maxChars);
    for (let n = 0; budget && n < 8; n++) {
      const json = JSON.stringify(elements.map(uiJson)).length;
      if (json <= budget || maxChars <= 200) break;
      maxChars = Math.max(200, Math.floor((maxChars || view.lines.join('\n').length) * (budget / json) * 0.95));
      ({ view, elements } = render(maxChars));
    }
    const res = result(`${items.length} control(s) in ${r.window.class} "${r.window.title}" (${r.window.address})${more}`);
    for (const l of view.lines) res.text(l);
    return res
      .data({ window: r.window.address, class: r.window.class, truncated: r.truncated, elements: elements.map(uiJson), ...(view.next ? { next_after: view.next, left: view.left } : {}) })
      .build();
  },
});

/** The elements `ui` lists: controls (or, with actionable=false, everything with a box), labels that name a field folded into it, filtered by name. */
function listed(items: UiItem[], name: string, actionableOnly: boolean, role = ''): UiItem[] {
  const pool = matchable(items, actionableOnly).filter((i) => roleMatches(i, role));
  return name.trim() ? pool.filter((i) => matchNames([i], name).pool.length > 0) : pool;
}

export const marksTool = defineTool({
  name: 'marks',
  title: 'Numbered marks',
  effect: 'observe',
  description: 'Capture a window with every listed control drawn as a numbered mark, plus a legend. Then click_ui with mark=N clicks that control (also from a later CLI call).',
  readonlyDescription: 'Capture a window with every listed control drawn as a numbered mark, plus a legend whose numbers match the marks.',
  input: z.object({ window: windowField, name: z.string().max(200).default('').describe('Only controls whose name contains this.') }).strict(),
  output: marksOutput,
  cli: { positional: ['window'] },
  async handle(args, ctx) {
    const read = await readElements(ctx, args.window);
    const r = { ...read, items: listed(read.items, args.name, true) };
    if (!r.items.length) throw new NotFoundError('not_found.element', `no actionable elements in ${r.window.class}`, { hint: 'use screenshot + zoom instead' });
    const w = r.window;
    assertCapturable(ctx, w);
    const scale = regionScale(r.desktop.monitors, w.geometry);
    const { frame, stable } = await captureFrame(ctx, { kind: 'window', address: w.address, geometry: w.geometry, scale, ...toplevelIdOf(w) }, true);
    assertCapturable(ctx, w, frame);
    const marks = r.items.map((i, n) => {
      const p = globalToPixel(frame.geometry, frame.scale, { x: i.x, y: i.y });
      return { x: p.x, y: p.y, label: String(n + 1) };
    });
    const drawn = await ctx.services.get(Tokens.Imaging).drawMarks(frame, marks);
    const stored = Object.fromEntries(
      r.items.map((i, n) => [String(n + 1), { dx: i.x - w.geometry.x, dy: i.y - w.geometry.y, label: `${i.role} '${i.name}'`, role: i.role, name: i.name }]),
    );
    await saveMarks(ctx, { window: w.address, items: stored });
    const img = await deliverFrame(ctx, drawn, { lossless: false, scale: 0, stable, meta: { target: 'marks', window: w.address, class: w.class } });
    const legend = r.items.map((i, n) => ({ mark: n + 1, ...uiJson(i) }));
    const hint = ctx.config.readonly ? 'the numbers on the image match the legend' : 'click_ui with mark=N clicks that control';
    return {
      ...img,
      text: [...img.text, ...r.items.map((i, n) => uiLine(i, n + 1)), hint],
      data: { ...(img.data ?? {}), legend, hint },
    };
  },
});

interface Target {
  window: string;
  cls: string;
  /** The app does not update the window's tree while it is not drawn (UiRead.frozen): why. */
  frozen?: string;
  x: number;
  y: number;
  role: string;
  name: string;
  label: string;
  item?: UiItem;
  id?: number;
  mark?: number;
}

/** How long the read-back waits for a control to show the click's effect (scaled by the time policy). */
const READ_BACK_MS = 60;
/** How long a window whose clicked control is gone may take to close (the app is tearing it down). */
const CLOSING_MS = 2000;

/**
 * The clicked control's state after the click: read at once; a control with a checked state or a
 * numeric value is read again (every 10 ms, at most READ_BACK_MS) until the app shows a change, since the
 * app may answer AT-SPI before it has handled the click. Null when the control is gone.
 */
async function readBack(ctx: ToolContext, item: UiItem) {
  const a11y = ctx.services.get(Tokens.Accessibility);
  const end = Date.now() + scaledMs(READ_BACK_MS, ctx.env);
  let now = await a11y.refresh(item.ref, ctx.signal);
  const watch = watchesState(item);
  const changed = () => !!now && (now.checked !== item.checked || now.value?.current !== item.value);
  while (now && watch && Date.now() < end && !changed()) {
    await sleep(10, ctx.signal);
    now = await a11y.refresh(item.ref, ctx.signal);
  }
  // the app shows the click's effect: it has handled the click, a following read need not wait for it
  if (watch && changed()) a11y.inputHandled?.();
  return now;
}

function watchesState(item: UiItem): boolean {
  return item.checked !== undefined || typeof item.value === 'number';
}

/**
 * After clicking a control without a state (OK, Close), the effect to wait for is its window
 * closing: true as soon as the compositor reports it, false after `ms` without it.
 */
async function windowClosed(sub: EventSubscription, window: string, ms: number, signal: AbortSignal): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    const left = end - Date.now();
    if (left <= 0) return false;
    const e = await sub.next(left, signal);
    if (!e) return false;
    if (e.type === 'window_close' && e.address === window) return true;
  }
}

/** The target resolved by intent(), keyed by the call's parsed arguments (the same object reaches handle()). */
const resolved = new WeakMap<object, Target>();

async function resolveTarget(args: { id: number; name: string; mark: number; role: string; window: string; index: number }, ctx: ToolContext): Promise<Target> {
  const e = await resolveElement(ctx, args, { purpose: 'clicking' });
  return { window: e.window.address, cls: e.window.class, x: e.x, y: e.y, role: e.role, name: e.name, label: e.by === 'mark' ? e.label : `${e.role} '${e.name}'`, item: e.item, id: e.id, ...(e.mark ? { mark: e.mark } : {}), ...(e.read.frozen ? { frozen: e.read.frozen } : {}) };
}

/**
 * An item of a list or tree whose AT-SPI actions open it as a double click would (a file in a
 * file manager's list: Activate, Edit, Expand or contract) and none clicks it once: a single click
 * selects its row, which the table's own selection does in background mode. A cell with no action
 * at all (a spreadsheet's) is not one: a click there selects the cell, not its row.
 */
function rowItem(el: Pick<A11yElement, 'actions' | 'states'>): boolean {
  return el.states.includes('selectable') && el.actions.length > 0 && singleClickIndex(el) < 0;
}

export const clickUiTool = defineTool({
  name: 'click_ui',
  title: 'Click a control by name',
  effect: 'destructive',
  background: { mode: 'a11y', note: "a left single click runs the control's AT-SPI click/press/activate action (no pointer, no focus) and reads its new state back; a cell of a table whose action would open it (a file in a file manager's list) has its row selected through the table's AT-SPI Table and Selection, as a single click selects it, and read back selected; controls without such an action (canvases, apps without a tree), right, middle and double clicks are refused" },
  description:
    "Click a control by its id from ui, by its accessible name (exact, else contained, else all words; case, accents and whitespace ignored; role= narrows) or by the number from marks, through the real pointer. An id is checked to still be the same control first. An ambiguous name returns the candidates with ids and clicks nothing. Reports the control's new state.",
  input: z
    .object({
      ...elementArgs,
      mark: markField,
      button: z.enum(['left', 'right', 'middle']).default('left'),
      double: z.boolean().default(false),
      then: thenField,
      allow_auth: allowAuthField,
      confirm: confirmField,
    })
    .strict(),
  output: clickUiOutput,
  cli: { positional: ['name'] },
  async intent(args, ctx) {
    const t = await resolveTarget(args, ctx);
    resolved.set(args, t);
    if (ctx.config.background) {
      if (args.button !== 'left' || args.double) throw backgroundRefusal(`a ${args.double ? 'double ' : ''}${args.button} click on ${t.label} needs the pointer`, 'a left single click runs the control\'s AT-SPI action without the pointer');
      // a link's effect is a new page, which such an app does send; anything else would go unseen
      if (t.frozen && t.role !== 'link') throw backgroundRefusal(`clicking ${t.label}: ${t.frozen}`, FROZEN_HINT);
      const el = t.item && ctx.services.has(Tokens.Accessibility) ? await ctx.services.get(Tokens.Accessibility).refresh(t.item.ref, ctx.signal) : null;
      const a11y = ctx.services.get(Tokens.Accessibility);
      if (el && rowItem(el) && a11y.selectRow) {
        // a single click selects the row: the table's own selection does it (a table that holds no such cell is refused then, nothing sent)
        return { summary: `select the row of ${t.label} in ${t.cls} through its table's AT-SPI selection`, input: 'none', seatless: true, windows: [t.window], control: { role: t.role, name: t.name } };
      }
      if (el && el.states.includes('selectable') && singleClickIndex(el) < 0) {
        throw backgroundRefusal(
          el.actions.length
            ? `${t.label} is an item of a list, table or tree: its AT-SPI ${el.actions.join('/')} opens it as a double click would, and selecting it with a single click needs the pointer`
            : `${t.label} is an item of a list, table or tree with no AT-SPI action (a click there selects the one cell, which no AT-SPI call does alike), so selecting it needs the pointer`,
          'ask the person, or work in a private desk (desk: "private"); get_text and ui read the list without selecting anything',
        );
      }
      if (!el || singleClickIndex(el) < 0) {
        throw backgroundRefusal(`${t.label} has no AT-SPI ${ACTIVATE_ACTIONS.join('/')} action, so clicking it needs the pointer`, 'act (set_text, check, select) reaches fields, check boxes and lists without the pointer; otherwise ask the person to turn background mode off');
      }
      return { summary: `activate ${t.label} in ${t.cls} through its AT-SPI action`, input: 'none', seatless: true, windows: [t.window], control: { role: t.role, name: t.name } };
    }
    return { summary: `click ${t.label} at (${t.x}, ${t.y}) in ${t.cls}`, input: 'pointer', windows: [t.window], points: [{ x: t.x, y: t.y }], control: { role: t.role, name: t.name } };
  },
  async handle(args, ctx) {
    const t = resolved.get(args) ?? (await resolveTarget(args, ctx));
    const comp = compositorOf(ctx);
    // a control without a state to watch (a push button) may close its window: listen from before the click
    const closeWatch = t.item && !watchesState(t.item) && comp.capabilities.has('events') ? await comp.subscribe().catch(() => null) : null;
    // what the click opens (a dialog, a menu) is listed with the answer
    const openWatch = await watchOpened(ctx, t.window).catch(() => null);
    let state = '';
    const data: Record<string, unknown> = { clicked: { ...(t.id ? { id: t.id } : {}), role: t.role, name: t.name, x: t.x, y: t.y, window: t.window, ...(t.mark ? { mark: t.mark } : {}) } };
    try {
      if (ctx.config.background) {
        // accessibility alone: the control's own action, no pointer, no focus
        const a11y = ctx.services.get(Tokens.Accessibility);
        const el = t.item ? await a11y.refresh(t.item.ref, ctx.signal) : null;
        const i = el ? singleClickIndex(el) : -1;
        if (el && rowItem(el) && a11y.selectRow) {
          const r = await a11y.selectRow(el.ref, ctx.signal);
          if (!r) {
            throw backgroundRefusal(
              `${t.label} is an item of a list or tree with no AT-SPI table selection: its ${el.actions.join('/') || 'action'} opens it as a double click would, and selecting it with a single click needs the pointer`,
              'ask the person, or work in a private desk (desk: "private"); get_text and ui read the list without selecting anything',
            );
          }
          if (!r.selected) throw new HypruseError('error.unverified', `the row of ${t.label} (row ${r.row}) was selected through ${t.cls}'s AT-SPI table, but the table does not read it as the one selected row`, { hint: 'read the window again (ui) and retry' });
          data.selectedRow = r.row;
        } else if (!el || i < 0) throw backgroundRefusal(`${t.label} ${el ? 'no longer offers an AT-SPI click/press/activate action' : 'is gone'}, so clicking it needs the pointer`);
        else if (!(await a11y.doAction(el.ref, i, ctx.signal))) throw new HypruseError('error.a11y', `${t.cls} did not accept the AT-SPI ${el.actions[i]} action of ${t.label}; nothing else was sent`, { hint: 'read the window again (ui) and retry' });
      } else {
        // the compositor answers once the focus is done: no fixed wait before the click
        await comp.focusWindow(t.window);
        await ctx.invoke('pointer', { action: 'click', x: t.x, y: t.y, button: args.button, double: args.double, allow_auth: args.allow_auth, confirm: args.confirm });
      }
      let closed = closeWatch ? await windowClosed(closeWatch, t.window, scaledMs(READ_BACK_MS, ctx.env), ctx.signal) : false;
      if (t.item && ctx.services.has(Tokens.Accessibility)) {
        let gone = false;
        try {
          const now = await readBack(ctx, t.item);
          gone = !now;
          if (!now) state = '; the control is gone now (its window may have closed)';
          else {
            const bits = [now.checked !== undefined ? (now.checked ? 'checked' : 'unchecked') : '', now.value?.current !== undefined ? `value ${now.value.current}` : '', now.states.includes('focused') ? 'focused' : ''].filter(Boolean);
            if (bits.length) state = `; now ${bits.join(', ')}`;
            data.state = { states: now.states, checked: now.checked ?? null, value: now.value ?? null };
          }
        } catch {
          gone = true; // the app no longer answers for the control: it is being torn down
        }
        // the control went away with its window: the window is closing, so the answer (and a then=
        // observation) waits for the compositor to see it go, however slowly a loaded app gets there
        if (gone && closeWatch && !closed) {
          closed = await windowClosed(closeWatch, t.window, scaledMs(CLOSING_MS, ctx.env), ctx.signal);
          if (closed) state = '; its window closed';
        } else if (closed && gone) state = '; its window closed';
      }
    } finally {
      closeWatch?.close();
    }
    let opened: Opened | null = null;
    if (openWatch) {
      try {
        const menuish = MENU_OPENERS.has(t.role) || (t.item?.states.includes('has-popup') ?? false);
        opened = await openedSince(ctx, openWatch, { waitMs: menuish ? OPEN_WAIT_MS : 0, menus: menuish });
      } finally {
        openWatch.close();
      }
    }
    if (opened) data.opened = opened.data;
    const res = result(`clicked ${t.label} at (${t.x}, ${t.y}) in ${t.cls}${state}`);
    for (const line of opened?.lines ?? []) res.text(line);
    return res.data(data).observe(t.window).build();
  },
});
