import { z } from 'zod';
import {
  HypruseError, NotFoundError, Tokens, TrustError, UsageError, defineTool, fact, result, scaledMs,
  type A11yElement, type Accessibility, type Rect, type ToolContext, backgroundRefusal,
} from '@hypruse/core';
import { allowAuthField, confirmField, thenField } from './common/fields.js';
import { compositorOf, requirePosition } from './common/desktop.js';
import { elementArgs, resolveElement, type ResolvedElement } from './common/elements.js';
import { matchNames } from './common/match.js';
import { FROZEN_HINT, activateElement } from './common/activate.js';
import { sleep } from './common/pointer.js';
import { openedSince, openedShape, watchOpened, type Opened } from './common/opened.js';

export const ACT_ACTIONS = ['set_text', 'check', 'uncheck', 'toggle', 'expand', 'collapse', 'select', 'scroll_to', 'focus'] as const;
type ActAction = (typeof ACT_ACTIONS)[number];

/** Actions whose element may be a container (a list or a tab list is no "control"). */
const CONTAINER_ACTIONS: ReadonlySet<ActAction> = new Set(['select', 'scroll_to', 'expand', 'collapse']);

/** Action names that toggle or activate an element, in the order tried (Chromium names a check box's by what it does next). */
// Gecko names a radio button's action 'select'
const TOGGLE_ACTIONS = ['toggle', 'click', 'press', 'activate', 'check', 'uncheck', 'select'];

/** The roles each action is for: when a name matches several elements, these win (a label shares its field's name). */
const ACTION_ROLES: Partial<Record<ActAction, RegExp>> = {
  set_text: /^(entry|text|password text|spin button|editbar|terminal|paragraph|section|document text|combo box)$/,
  check: /^(check box|radio button|toggle button|check menu item|radio menu item|switch)$/,
  uncheck: /^(check box|toggle button|check menu item|switch)$/,
  toggle: /^(check box|radio button|toggle button|check menu item|radio menu item|switch)$/,
  select: /^(combo box|list|list box|page tab list|table|tree table|tree|menu|radio button)$/,
};
const EXPAND_ACTIONS = ['expand or contract', 'expand', 'collapse', 'toggle', 'press', 'click', 'activate'];

/** Roles of a window's own accessible (whose `active` state says the window has the keyboard focus). */
const TOP_ROLES: ReadonlySet<string> = new Set(['frame', 'dialog', 'window', 'alert', 'file chooser']);

/** Origins further out than this are no place on screen (GTK 3 gives scrolled-out objects INT_MIN). */
const ABSURD_ORIGIN = 20000;

/** How long the effect of an action may take to show over accessibility (scaled by the time policy). */
const VERIFY_MS = 1500;

const actOutput = z.strictObject({
  action: z.enum(ACT_ACTIONS),
  element: z.strictObject({ id: z.number(), role: fact(z.string()), name: z.string(), x: z.number(), y: z.number(), window: fact(z.string()) }),
  /** What was sent: an AT-SPI call, pointer/keyboard input, or nothing (already in that state). */
  via: z.enum(['atspi', 'pointer', 'keyboard', 'none']),
  verified: z.boolean(),
  state: z
    .strictObject({
      checked: z.boolean().optional(),
      expanded: z.boolean().optional(),
      focused: z.boolean().optional(),
      text: z.string().optional(),
      selected: z.string().optional(),
    })
    .optional(),
  opened: openedShape.optional(),
});

const input = z
  .object({
    action: z.enum(ACT_ACTIONS).describe('set_text | check | uncheck | toggle | expand | collapse | select | scroll_to | focus'),
    ...elementArgs,
    text: z.string().max(20000).default('').describe('set_text: the text the field must hold afterwards (replaces what it holds).'),
    option: fact(z.string().max(200)).default('').describe('select: the label of the option (combo box item, list row, tab).'),
    then: thenField,
    allow_auth: allowAuthField,
    confirm: confirmField,
  })
  .strict();

type Args = z.output<typeof input>;

function check(args: Args): void {
  if (args.action === 'set_text') {
    if (args.option) throw new UsageError('option is for action=select; set_text takes text');
  } else if (args.text) throw new UsageError(`text is for action=set_text, not ${args.action}`);
  if (args.action === 'select' && !args.option) throw new UsageError('select needs option: the label of the item to select');
  if (args.action !== 'select' && args.option) throw new UsageError(`option is for action=select, not ${args.action}`);
}

