import { z } from 'zod';
import { HypruseError, NotFoundError, defineTool, result, throwIfAborted, toHypruseError, type Desktop, type DesktopEvent, type EventSubscription } from '@hypruse/core';
import { compositorOf, requireCapability } from './common/desktop.js';

export const WAIT_EVENTS = ['window_open', 'window_close', 'workspace', 'title_change', 'layer_open', 'layer_close', 'urgent', 'screencast'] as const;
export type WaitEvent = (typeof WAIT_EVENTS)[number];

const norm = (s: string) => s.toLowerCase();

/** Whether an event satisfies a wait: workspace names match exactly, everything else by case-insensitive substring over the payload. */
export function eventMatches(event: WaitEvent, e: DesktopEvent, match: string): boolean {
  if (e.type !== event) return false;
  if (!match) return true;
  if (e.type === 'workspace') return norm(e.name) === norm(match) || (e.id !== undefined && e.id === match);
  const values = Object.entries(e)
    .filter(([k]) => k !== 'type')
    .map(([, v]) => (v === null || v === undefined ? '' : String(v)));
  return norm(values.join(' ')).includes(norm(match));
}

/** Level-triggered pre-check: the condition already holds (filtered waits only). */
export function alreadyHolds(event: WaitEvent, match: string, d: Desktop): Record<string, unknown> | null {
  if (!match) return null;
  const needle = norm(match);
  if (event === 'window_open') {
    // with a filter, "a matching window is open" is the level condition (launch already waited for it)
    const w = d.windows.find((x) => norm(`${x.address} ${x.class} ${x.title}`).includes(needle));
    return w ? { event, address: w.address, class: w.class, title: w.title, already: true } : null;
  }
  if (event === 'window_close') {
    const alive = d.windows.some((w) => norm(`${w.address} ${w.class} ${w.title}`).includes(needle));
    return alive ? null : { event, already: true };
  }
  if (event === 'workspace') {
    const ws = d.workspaces.find((w) => w.focused) ?? d.workspaces.find((w) => w.id === d.activeWorkspace);
    return ws && (norm(ws.name) === needle || ws.id === match) ? { event, name: ws.name, already: true } : null;
  }
  if (event === 'layer_open' && d.layers) {
    const l = d.layers.find((x) => x.kind !== 'background' && norm(x.namespace).includes(needle));
    return l ? { event, namespace: l.namespace, already: true } : null;
  }
  return null;
}

/** Wait on an existing subscription (shared with sequence). */
export async function awaitEvent(sub: EventSubscription, event: WaitEvent, match: string, timeoutMs: number, signal: AbortSignal): Promise<DesktopEvent | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return null;
    const e = await sub.next(left, signal);
    if (e === null) return null;
    if (eventMatches(event, e, match)) return e;
  }
}

export const waitForTool = defineTool({
  name: 'wait_for',
  title: 'Wait for a desktop event',
  kind: 'observe',
  description:
    'Block until a compositor event happens instead of sleeping: window_open, window_close, workspace, title_change, layer_open, layer_close, urgent, screencast. `match` filters (workspace: exact name; others: case-insensitive text of address, class, title, namespace). Answers already: true when a filtered condition already holds (a matching window is already open or already gone, the workspace is already active, the layer is already open). Timeout is exit 4.',
  input: z
    .object({
      event: z.enum(WAIT_EVENTS).describe(WAIT_EVENTS.join(' | ')),
      match: z.string().max(200).default('').describe('Filter: exact workspace name, or text contained in the event (address, class, title, namespace).'),
      timeout_s: z.number().finite().default(10).describe('Seconds, clamped to 1..60.'),
    })
    .strict(),
  cli: { positional: ['event', 'match'] },
  async handle(args, ctx) {
    requireCapability(ctx, 'events', 'waiting for events');
    if ((args.event === 'layer_open' || args.event === 'layer_close') && !compositorOf(ctx).capabilities.has('layers')) {
      requireCapability(ctx, 'layers', `${args.event} (layer surfaces)`);
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
      const pre = alreadyHolds(args.event, args.match, await comp.snapshot(ctx.signal));
      if (pre) return result(`${args.event} already holds`).text(JSON.stringify(pre)).data(pre).build();
      const e = await awaitEvent(sub, args.event, args.match, timeoutMs, ctx.signal);
      if (!e) {
        throwIfAborted(ctx.signal); // a cancelled wait is cancelled, not a timeout
        throw new NotFoundError('not_found.timeout', `timeout: no matching ${args.event} event within ${timeoutMs / 1000}s`, { data: { event: args.event, match: args.match } });
      }
      const { type, ...payload } = e;
      const data = { event: type, ...payload };
      return result(`${args.event}: ${JSON.stringify(payload)}`).data(data).build();
    } finally {
      sub.close();
    }
  },
});
