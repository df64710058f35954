import { z } from 'zod';
import {
  HypruseError, NotFoundError, Tokens, TrustError, UsageError, defineTool, fact, result, scaledMs,
  type A11yElement, type Accessibility, type ToolContext,
} from '@hypruse/core';
import { allowAuthField, confirmField, thenField } from './common/fields.js';
import { compositorOf } from './common/desktop.js';
import { elementArgs, resolveElement, type ResolvedElement } from './common/elements.js';
import { matchNames } from './common/match.js';
import { activateElement } from './common/activate.js';
import { sleep } from './common/pointer.js';
import { openedSince, openedShape, watchOpened, type Opened } from './common/opened.js';

export const ACT_ACTIONS = ['set_text', 'check', 'uncheck', 'toggle', 'expand', 'collapse', 'select', 'scroll_to', 'focus'] as const;
type ActAction = (typeof ACT_ACTIONS)[number];

/** Actions whose element may be a container (a list or a tab list is no "control"). */
const CONTAINER_ACTIONS: ReadonlySet<ActAction> = new Set(['select', 'scroll_to', 'expand', 'collapse']);

/** Action names that toggle or activate an element, in the order tried. */
const TOGGLE_ACTIONS = ['toggle', 'click', 'press', 'activate'];
const EXPAND_ACTIONS = ['expand or contract', 'expand', 'collapse', 'toggle', 'press', 'click', 'activate'];

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
  const r = await resolveElement(ctx, args, { actionableOnly: !CONTAINER_ACTIONS.has(args.action), purpose: args.action.replace('_', ' ') });
  resolved.set(args, r);
  return r;
}

function a11yOf(ctx: ToolContext): Accessibility {
  if (!ctx.services.has(Tokens.Accessibility)) throw new HypruseError('error.a11y', 'no accessibility backend is installed');
  return ctx.services.get(Tokens.Accessibility);
}