/** The resolved element, keyed by the call's parsed arguments (intent() and handle() see the same object). */
const resolved = new WeakMap<object, ResolvedElement>();

async function target(args: Args, ctx: ToolContext): Promise<ResolvedElement> {
  const hit = resolved.get(args);
  if (hit) return hit;
  // scroll_to also finds what is scrolled out of view (GTK 3 leaves it out of what ui lists)
  // points: false: a window without a reported position (niri: tiled) is read too; every action is
  // tried over AT-SPI first, and a fallback that needs the element's point refuses there (unplaced)
  const roles = ACTION_ROLES[args.action];
  const r = await resolveElement(ctx, args, {
    actionableOnly: !CONTAINER_ACTIONS.has(args.action),
    purpose: args.action.replace('_', ' '),
    offscreen: args.action === 'scroll_to',
    points: false,
    prefer: roles ? (i) => roles.test(i.role) : undefined,
  });
  resolved.set(args, r);
  return r;
}

function a11yOf(ctx: ToolContext): Accessibility {
  if (!ctx.services.has(Tokens.Accessibility)) throw new HypruseError('error.a11y', 'no accessibility backend is installed');
  return ctx.services.get(Tokens.Accessibility);
}

/** Poll the element until `done` holds (true) or VERIFY_MS passed (false); the last state read is returned. */
async function until(ctx: ToolContext, el: A11yElement, done: (now: A11yElement) => boolean, ms = VERIFY_MS): Promise<{ ok: boolean; now: A11yElement | null }> {
  const a11y = a11yOf(ctx);
  const end = Date.now() + scaledMs(ms, ctx.env);
  let now = await a11y.refresh(el.ref, ctx.signal);
  while (now && !done(now) && Date.now() < end) {
    await sleep(20, ctx.signal);
    now = await a11y.refresh(el.ref, ctx.signal);
  }
  return { ok: now !== null && done(now), now };
}

interface Outcome {
  text: string;
  via: 'atspi' | 'pointer' | 'keyboard' | 'none';
  verified: boolean;
  state?: Record<string, unknown>;
}

/** Activate the element (AT-SPI action, else a pointer click through the full pipeline; refused without a window position). */
function activate(ctx: ToolContext, args: Args, t: ResolvedElement, _el: A11yElement, names: readonly string[]): Promise<'atspi' | 'pointer'> {
  return activateElement(ctx, { ref: t.item.ref, x: t.item.x, y: t.item.y, window: t.read.window.address }, names, args, unplaced(t, `${args.action} of ${t.item.role} '${t.item.name}'`));
}

/** For a window without a reported position: what a pointer fallback must refuse with (see activateElement). */
function unplaced(t: ResolvedElement, what: string) {
  return t.read.positionUnknown !== undefined ? { desktop: t.read.desktop, window: t.read.window, what } : undefined;
}

function unverified(what: string, shows: string): never {
  throw new HypruseError('error.unverified', `${what} was sent, but ${shows}`, { hint: 'read the window again (ui) and retry, or act with the pointer' });
}

/** How long the effect of an action gets to show in the element's tree (longer where the read says so: UiRead.settleMs). */
function verifyMs(t: ResolvedElement): number {
  return Math.max(VERIFY_MS, t.read.settleMs ?? 0);
}

/** How long an accepted EditableText call gets to show before the field is typed into instead (Firefox accepts it and ignores it). */
const EDITABLE_TEXT_MS = 400;

