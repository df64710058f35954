import { TRUST_ORDER, Tokens, TrustError, toHypruseError, type Desktop, type Intent, type Rect, type TrustCall, type TrustLayer } from '@hypruse/core';
import { desktopOf, focusedWindow, windowByAddress } from '../desktop-view.js';

/** Calls that passed the seat check, and when: their nested calls are not checked against the same baseline again. */
const seatChecked = new WeakMap<TrustCall, number>();

const REOBSERVE = 'look again (desktop, screenshot or ui) to re-baseline, then act on what you see now';

/** Does this call contend for the seat the person uses: pointer, keyboard, bindings, target-less window changes. */
function contendsForSeat(intent: Intent): boolean {
  if (intent.nested) return false; // the enclosing call was checked, and its own steps move the seat
  if (intent.input === 'pointer' || intent.input === 'keyboard') return true;
  if (intent.global) return true;
  return Boolean(intent.focusedWindow);
}

function sameRect(a: Rect, b: Rect): boolean {
  return a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
}

function rect(r: Rect): string {
  return `${r.width}x${r.height}+${r.x}+${r.y}`;
}

/** Record where the cursor and focus are now (after hypruse acted or looked). */
export async function rebaseline(call: TrustCall): Promise<void> {
  const d = await call.services.get(Tokens.Compositor).snapshot(call.signal);
  call.session.seat = {
    cursor: d.cursor && d.cursor.source === 'compositor' ? { x: d.cursor.x, y: d.cursor.y } : null,
    focus: focusedWindow(d)?.address ?? null,
    at: Date.now(),
  };
}

/**
 * Strict mode. Seat contention: an action refuses when the cursor or the
 * focus moved since hypruse last acted or looked (the person is using the
 * seat). Stale observation: coordinates carry the geometry of the window
 * they were read from; if that window has moved or resized, they point at
 * something else now. Re-baselines after every successful call, observations
 * included, so looking again is how the agent recovers.
 */
export const strictLayer: TrustLayer = {
  name: 'strict',
  order: TRUST_ORDER.strict,
  appliesTo: (call) => call.config.strict,
  async handle(call, next) {
    if (call.kind === 'act') {
      const intent = await call.intent();
      if (intent) await check(call, intent);
    }
    const r = await next();
    try {
      await rebaseline(call);
    } catch (err) {
      // the action happened; without a new baseline the next action's check reads the seat again
      call.session.seat = null;
      call.notes.push(`NOTE: strict mode could not re-read the seat (${toHypruseError(err).message}); look again before the next action`);
    }
    return r;
  },
};

async function check(call: TrustCall, intent: Intent): Promise<void> {
  const seat = call.session.seat;
  // click_ui focuses its window, then clicks through a nested pointer call: the parent was checked against
  // this baseline and moved the seat itself. A later sequence step is checked against the step before it.
  const parentChecked = call.parent ? seatChecked.get(call.parent) : undefined;
  const sameBaseline = parentChecked !== undefined && seat !== null && seat.at <= parentChecked;
  const needSeat = contendsForSeat(intent) && seat !== null && !sameBaseline;
  if (!needSeat && !intent.observed) return;
  let d: Desktop;
  try {
    d = await desktopOf(call);
  } catch (err) {
    throw new TrustError({
      layer: 'strict',
      code: 'refused.seat',
      reason: `cannot read the cursor and focus (${toHypruseError(err).message}), so cannot rule out that the person is using the seat`,
      hint: 'retry in a moment',
    });
  }
  if (needSeat && seat) {
    const focus = focusedWindow(d)?.address ?? null;
    if (focus !== seat.focus) {
      throw new TrustError({
        layer: 'strict',
        code: 'refused.seat',
        reason: `the focus moved from ${seat.focus ?? 'nothing'} to ${focus ?? 'nothing'} since hypruse last looked; the person may be using the desktop`,
        hint: REOBSERVE,
      });
    }
    const c = d.cursor && d.cursor.source === 'compositor' ? d.cursor : null;
    if (seat.cursor && c && (Math.abs(c.x - seat.cursor.x) > 1 || Math.abs(c.y - seat.cursor.y) > 1)) {
      throw new TrustError({
        layer: 'strict',
        code: 'refused.seat',
        reason: `the cursor moved from (${seat.cursor.x}, ${seat.cursor.y}) to (${c.x}, ${c.y}) since hypruse last looked; the person may be using the desktop`,
        hint: REOBSERVE,
      });
    }
    seatChecked.set(call, Date.now());
  }
  if (intent.observed) {
    const { address, geometry } = intent.observed;
    const w = windowByAddress(d, address);
    if (!w) {
      throw new TrustError({ layer: 'strict', code: 'refused.stale', reason: `the window ${address} the coordinates were read from is gone`, hint: REOBSERVE });
    }
    if (w.positionUnknown !== undefined) {
      throw new TrustError({
        layer: 'strict',
        code: 'refused.stale',
        reason: `the compositor reports no position for window ${address} (${w.positionUnknown}), so it cannot be checked that the coordinates still point into it`,
        hint: REOBSERVE,
      });
    }
    if (!sameRect(w.geometry, geometry)) {
      throw new TrustError({
        layer: 'strict',
        code: 'refused.stale',
        reason: `the window ${address} moved or resized since the coordinates were observed (${rect(geometry)} then, ${rect(w.geometry)} now), so they point at something else`,
        hint: REOBSERVE,
      });
    }
  }
}
