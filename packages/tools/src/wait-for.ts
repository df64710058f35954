import { z } from 'zod';
import {
  DesktopModel, HypruseError, NotFoundError, UsageError, WAIT_EVENTS, alreadyHolds, backgroundRefusal, awaitDesktopEvent, defineTool, eventMatches, result, scaledMs, throwIfAborted, toHypruseError,
  type EventSubscription, type ToolContext, type ToolResult, type WaitEvent,
} from '@hypruse/core';
import { compositorOf, requireCapability } from './common/desktop.js';
import { elementArgs, pageState, readElements, resolveElement, type ElementRead } from './common/elements.js';
import { sleep } from './common/pointer.js';
import { FROZEN_HINT } from './common/activate.js';
import type { UiItem } from './common/ui-read.js';

export { WAIT_EVENTS, alreadyHolds, eventMatches, type WaitEvent };

/** The longest wait (a build, a download): 30 minutes. */
export const MAX_WAIT_S = 1800;
/**
 * How often a wait reports what it awaits and what it saw (MCP progress, stderr in the CLI). Real time,
 * not scaled: hosts count their idle timeouts in real time, and want word at least every 10 s.
 */
export const PROGRESS_MS = 5000;

/** Reports the wait every PROGRESS_MS until stopped. */
function heartbeat(ctx: ToolContext, what: string, timeoutMs: number, seen: () => string): () => void {
  const start = Date.now();
  const t = setInterval(() => {
    ctx.progress(`waiting for ${what}: ${Math.round((Date.now() - start) / 1000)} s of ${Math.round(timeoutMs / 1000)} s; ${seen()}`);
  }, PROGRESS_MS);
  t.unref?.();
  return () => clearInterval(t);
}

/**
 * A wait that ran out of time: a result saying what was awaited and what was seen instead (with the
 * screen as it was, when asked), not an error that hosts would pass on as one line. The CLI exits 4.
 */
