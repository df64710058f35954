import { z } from 'zod';
import {
  DesktopModel, HypruseError, NotFoundError, UsageError, WAIT_EVENTS, alreadyHolds, awaitDesktopEvent, defineTool, eventMatches, result, scaledMs, throwIfAborted, toHypruseError,
  type EventSubscription, type ToolContext, type WaitEvent,
} from '@hypruse/core';
import { compositorOf, requireCapability } from './common/desktop.js';
import { elementArgs, readElements, resolveElement, type ElementRead } from './common/elements.js';
import { sleep } from './common/pointer.js';
import type { UiItem } from './common/ui-read.js';

export { WAIT_EVENTS, alreadyHolds, eventMatches, type WaitEvent };

/** Waits on an application's accessibility tree rather than on the compositor. */
const ELEMENT_WAITS = ['element', 'idle'] as const;
const ALL_WAITS = [...WAIT_EVENTS, ...ELEMENT_WAITS] as const;
const ELEMENT_STATES = ['present', 'gone', 'checked', 'unchecked', 'enabled', 'disabled', 'focused'] as const;
type ElementState = (typeof ELEMENT_STATES)[number];

/** The event that ended the wait, flattened (`event` = its type), or the condition that already held. */
const waitOutput = z
  .object({ event: z.enum(ALL_WAITS), already: z.literal(true).optional() })
  .catchall(z.union([z.string(), z.number(), z.boolean(), z.null()]));

export const waitForTool = defineTool({
  name: 'wait_for',
  title: 'Wait for a desktop event',
  effect: 'observe',
  description:
    'Block until something happens instead of sleeping. `element`: an element (id, name, role from ui) reaches `state` (present, gone, checked, unchecked, enabled, disabled, focused) and, with `text`, its name or text contains it. `idle`: the window\'s accessibility tree stays unchanged for quiet_ms. Compositor events: window_open, window_close, workspace, title_change, layer_open, layer_close, urgent, screencast. `match` filters (workspace: exact name; others: case-insensitive text of address, class, title, namespace; window_close matches the class and title the window had; window_open also fires when the matching title of a new window arrives after it opened). Answers already: true when a filtered condition already holds (a matching window is already open or already gone, the workspace is already active, the layer is already open). Timeout is exit 4.',
  input: z
    .object({
      event: z.enum(ALL_WAITS).describe(ALL_WAITS.join(' | ')),
      match: z.string().max(200).default('').describe('Filter: exact workspace name, or text contained in the event (address, class, title, namespace).'),
      timeout_s: z.number().finite().default(10).describe('Seconds, clamped to 1..60.'),
      ...elementArgs,
      state: z.enum(ELEMENT_STATES).default('present').describe('element: the state to wait for.'),
      text: z.string().max(200).default('').describe("element: also wait until the element's name or text contains this."),
      quiet_ms: z.number().int().min(100).max(30000).default(500).describe('idle: how long the tree must stay unchanged.'),
    })
    .strict(),
  output: waitOutput,
  cli: { positional: ['event', 'match'] },
  async handle(args, ctx) {
    if (args.event === 'element' || args.event === 'idle') {
      const timeoutMs = Math.min(60, Math.max(1, args.timeout_s)) * 1000;
      return args.event === 'idle' ? waitIdle(ctx, args.window, args.quiet_ms, timeoutMs) : waitElement(ctx, args, timeoutMs);
    }
    const event = args.event;
    requireCapability(ctx, 'events', 'waiting for events');
    if ((event === 'layer_open' || event === 'layer_close') && !compositorOf(ctx).capabilities.has('layers')) {
      requireCapability(ctx, 'layers', `${event} (layer surfaces)`);
    }
    const timeoutMs = Math.min(60, Math.max(1, args.timeout_s)) * 1000;
    const comp = compositorOf(ctx);
    let sub: EventSubscription;
    try {
      sub = await comp.subscribe();
    } catch (err) {
      const e = toHypruseError(err);
      throw new HypruseError('error.events', `event stream unavailable: ${e.message}`, { cause: err });
    }
    try {
      const desk = await comp.snapshot(ctx.signal);
      const pre = alreadyHolds(event, args.match, desk);
      if (pre) return result(`${event} already holds`).text(JSON.stringify(pre)).data(pre).build();
      // match the window, not the raw event: closes carry only an address, titles may come after the open
      const model = new DesktopModel(desk);
      const hit = await awaitDesktopEvent(sub, model, () => comp.snapshot(ctx.signal), { event, match: args.match, timeoutMs, signal: ctx.signal });
      if (!hit) {
        throwIfAborted(ctx.signal); // a cancelled wait is cancelled, not a timeout
        throw new NotFoundError('not_found.timeout', `timeout: no matching ${args.event} event within ${timeoutMs / 1000}s`, { data: { event: args.event, match: args.match } });
      }
      const { event: _event, ...payload } = hit;
      return result(`${args.event}: ${JSON.stringify(payload)}`).data(hit).build();
    } finally {
      sub.close();
    }
  },
});