/** Poll the element until `done` holds (true) or VERIFY_MS passed (false); the last state read is returned. */
async function until(ctx: ToolContext, el: A11yElement, done: (now: A11yElement) => boolean): Promise<{ ok: boolean; now: A11yElement | null }> {
  const a11y = a11yOf(ctx);
  const end = Date.now() + scaledMs(VERIFY_MS, ctx.env);
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

/** Activate the element (AT-SPI action, else a pointer click through the full pipeline). */
function activate(ctx: ToolContext, args: Args, t: ResolvedElement, _el: A11yElement, names: readonly string[]): Promise<'atspi' | 'pointer'> {
  return activateElement(ctx, { ref: t.item.ref, x: t.item.x, y: t.item.y, window: t.read.window.address }, names, args);
}

function unverified(what: string, shows: string): never {
  throw new HypruseError('error.unverified', `${what} was sent, but ${shows}`, { hint: 'read the window again (ui) and retry, or act with the pointer' });
}

async function setText(ctx: ToolContext, args: Args, t: ResolvedElement, el: A11yElement): Promise<Outcome> {
  const a11y = a11yOf(ctx);
  const pw = el.password === true;
  let via: Outcome['via'] = 'atspi';
  if (!(a11y.setText && (await a11y.setText(el.ref, args.text, ctx.signal)))) {
    // no EditableText: focus it, select all, type (each through the full pipeline)
    via = 'keyboard';
    await compositorOf(ctx).focusWindow(t.read.window.address);
    await ctx.invoke('pointer', { action: 'click', x: t.item.x, y: t.item.y, allow_auth: args.allow_auth, confirm: args.confirm });
    await ctx.invoke('keyboard', { action: 'key', keys: 'ctrl+a', allow_auth: args.allow_auth });
    if (args.text) await ctx.invoke('keyboard', { action: 'type', text: args.text, allow_auth: args.allow_auth });
    else await ctx.invoke('keyboard', { action: 'key', keys: 'BackSpace', allow_auth: args.allow_auth });
  }
  if (pw) return { text: `filled password field '${t.item.name}' (${[...args.text].length} characters; not read back: password)`, via, verified: false };
  const end = Date.now() + scaledMs(VERIFY_MS, ctx.env);
  let now: string | null = null;
  for (;;) {
    now = a11y.text ? await a11y.text(el.ref, args.text.length + 100, ctx.signal) : ((await a11y.refresh(el.ref, ctx.signal))?.value?.text ?? null);
    if (now === args.text || Date.now() >= end) break;
    await sleep(20, ctx.signal);
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
  const { ok, now } = await until(ctx, el, (n) => n.checked === want);
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
  const { ok, now } = await until(ctx, el, (n) => isOpen(n) === want);
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
  if (!a11y.selectOption || !(await a11y.selectOption(el.ref, pick.index, ctx.signal))) unverified(`select '${pick.name}' in ${label}`, 'the application refused the selection');
  const end = Date.now() + scaledMs(VERIFY_MS, ctx.env);
  let now = opts;
  for (;;) {
    now = (await a11y.options!(el.ref, ctx.signal)) ?? [];
    if (now[pick.index]?.selected || Date.now() >= end) break;
    await sleep(20, ctx.signal);
  }
  if (!now[pick.index]?.selected) unverified(`select '${pick.name}' in ${label}`, `the selected option is ${now.filter((o) => o.selected).map((o) => `'${o.name}'`).join(', ') || 'none'}`);
  return { text: `selected '${pick.name}' in ${label} (verified: now selected)`, via: 'atspi', verified: true, state: { selected: pick.name } };
}

async function focus(ctx: ToolContext, args: Args, t: ResolvedElement, el: A11yElement): Promise<Outcome> {
  const a11y = a11yOf(ctx);
  const label = `${t.item.role} '${t.item.name}'`;
  await compositorOf(ctx).focusWindow(t.read.window.address);
  if (el.focused) return { text: `${label} already has the focus; nothing sent`, via: 'none', verified: true, state: { focused: true } };
  if (!a11y.focus || !(await a11y.focus(el.ref, ctx.signal))) throw new UsageError(`${label} cannot take the keyboard focus`, { hint: 'click_ui it instead' });
  let { ok } = await until(ctx, el, (n) => n.focused === true);
  if (!ok) {
    // GTK 3 reports a focused widget only in an active window, and a window is active only while the
    // seat has a keyboard: a lone Shift (no effect in an app) through the keyboard tool attaches
    // hypruse's, then the focus is asked for again
    await ctx.invoke('keyboard', { action: 'key', keys: 'shift', window: t.read.window.address, allow_auth: args.allow_auth });
    if (await a11y.focus(el.ref, ctx.signal)) ({ ok } = await until(ctx, el, (n) => n.focused === true));
  }
  if (!ok) unverified(`focus on ${label}`, 'it does not report the focus');
  return { text: `focused ${label} (verified)`, via: 'atspi', verified: true, state: { focused: true } };
}

async function scrollTo(ctx: ToolContext, t: ResolvedElement, el: A11yElement): Promise<Outcome> {
  const a11y = a11yOf(ctx);
  const label = `${t.item.role} '${t.item.name}'`;
  const g = t.read.window.geometry;
  const inView = (n: A11yElement) => {
    const e = n.extents;
    return n.states.includes('showing') && e.width > 0 && e.x >= 0 && e.y >= 0 && e.x + e.width <= g.width && e.y + e.height <= g.height;
  };
  if (inView(el)) return { text: `${label} is already in view; nothing sent`, via: 'none', verified: true };
  let sent = a11y.scrollTo ? await a11y.scrollTo(el.ref, ctx.signal) : false;
  // toolkits without ScrollTo (GTK 3) scroll a focused child into view
  if (!sent && a11y.focus) sent = await a11y.focus(el.ref, ctx.signal);
  if (!sent) throw new UsageError(`${label} cannot be scrolled to over accessibility`, { hint: 'scroll with the pointer tool over its list' });
  const { ok } = await until(ctx, el, inView);
  if (!ok) unverified(`scroll_to ${label}`, 'it is still outside the window');
  return { text: `scrolled ${label} into view (verified)`, via: 'atspi', verified: true };
}

export const actTool = defineTool({
  name: 'act',
  title: 'Act on an element',
  effect: 'destructive',
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