async function setText(ctx: ToolContext, args: Args, t: ResolvedElement, el: A11yElement): Promise<Outcome> {
  const a11y = a11yOf(ctx);
  const pw = el.password === true;
  let via: Outcome['via'] = 'atspi';
  const readBack = () => (a11y.text ? a11y.text(el.ref, args.text.length + 100, ctx.signal) : a11y.refresh(el.ref, ctx.signal).then((n) => n?.value?.text ?? null));
  const holds = async (ms: number): Promise<string | null> => {
    const end = Date.now() + scaledMs(ms, ctx.env);
    let now: string | null = null;
    for (;;) {
      now = await readBack();
      if (now === args.text || Date.now() >= end) return now;
      await sleep(20, ctx.signal);
    }
  };
  let sent = false;
  let retype: (() => Promise<void>) | undefined;
  const typeIn = async (why: string) => {
    // focus it, select all, type (each through the full pipeline)
    if (ctx.config.background) throw backgroundRefusal(`${t.item.role} '${t.item.name}' has no AT-SPI EditableText the app accepted (${why}), so setting its text needs the keyboard`, 'ask the person to fill it, or turn background mode off for this field');
    const u = unplaced(t, `set_text of ${t.item.role} '${t.item.name}' (${why}, and clicking into it needs its point)`);
    if (u) requirePosition(u.desktop, u.window, u.what);
    via = 'keyboard';
    await compositorOf(ctx).focusWindow(t.read.window.address);
    await ctx.invoke('pointer', { action: 'click', x: t.item.x, y: t.item.y, allow_auth: args.allow_auth, confirm: args.confirm });
    retype = async () => {
      await ctx.invoke('keyboard', { action: 'key', keys: 'ctrl+a', allow_auth: args.allow_auth });
      if (args.text) await ctx.invoke('keyboard', { action: 'type', text: args.text, allow_auth: args.allow_auth });
      else await ctx.invoke('keyboard', { action: 'key', keys: 'BackSpace', allow_auth: args.allow_auth });
    };
    // an EditableText call the app took late (Chromium right after a page load) may have landed meanwhile
    if (sent && (await readBack()) === args.text) return;
    await retype();
  };
  // a control that takes no text (a button, a link, a read-only field): nothing is sent to it
  if (el.states.includes('read-only') || (!el.states.includes('editable') && !ACTION_ROLES.set_text!.test(t.item.role))) {
    throw new UsageError(`${t.item.role} '${t.item.name}' is not editable (${el.states.includes('read-only') ? 'it is read-only' : 'it takes no text'}); nothing was sent`, {
      hint: 'set_text fills text fields (entries, text areas, editable regions): name one of those (ui lists them as entry, text, spin, password); use click_ui to press a button or follow a link',
    });
  }
  // an app whose fields take no EditableText (UiRead.noEditableText) is not sent the call
  if (t.read.noEditableText) await typeIn(t.read.noEditableText);
  else {
    sent = Boolean(a11y.setText && (await a11y.setText(el.ref, args.text, ctx.signal)));
    if (!sent) await typeIn('it has no AT-SPI EditableText');
  }
  if (pw) return { text: `filled password field '${t.item.name}' (${[...args.text].length} characters; not read back: password)`, via, verified: false };
  let now = await holds(sent ? EDITABLE_TEXT_MS : VERIFY_MS);
  if (now !== args.text && sent) {
    // the app took the EditableText call and left the field as it was (Firefox's HTML inputs)
    await typeIn('it ignored the AT-SPI EditableText call');
    now = await holds(VERIFY_MS);
    if (now !== args.text && retype) {
      // the call landed between the select-all and the typing (the field holds both): select all and type once more
      await retype();
      now = await holds(VERIFY_MS);
    }
  }
  if (now !== args.text) unverified(`set_text on ${t.item.role} '${t.item.name}'`, `it holds ${JSON.stringify(now ?? '(unreadable)')}`);
  return { text: `set ${t.item.role} '${t.item.name}' to ${JSON.stringify(args.text.length > 80 ? `${args.text.slice(0, 80)}…` : args.text)} (verified: read back)`, via, verified: true, state: { text: args.text } };
}

async function setChecked(ctx: ToolContext, args: Args, t: ResolvedElement, el: A11yElement): Promise<Outcome> {
  if (el.checked === undefined) throw new UsageError(`${t.item.role} '${t.item.name}' has no checked state (it is not a check box, radio or toggle button)`, { hint: 'use click_ui to press it' });
  const want = args.action === 'check' ? true : args.action === 'uncheck' ? false : !el.checked;
  const label = `${t.item.role} '${t.item.name}'`;
  if (el.checked === want) return { text: `${label} is already ${want ? 'checked' : 'unchecked'}; nothing sent`, via: 'none', verified: true, state: { checked: want } };
  const via = await activate(ctx, args, t, el, TOGGLE_ACTIONS);
  const { ok, now } = await until(ctx, el, (n) => n.checked === want, verifyMs(t));
  if (!ok) unverified(`${args.action} of ${label}`, now ? `it is still ${now.checked ? 'checked' : 'unchecked'}` : 'the element is gone');
  return { text: `${want ? 'checked' : 'unchecked'} ${label} (verified: now ${want ? 'checked' : 'unchecked'})`, via, verified: true, state: { checked: want } };
}

