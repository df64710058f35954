import { TRUST_ORDER, TrustError, Tokens, presenceError, type Presence, type TrustCall, type TrustLayer } from '@hypruse/core';

function presenceOf(call: TrustCall): Presence | null {
  return call.services.has(Tokens.Presence) ? call.services.get(Tokens.Presence) : null;
}

/** Tools the person's stop does not refuse: the way back. */
const EXEMPT = new Set(['resume']);

function enclosing(call: TrustCall): string {
  let top: TrustCall = call;
  while (top.parent) top = top.parent;
  return top.tool === 'sequence' ? 'the sequence' : `the ${top.tool} call`;
}

/**
 * The person stays in charge: while they use the seat (takeover pause), after
 * the stop chord, or after Pause/Stop on the monitor page, every acting call
 * is refused before anything is sent; a step of a running plan is refused as
 * `interrupted`. `resume` is never refused here, except inside a plan.
 */
export const presenceLayer: TrustLayer = {
  name: 'presence',
  order: TRUST_ORDER.presence,
  appliesTo: (call) => call.kind === 'act',
  async handle(call, next) {
    const presence = presenceOf(call);
    if (!presence) return next();
    if (EXEMPT.has(call.tool)) {
      if (call.parent) {
        throw new TrustError({
          layer: 'presence',
          code: 'refused.stopped',
          reason: `${call.tool} cannot run inside ${enclosing(call)}: only a direct call resumes`,
          hint: 'call resume on its own, after the person agreed',
        });
      }
      return next();
    }
    const v = await presence.verdict(call.signal);
    // background work reaches nothing of the person's input: their using the seat does not pause it
    // (the stop chord, Stop and Pause on the monitor page still do)
    if (v.state === 'paused' && v.cause === 'takeover' && call.config.background && (await call.intent())?.seatless) return next();
    if (v.state !== 'running') throw presenceError(v, call.parent ? enclosing(call) : undefined);
    return next();
  },
};

/**
 * Innermost: brackets the delivery of an acting call, so the takeover
 * detector attributes the seat activity it causes to the agent.
 */
export const agentInputLayer: TrustLayer = {
  name: 'agent-input',
  order: TRUST_ORDER['agent-input'],
  // a plan's own span is not bracketed (the person must stay visible between its steps); each step is
  appliesTo: (call) => call.kind === 'act' && !call.dryRun && !EXEMPT.has(call.tool) && call.tool !== 'sequence',
  async handle(call, next) {
    const presence = presenceOf(call);
    if (!presence) return next();
    return presence.agentInput(next);
  },
};