async function timedOut(ctx: ToolContext, args: { event: string; window: string; screenshot: boolean }, headline: string, data: Record<string, string | number | boolean | null>): Promise<ToolResult> {
  throwIfAborted(ctx.signal); // a cancelled wait is cancelled, not a timeout
  const out = result(headline).data({ event: args.event, timed_out: true, ...data }).build();
  out.exit = 4;
  if (args.screenshot) {
    try {
      const shot = await ctx.invoke('screenshot', args.window ? { window: args.window } : {});
      out.text.push(...shot.text);
      if (shot.image) out.image = shot.image;
      if (typeof shot.data?.path === 'string') out.data = { ...out.data, screenshot: shot.data.path };
    } catch (err) {
      out.text.push(`no screenshot: ${toHypruseError(err).message}`);
    }
  }
  return out;
}

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
    'Block until something happens instead of sleeping. `element`: an element (id, name, role from ui) reaches `state` (present, gone, checked, unchecked, enabled, disabled, focused) and, with `text`, its name or text contains it. `idle`: the window\'s accessibility tree stays unchanged for quiet_ms. Compositor events: window_open, window_close, workspace, title_change, layer_open, layer_close, urgent, screencast. `match` filters (workspace: exact name; others: case-insensitive text of address, class, title, namespace; window_close matches the class and title the window had; window_open also fires when the matching title of a new window arrives after it opened). Answers already: true when a filtered condition already holds (a matching window is already open or already gone, the workspace is already active, the layer is already open). Waits up to 30 minutes (timeout_s up to 1800), reporting progress every 5 s; a wait that times out answers timed_out: true with what it saw (screenshot=true adds the screen as it was); the CLI exits 4 then.',
  input: z
    .object({
      event: z.enum(ALL_WAITS).describe(ALL_WAITS.join(' | ')),
      match: z.string().max(200).default('').describe('Filter: exact workspace name, or text contained in the event (address, class, title, namespace).'),
      timeout_s: z.number().finite().default(10).describe(`Seconds, clamped to 1..${MAX_WAIT_S} (30 minutes).`),
      screenshot: z.boolean().default(false).describe('On timeout, also capture the window (or the screen) as it was.'),
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
      const timeoutMs = Math.min(MAX_WAIT_S, Math.max(1, args.timeout_s)) * 1000;
      return args.event === 'idle' ? waitIdle(ctx, args, args.quiet_ms, timeoutMs) : waitElement(ctx, args, timeoutMs);
    }
    const event = args.event;
    requireCapability(ctx, 'events', 'waiting for events');
    if ((event === 'layer_open' || event === 'layer_close') && !compositorOf(ctx).capabilities.has('layers')) {
      requireCapability(ctx, 'layers', `${event} (layer surfaces)`);
    }
    const timeoutMs = Math.min(MAX_WAIT_S, Math.max(1, args.timeout_s)) * 1000;
    const comp = compositorOf(ctx);
    let raw: EventSubscription;
    try {
      raw = await comp.subscribe();
    } catch (err) {
      const e = toHypruseError(err);
      throw new HypruseError('error.events', `event stream unavailable: ${e.message}`, { cause: err });
    }
    // what went by while waiting, for the progress reports and a timeout's answer
    let count = 0;
    let lastSeen = '';
    const sub: EventSubscription = {
      async next(t, signal) {
        const e = await raw.next(t, signal);
        if (e) {
          count++;
          lastSeen = JSON.stringify(e).slice(0, 160);
        }
        return e;
      },
      close: () => raw.close(),
      [Symbol.asyncIterator]: () => raw[Symbol.asyncIterator](),
    };
    const seen = () => (count ? `${count} other event(s) seen, the last: ${lastSeen}` : 'no event seen yet');
    const what = `${event}${args.match ? ` matching "${args.match}"` : ''}`;
    const stop = heartbeat(ctx, what, timeoutMs, seen);
    try {
      const desk = await comp.snapshot(ctx.signal);
      const pre = alreadyHolds(event, args.match, desk);
      if (pre) return result(`${event} already holds`).text(JSON.stringify(pre)).data(pre).build();
      // match the window, not the raw event: closes carry only an address, titles may come after the open
      const model = new DesktopModel(desk);
      const hit = await awaitDesktopEvent(sub, model, () => comp.snapshot(ctx.signal), { event, match: args.match, timeoutMs, signal: ctx.signal });
      if (!hit) {
        return await timedOut(ctx, args, `timeout: no matching ${args.event} event within ${timeoutMs / 1000}s; ${seen()}`, {
          match: args.match,
          waited_s: timeoutMs / 1000,
          seen: count,
          last_seen: lastSeen || null,
        });
      }
      const { event: _event, ...payload } = hit;
      return result(`${args.event}: ${JSON.stringify(payload)}`).data(hit).build();
    } finally {
      stop();
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
  args: { event: string; id: number; name: string; role: string; index: number; window: string; state: ElementState; text: string; screenshot: boolean },
  timeoutMs: number,
) {
  if (!args.id && !args.name.trim() && !args.role.trim()) throw new UsageError('event=element needs the element: id, name or role');
  const end = Date.now() + timeoutMs;
  let first = true;
  let now = 'not read yet';
  const target = `${args.id ? `element ${args.id}` : [args.role, args.name ? `"${args.name}"` : ''].filter(Boolean).join(' ')} to be ${args.state}${args.text ? ` with "${args.text}"` : ''}`;
  const stop = heartbeat(ctx, target, timeoutMs, () => `it is ${now}`);
  try {
    return await pollElement();
  } finally {
    stop();
  }
  async function pollElement(): Promise<ToolResult> {
  for (;;) {
    const { item, read } = await current(ctx, args);
    if (holds(item, args.state, args.text)) {
      const what = item ? `${item.role} "${item.name}" [${item.id}]` : `the element`;
      const data = { event: 'element' as const, state: args.state, ...(item ? { id: item.id, role: item.role, name: item.name } : {}), ...(first ? { already: true as const } : {}) };
      return result(`${what} is ${args.state}${args.text ? ` with "${args.text}"` : ''}${first ? ' (already)' : ''}`).data(data).build();
    }
    if (first && ctx.config.background) {
      // a tree its app does not update while the window is undrawn never shows the change waited for
      const frozen = (read ?? (await readElements(ctx, args.window, { points: false }))).frozen;
      if (frozen) throw backgroundRefusal(`waiting for ${target}: ${frozen}`, FROZEN_HINT);
    }
    first = false;
    now = item ? `${item.role} "${item.name}"${item.checked !== undefined ? (item.checked ? ' checked' : ' unchecked') : ''}${item.clickable ? '' : ' disabled'}` : 'not in the window';
    if (Date.now() >= end) {
      return timedOut(ctx, args, `timeout: the element did not become ${args.state}${args.text ? ` with "${args.text}"` : ''} within ${timeoutMs / 1000}s; it is ${now}`, {
        state: args.state,
        waited_s: timeoutMs / 1000,
        now,
        ...(item ? { id: item.id } : {}),
      });
    }
    await sleep(scaledMs(POLL_MS, ctx.env), ctx.signal);
  }
  }
}

/** What a read shows, as one string: any change in roles, names, values, states or boxes changes it. */

function signature(r: ElementRead): string {
  return JSON.stringify(r.items.map((i) => [i.role, i.name, i.value ?? null, i.checked ?? null, i.clickable, i.focused ?? false, i.extents]));
}

async function waitIdle(ctx: ToolContext, args: { event: string; window: string; screenshot: boolean }, quietMs: number, timeoutMs: number) {
  const windowArg = args.window;
  const end = Date.now() + timeoutMs;
  const start = Date.now();
  let changes = 0;
  let since = Date.now();
  const stop = heartbeat(ctx, `the window to stay unchanged for ${quietMs} ms`, timeoutMs, () => `${changes} change(s) seen, the last ${Math.round((Date.now() - since) / 100) / 10} s ago`);
  try {
    return await pollIdle();
  } finally {
    stop();
  }
  async function pollIdle(): Promise<ToolResult> {
  // a page still loading is not idle: its document says `busy` until the load ends
  const loading = (r: ElementRead) => pageState(r.items) === 'loading';
  let last = signature(await readElements(ctx, windowArg, { points: false }));
  since = Date.now();
  let busy = false;
  for (;;) {
    await sleep(scaledMs(POLL_MS, ctx.env), ctx.signal);
    const r = await readElements(ctx, windowArg, { points: false });
    const now = signature(r);
    busy = loading(r);
    if (busy) {
      since = Date.now();
    } else if (now !== last) {
      last = now;
      changes++;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) {
      return result(`${r.window.class} "${r.window.title}" is idle: no change for ${quietMs} ms (after ${Date.now() - start} ms)`)
        .data({ event: 'idle' as const, window: r.window.address, waited_ms: Date.now() - start })
        .build();
    }
    if (Date.now() >= end) {
      if (busy) {
        return timedOut(ctx, args, `timeout: the page in ${r.window.class} "${r.window.title}" was still loading (busy) after ${(Date.now() - start) / 1000} s`, {
          window: r.window.address,
          waited_s: timeoutMs / 1000,
          changes,
        });
      }
      return timedOut(ctx, args, `timeout: ${r.window.class} kept changing for ${timeoutMs / 1000}s (never quiet for ${quietMs} ms; ${changes} change(s) seen)`, {
        window: r.window.address,
        waited_s: timeoutMs / 1000,
        changes,
      });
    }
  }
  }
}