async function setExpanded(ctx: ToolContext, args: Args, t: ResolvedElement, el: A11yElement): Promise<Outcome> {
  const label = `${t.item.role} '${t.item.name}'`;
  if (!el.states.includes('expandable') && !el.states.includes('expanded') && !el.states.includes('collapsed')) {
    throw new UsageError(`${label} cannot expand or collapse (it has no expandable state)`);
  }
  const want = args.action === 'expand';
  const isOpen = (n: A11yElement) => n.states.includes('expanded');
  if (isOpen(el) === want) return { text: `${label} is already ${want ? 'expanded' : 'collapsed'}; nothing sent`, via: 'none', verified: true, state: { expanded: want } };
  const via = await activate(ctx, args, t, el, EXPAND_ACTIONS);
  const { ok, now } = await until(ctx, el, (n) => isOpen(n) === want, verifyMs(t));
  if (!ok) unverified(`${args.action} of ${label}`, now ? `it is still ${isOpen(now) ? 'expanded' : 'collapsed'}` : 'the element is gone');
  return { text: `${want ? 'expanded' : 'collapsed'} ${label} (verified)`, via, verified: true, state: { expanded: want } };
}

async function select(ctx: ToolContext, t: ResolvedElement, el: A11yElement, option: string): Promise<Outcome> {
  const a11y = a11yOf(ctx);
  const label = `${t.item.role}${t.item.name ? ` '${t.item.name}'` : ''}`;
  const opts = a11y.options ? await a11y.options(el.ref, ctx.signal) : null;
  if (!opts) throw new UsageError(`${label} is not a selection container (combo box, list or tab list)`, { hint: 'name the combo box, list or tab list itself, or click_ui the item' });
  const { pool } = matchNames(opts, option);
  if (pool.length !== 1) {
    const names = opts.map((o) => `"${o.name}"`).join(', ');
    if (!pool.length) throw new NotFoundError('not_found.option', `${label} has no option '${option}'; its options are ${names || '(none)'}`);
    throw new NotFoundError('not_found.ambiguous', `'${option}' matches ${pool.length} options of ${label} (${pool.map((o) => `"${o.name}"`).join(', ')}); give the whole label`);
  }
  const pick = pool[0];
  if (pick.selected) return { text: `'${pick.name}' is already selected in ${label}; nothing sent`, via: 'none', verified: true, state: { selected: pick.name } };
  const selectedWithin = async (ms: number) => {
    const end = Date.now() + scaledMs(ms, ctx.env);
    let now = opts;
    for (;;) {
      now = (await a11y.options!(el.ref, ctx.signal)) ?? [];
      if (now[pick.index]?.selected || Date.now() >= end) return now;
      await sleep(20, ctx.signal);
    }
  };
  let via: Outcome['via'] = 'atspi';
  const sent = Boolean(a11y.selectOption && (await a11y.selectOption(el.ref, pick.index, ctx.signal)));
  // a combo box that ignores the call is soon given the keyboard; in background mode there is none to give
  let now = sent ? await selectedWithin(t.item.role === 'combo box' && !ctx.config.background ? EDITABLE_TEXT_MS : verifyMs(t)) : opts;
  if (!now[pick.index]?.selected && t.item.role === 'combo box') {
    // a closed drop-down that ignored the call (Firefox's HTML <select>): give it the focus and type
    // the option's label, which selects it without opening the list (nothing is pressed after it)
    if (ctx.config.background) throw backgroundRefusal(`${label} did not take the AT-SPI selection, so selecting '${pick.name}' needs the keyboard`);
    via = 'keyboard';
    await compositorOf(ctx).focusWindow(t.read.window.address);
    if (!(a11y.focus && (await a11y.focus(el.ref, ctx.signal)))) {
      const u = unplaced(t, `select in ${label} (it took no AT-SPI selection, and focusing it needs its point)`);
      if (u) requirePosition(u.desktop, u.window, u.what);
      await ctx.invoke('pointer', { action: 'click', x: t.item.x, y: t.item.y });
      await ctx.invoke('keyboard', { action: 'key', keys: 'Escape' });
    }
    await ctx.invoke('keyboard', { action: 'type', text: pick.name });
    now = await selectedWithin(verifyMs(t));
  } else if (!sent) unverified(`select '${pick.name}' in ${label}`, 'the application refused the selection');
  if (!now[pick.index]?.selected) unverified(`select '${pick.name}' in ${label}`, `the selected option is ${now.filter((o) => o.selected).map((o) => `'${o.name}'`).join(', ') || 'none'}`);
  return { text: `selected '${pick.name}' in ${label} (verified: now selected)`, via, verified: true, state: { selected: pick.name } };
}

