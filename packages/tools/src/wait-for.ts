import { z } from 'zod';
import {
  DesktopModel, HypruseError, NotFoundError, WAIT_EVENTS, alreadyHolds, awaitDesktopEvent, defineTool, eventMatches, result, throwIfAborted, toHypruseError,
  type EventSubscription, type WaitEvent,
} from '@hypruse/core';
import { compositorOf, requireCapability } from './common/desktop.js';

export { WAIT_EVENTS, alreadyHolds, eventMatches, type WaitEvent };

/** The event that ended the wait, flattened (`event` = its type), or the condition that already held. */
const waitOutput = z
  .object({ event: z.enum(WAIT_EVENTS), already: z.literal(true).optional() })
  .catchall(z.union([z.string(), z.number(), z.boolean(), z.null()]));

export const waitForTool = defineTool({
  name: 'wait_for',
  title: 'Wait for a desktop event',
  effect: 'observe',
  description:
    'Block until a compositor event happens instead of sleeping: window_open, window_close, workspace, title_change, layer_open, layer_close, urgent, screencast. `match` filters (workspace: exact name; others: case-insensitive text of address, class, title, namespace; window_close matches the class and title the window had; window_open also fires when the matching title of a new window arrives after it opened). Answers already: true when a filtered condition already holds (a matching window is already open or already gone, the workspace is already active, the layer is already open). Timeout is exit 4.',
  input: z
    .object({
      event: z.enum(WAIT_EVENTS).describe(WAIT_EVENTS.join(' | ')),
      match: z.string().max(200).default('').describe('Filter: exact workspace name, or text contained in the event (address, class, title, namespace).'),
      timeout_s: z.number().finite().default(10).describe('Seconds, clamped to 1..60.'),
    })
    .strict(),
  output: waitOutput,
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
      const desk = await comp.snapshot(ctx.signal);
      const pre = alreadyHolds(args.event, args.match, desk);
      if (pre) return result(`${args.event} already holds`).text(JSON.stringify(pre)).data(pre).build();
      // match the window, not the raw event: closes carry only an address, titles may come after the open
      const model = new DesktopModel(desk);
      const hit = await awaitDesktopEvent(sub, model, () => comp.snapshot(ctx.signal), { event: args.event, match: args.match, timeoutMs, signal: ctx.signal });
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