/** How often an element wait reads the tree again (scaled by the time policy). */
const POLL_MS = 100;

function holds(item: UiItem | null, state: ElementState, text: string): boolean {
  if (state === 'gone') return item === null;
  if (!item) return false;
  const ok =
    state === 'present' ||
    (state === 'checked' && item.checked === true) ||
    (state === 'unchecked' && item.checked === false) ||
    (state === 'enabled' && item.clickable) ||
    (state === 'disabled' && !item.clickable) ||
    (state === 'focused' && item.focused === true);
  if (!ok || !text) return ok;
  const t = text.toLowerCase();
  return item.name.toLowerCase().includes(t) || (typeof item.value === 'string' && item.value.toLowerCase().includes(t));
}

/** The element now, or null when it is not in the window (a miss or a stale id); other errors end the wait. */
async function current(ctx: ToolContext, args: { id: number; name: string; role: string; index: number; window: string }): Promise<{ item: UiItem | null; read: ElementRead | null }> {
  try {
    // a wait only reads: a window whose position the compositor does not report (niri, tiled) is waited on too
    const e = await resolveElement(ctx, args, { actionableOnly: false, points: false });
    return { item: e.item, read: e.read };
  } catch (err) {
    const e = toHypruseError(err);
    if (e.code === 'not_found.element' || e.code === 'not_found.stale_id') return { item: null, read: null };
    throw err;
  }
}

async function waitElement(
  ctx: ToolContext,
  args: { id: number; name: string; role: string; index: number; window: string; state: ElementState; text: string },
  timeoutMs: number,
) {
  if (!args.id && !args.name.trim() && !args.role.trim()) throw new UsageError('event=element needs the element: id, name or role');
  const end = Date.now() + timeoutMs;
  let first = true;
  for (;;) {
    const { item } = await current(ctx, args);
    if (holds(item, args.state, args.text)) {
      const what = item ? `${item.role} "${item.name}" [${item.id}]` : `the element`;
      const data = { event: 'element' as const, state: args.state, ...(item ? { id: item.id, role: item.role, name: item.name } : {}), ...(first ? { already: true as const } : {}) };
      return result(`${what} is ${args.state}${args.text ? ` with "${args.text}"` : ''}${first ? ' (already)' : ''}`).data(data).build();
    }
    first = false;
    if (Date.now() >= end) {
      throwIfAborted(ctx.signal);
      const now = item ? `; it is ${item.role} "${item.name}"${item.checked !== undefined ? (item.checked ? ' checked' : ' unchecked') : ''}${item.clickable ? '' : ' disabled'}` : '; it is not in the window';
      throw new NotFoundError('not_found.timeout', `timeout: the element did not become ${args.state}${args.text ? ` with "${args.text}"` : ''} within ${timeoutMs / 1000}s${now}`, {
        data: { event: 'element', state: args.state },
      });
    }
    await sleep(scaledMs(POLL_MS, ctx.env), ctx.signal);
  }
}

/** What a read shows, as one string: any change in roles, names, values, states or boxes changes it. */
function signature(r: ElementRead): string {
  return JSON.stringify(r.items.map((i) => [i.role, i.name, i.value ?? null, i.checked ?? null, i.clickable, i.focused ?? false, i.extents]));
}

async function waitIdle(ctx: ToolContext, windowArg: string, quietMs: number, timeoutMs: number) {
  const end = Date.now() + timeoutMs;
  const start = Date.now();
  let last = signature(await readElements(ctx, windowArg, { points: false }));
  let since = Date.now();
  for (;;) {
    await sleep(scaledMs(POLL_MS, ctx.env), ctx.signal);
    const r = await readElements(ctx, windowArg, { points: false });
    const now = signature(r);
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) {
      return result(`${r.window.class} "${r.window.title}" is idle: no change for ${quietMs} ms (after ${Date.now() - start} ms)`)
        .data({ event: 'idle' as const, window: r.window.address, waited_ms: Date.now() - start })
        .build();
    }
    if (Date.now() >= end) {
      throwIfAborted(ctx.signal);
      throw new NotFoundError('not_found.timeout', `timeout: ${r.window.class} kept changing for ${timeoutMs / 1000}s (never quiet for ${quietMs} ms)`, { data: { event: 'idle' } });
    }
  }
}