async function focus(ctx: ToolContext, args: Args, t: ResolvedElement, el: A11yElement): Promise<Outcome> {
  const a11y = a11yOf(ctx);
  const label = `${t.item.role} '${t.item.name}'`;
  // the compositor's focus first: a toolkit reports a focused widget only in its active window
  await compositorOf(ctx).focusWindow(t.read.window.address);
  if (el.focused) return { text: `${label} already has the focus; nothing sent`, via: 'none', verified: true, state: { focused: true } };
  if (!a11y.focus || !(await a11y.focus(el.ref, ctx.signal))) throw new UsageError(`${label} cannot take the keyboard focus`, { hint: 'click_ui it instead' });
  const sent = ['AT-SPI GrabFocus'];
  let { ok } = await until(ctx, el, (n) => n.focused === true);
  const frame = t.read.items.find((i) => TOP_ROLES.has(i.role));
  const active = async () => (frame ? ((await a11y.refresh(frame.ref, ctx.signal))?.states.includes('active') ?? false) : false);
  if (!ok && !(await active())) {
    // a window is active only while the seat has a keyboard: a lone Shift (no effect in an app)
    // through the keyboard tool attaches hypruse's, then the focus is asked for again
    await ctx.invoke('keyboard', { action: 'key', keys: 'shift', window: t.read.window.address, allow_auth: args.allow_auth });
    sent.push('a lone Shift (so the seat has a keyboard and the window turns active; it stays active while that keyboard stays, which a CLI verb takes along when it exits)');
    if (await a11y.focus(el.ref, ctx.signal)) ({ ok } = await until(ctx, el, (n) => n.focused === true));
  }
  if (!ok && (await active())) {
    // GTK 3's accessibility bridge keeps its own record of the focused widget, which a notebook page
    // switch leaves stale: the widget keeps the real focus (GrabFocus changes nothing, no focus-in)
    // but is no longer reported focused. A focus-in brings the record back: through a neighbour and back.
    const other = t.read.items.find(
      (i) => i !== t.item && !i.offscreen && i.states.includes('focusable') && i.states.includes('sensitive') && !(i.ref.bus === el.ref.bus && i.ref.path === el.ref.path),
    );
    if (other && (await a11y.focus(other.ref, ctx.signal))) {
      sent.push(`GrabFocus on ${other.role} '${other.name}' and back (a focus-in renews the toolkit's focus record)`);
      if (await a11y.focus(el.ref, ctx.signal)) ({ ok } = await until(ctx, el, (n) => n.focused === true));
    }
  }
  if (!ok) unverified(`focus on ${label} (${sent.join(', then ')})`, `it does not report the focus${(await active()) ? '' : ', and its window is not active (the compositor gave it no keyboard focus)'}`);
  return {
    text: `focused ${label} (verified: it reports the focus${sent.length > 1 ? `; it took ${sent.slice(1).join(', then ')}` : ''})`,
    via: 'atspi',
    verified: true,
    state: { focused: true },
  };
}

/** Whether a box is wholly inside an area (along an axis where it is larger than the area, covering it). */
function within(e: Rect, area: Rect): boolean {
  const fits = (a0: number, len: number, c0: number, clen: number) => (len <= clen ? a0 >= c0 && a0 + len <= c0 + clen : a0 <= c0 && a0 + len >= c0 + clen);
  return fits(e.x, e.width, area.x, area.width) && fits(e.y, e.height, area.y, area.height);
}

function intersect(a: Rect, b: Rect): Rect {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  return { x, y, width: Math.max(0, Math.min(a.x + a.width, b.x + b.width) - x), height: Math.max(0, Math.min(a.y + a.height, b.y + b.height) - y) };
}

