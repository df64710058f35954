import { Tokens, backgroundRefusal, type A11yElement, type Desktop, type ToolContext, type Window } from '@hypruse/core';
import { compositorOf, requirePosition } from './desktop.js';

/** What to do about a window whose app does not update its tree while it is not drawn (UiRead.frozen). */
export const FROZEN_HINT = 'ui, get_text and following links work there; ask the person to bring the window into view (wm move_window) or turn background mode off; a compositor that gives the agent an output of its own draws its windows; a Chromium launched in background mode while the person allows backgroundLivePages keeps its pages current (it costs its renderers\' namespace sandbox)';

/** Action names that activate a control (a button, a check box, a link: ATK's and Gecko's 'jump'), in the order tried. */
export const ACTIVATE_ACTIONS = ['click', 'press', 'activate', 'jump'];

/**
 * Activate an element by its first AT-SPI action named in `names` (GTK runs a
 * button's or a check box's action after the call returns), else with a real
 * pointer click at its point, through the full pipeline. `unplaced`: the window has
 * no reported position (its read, see UiRead.positionUnknown): then there is no point
 * to click, and the fallback refuses before anything is sent.
 */
export async function activateElement(
  ctx: ToolContext,
  target: { ref: A11yElement['ref']; x: number; y: number; window: string },
  names: readonly string[],
  guards: { allow_auth: boolean; confirm: boolean },
  unplaced?: { desktop: Desktop; window: Window; what: string },
): Promise<'atspi' | 'pointer'> {
  const a11y = ctx.services.get(Tokens.Accessibility);
  const el = await a11y.refresh(target.ref, ctx.signal);
  const i = el ? actionIndex(el, names) : -1;
  if (i >= 0 && (await a11y.doAction(target.ref, i, ctx.signal))) return 'atspi';
  if (ctx.config.background) {
    throw backgroundRefusal(`it has no AT-SPI ${names.join('/')} action the app accepted, so activating it needs a pointer click`, 'turn background mode off for this control, or ask the person');
  }
  if (unplaced) requirePosition(unplaced.desktop, unplaced.window, `${unplaced.what} (it has no AT-SPI ${names.join('/')} action, and a click needs its point)`);
  await compositorOf(ctx).focusWindow(target.window);
  await ctx.invoke('pointer', { action: 'click', x: target.x, y: target.y, allow_auth: guards.allow_auth, confirm: guards.confirm });
  return 'pointer';
}

/**
 * The action a left single click on `el` stands for, in background mode. An item of a list, table
 * or tree (selectable) offers `activate` as its row's activation (what a double click or Return
 * does: Thunar opens the file), not a single click, which selects it: only click/press count there.
 */
export function singleClickIndex(el: Pick<A11yElement, 'actions' | 'states'>): number {
  // (Gecko's page tabs offer 'switch')
  if (el.states.includes('selectable')) return actionIndex(el, ['click', 'press', 'switch']);
  return actionIndex(el, ACTIVATE_ACTIONS);
}

export function actionIndex(el: Pick<A11yElement, 'actions'>, names: readonly string[]): number {
  for (const n of names) {
    const i = el.actions.findIndex((a) => a.toLowerCase() === n);
    if (i >= 0) return i;
  }
  // Chromium's bridge gives its actions no names over AT-SPI; its first is the element's default
  // action (press a button, check a box, follow a link)
  // (Firefox ESR 153 names every one ";;")
  if (el.actions.length > 0 && el.actions.every((a) => /^[;\s]*$/.test(a))) return 0;
  return -1;
}