async function scrollTo(ctx: ToolContext, t: ResolvedElement, el: A11yElement): Promise<Outcome> {
  const a11y = a11yOf(ctx);
  const label = `${t.item.role} '${t.item.name}'`;
  const g = t.read.window.geometry;
  const win: Rect = { x: 0, y: 0, width: g.width, height: g.height };
  // the part of the window the element can be seen in: its scrolling ancestors' boxes (viewport,
  // scroll pane, list), not the window: a row the list clips is not in view even inside the window
  const areaOf = async (n: A11yElement): Promise<Rect> => {
    const clip = a11y.visibleArea ? await a11y.visibleArea(n.ref, ctx.signal) : null;
    return clip ? intersect(clip, win) : win;
  };
  const usable = (e: Rect) => e.width > 0 && e.height > 0 && Math.abs(e.x) <= ABSURD_ORIGIN && Math.abs(e.y) <= ABSURD_ORIGIN;
  const inView = async (n: A11yElement) => usable(n.extents) && within(n.extents, await areaOf(n));
  const where = (n: A11yElement, area: Rect) =>
    `${n.extents.width}x${n.extents.height} at (${n.extents.x},${n.extents.y}) inside the ${area.width}x${area.height} area shown at (${area.x},${area.y})`;
  if (await inView(el)) {
    return { text: `${label} is already wholly in view (${where(el, await areaOf(el))}, window-relative); nothing sent`, via: 'none', verified: true };
  }
  if (!a11y.scrollTo) throw new UsageError(`${label} cannot be scrolled to over accessibility (the backend has no scrolling)`, { hint: 'scroll with the pointer tool over its list' });
  const sent: Array<'scroll' | 'focus'> = [];
  let now: A11yElement | null = el;
  // ScrollTo where the toolkit implements it; else (GTK 3 answers false) the keyboard focus on the
  // element or its row, which makes the list scroll it wholly into view
  for (const how of ['scroll', 'focus'] as const) {
    const did = await a11y.scrollTo(el.ref, how, ctx.signal);
    if (!did) continue;
    sent.push(did);
    const end = Date.now() + scaledMs(VERIFY_MS, ctx.env);
    now = await a11y.refresh(el.ref, ctx.signal);
    let ok = now !== null && (await inView(now));
    while (now && !ok && Date.now() < end) {
      await sleep(20, ctx.signal);
      now = await a11y.refresh(el.ref, ctx.signal);
      ok = now !== null && (await inView(now));
    }
    if (ok && now) {
      const by = did === 'scroll' ? 'AT-SPI ScrollTo' : 'the keyboard focus on it or its row (the focus moved there)';
      return { text: `scrolled ${label} into view by ${by} (verified: ${where(now, await areaOf(now))}, window-relative)`, via: 'atspi', verified: true };
    }
  }
  if (!sent.length) throw new UsageError(`${label} cannot be scrolled to over accessibility (no ScrollTo, and neither it nor its row takes the focus)`, { hint: 'scroll with the pointer tool over its list' });
  unverified(`scroll_to ${label} (${sent.join(', then ')})`, now ? `it is not wholly in view: ${usable(now.extents) ? where(now, await areaOf(now)) : 'it has no place on screen (still scrolled out)'}` : 'the element is gone');
}

export const actTool = defineTool({
  name: 'act',
  title: 'Act on an element',
  effect: 'destructive',
  background: { mode: 'a11y', note: 'set_text (AT-SPI EditableText), check/uncheck/toggle and expand/collapse (AT-SPI actions), select (Selection) and scroll_to work without focus; focus is refused, and an element whose app refuses the AT-SPI way is refused rather than reached with the pointer or keys' },
  description:
    'Act on one element found by name/role (as ui lists them) and verify the effect over accessibility: set_text (replace a field\'s text, read back; password fields only when a11y.setPasswords is on), check/uncheck (nothing sent when already so), toggle, expand/collapse, select (an option by label in a combo box, list or tab list), scroll_to, focus. Uses AT-SPI actions where the app has them, else the pointer/keyboard. Reports menus and dialogs the action opened.',
  input,
  output: actOutput,
  cli: { positional: ['action', 'name'], examples: ['hypruse act check "Dark mode" --role "check box"', 'hypruse act set_text "" --role entry --index 0 --text "Ada"', 'hypruse act select "" --role "page tab list" --option "page 2"'] },
  async intent(args, ctx) {
    check(args);
    const t = await target(args, ctx);
    const i = t.item;
    if (args.action === 'set_text' && i.password && !ctx.config.a11y.setPasswords) {
      throw new TrustError({
        layer: 'act',
        code: 'refused.password',
        reason: `${i.role} '${i.name}' is a password field; act does not fill password fields unless the config allows it`,
        hint: 'ask the person to type it, or set a11y.setPasswords: true in hypruse.config',
      });
    }
    const what = `${args.action.replace('_', ' ')} ${i.role} '${i.name}'${args.option ? ` to '${args.option}'` : ''}`;
    if (ctx.config.background) {
      // accessibility alone: editable text, actions, selection; a fallback that needs the seat refuses in handle, before sending
      if (args.action === 'focus') throw backgroundRefusal(`act focus on ${i.role} '${i.name}' would change the keyboard focus and the active window`, 'act set_text fills a field without focusing it');
      if (t.read.frozen) throw backgroundRefusal(`${what}: ${t.read.frozen}`, FROZEN_HINT);
      return {
        summary: `${what} in ${t.read.window.class} over AT-SPI`,
        input: 'none',
        seatless: true,
        windows: [t.read.window.address],
        control: { role: i.role, name: args.option || i.name },
        ...(args.action === 'set_text' && !i.password ? { text: args.text } : {}),
      };
    }
    if (t.read.positionUnknown !== undefined) {
      // No point on screen (niri: a tiled window): only AT-SPI can reach the element, and every guard
      // decides by the window, as for keys typed into it, the strictest window-only check
      // (confinement and the per-app tier by the named window, the lock, an authentication prompt
      // holding the keyboard); a fallback that needs a point refuses before sending (unplaced).
      return {
        summary: `${what} in ${t.read.window.class} over AT-SPI (the window has no reported position: no pointer fallback)`,
        input: 'keyboard',
        windows: [t.read.window.address],
        control: { role: i.role, name: args.option || i.name },
        ...(args.action === 'set_text' && !i.password ? { text: args.text } : {}),
      };
    }
    if (args.action === 'set_text') {
      return { summary: `${what} in ${t.read.window.class}`, input: 'keyboard', windows: [t.read.window.address], control: { role: i.role, name: i.name }, ...(i.password ? {} : { text: args.text }) };
    }
    return { summary: `${what} at (${i.x}, ${i.y}) in ${t.read.window.class}`, input: 'pointer', windows: [t.read.window.address], points: [{ x: i.x, y: i.y }], control: { role: i.role, name: args.option || i.name } };
  },
  async handle(args, ctx) {
    check(args);
    const t = await target(args, ctx);
    const el = await a11yOf(ctx).refresh(t.item.ref, ctx.signal);
    if (!el) throw new NotFoundError('not_found.element', `${t.item.role} '${t.item.name}' is gone from ${t.read.window.class}`, { hint: 'read the window again (ui)' });
    if (!el.states.includes('sensitive') && !el.states.includes('enabled') && args.action !== 'scroll_to') {
      throw new UsageError(`${t.item.role} '${t.item.name}' is disabled (insensitive): nothing sent`, { hint: 'pick another candidate (index) or enable it first' });
    }
    const watch = await watchOpened(ctx, t.read.window.address);
    let out: Outcome;
    let opened: Opened | null;
    try {
      switch (args.action) {
        case 'set_text': out = await setText(ctx, args, t, el); break;
        case 'check': case 'uncheck': case 'toggle': out = await setChecked(ctx, args, t, el); break;
        case 'expand': case 'collapse': out = await setExpanded(ctx, args, t, el); break;
        case 'select': out = await select(ctx, t, el, args.option); break;
        case 'focus': out = await focus(ctx, args, t, el); break;
        case 'scroll_to': out = await scrollTo(ctx, t, el); break;
      }
      opened = out.via === 'none' ? null : await openedSince(ctx, watch, { menus: args.action === 'expand' });
    } finally {
      watch.close();
    }
    const res = result(out.text);
    if (opened) for (const line of opened.lines) res.text(line);
    return res
      .data({
        action: args.action,
        element: { id: t.id, role: t.item.role, name: t.item.name, x: t.item.x, y: t.item.y, window: t.read.window.address },
        via: out.via,
        verified: out.verified,
        ...(out.state ? { state: out.state } : {}),
        ...(opened ? { opened: opened.data } : {}),
      })
      .observe(t.read.window.address)
      .build();
  },
});
