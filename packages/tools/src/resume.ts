import { z } from 'zod';
import { HypruseError, Tokens, TrustError, defineTool, result } from '@hypruse/core';

export const resumeTool = defineTool({
  name: 'resume',
  title: 'Resume after the person stopped hypruse',
  // changes hypruse's own state, not the desktop: acting, never destructive
  effect: 'act',
  background: { mode: 'yes', note: "lifts the person's stop" },
  description:
    'Ask to lift a stop set by the person (the stop chord, or Stop/Pause on the monitor page). Only the person lifts it: the client asks them to confirm when it can (elicitation), otherwise the call is refused (refused.stopped_by_person) and the person resumes from the monitor page or their own terminal. Call it only after the person said to go on; then observe again before acting. Refused inside a sequence. A takeover pause (the person typing or moving the pointer) needs no resume: wait and retry.',
  input: z.object({}).strict(),
  output: z.strictObject({
    resumed: z.boolean().describe('true when hypruse was stopped or paused before this call'),
    previous: z.enum(['running', 'paused', 'stopped']).describe('The state before this call.'),
  }),
  cli: { examples: ['hypruse resume'] },
  intent() {
    return { summary: 'resume acting (lift the person\'s stop)', input: 'none', seatless: true };
  },
  async handle(_args, ctx) {
    if (!ctx.services.has(Tokens.Presence)) throw new HypruseError('error.internal', 'no presence state in this session');
    const presence = ctx.services.get(Tokens.Presence);
    const now = presence.current();
    let by = 'resume';
    if (now.state !== 'running') {
      // a stop or pause in the shared state is the person's (the chord, the monitor page): only the person lifts it
      const agreed = ctx.confirm ? await ctx.confirm(`hypruse was ${now.state} by ${now.by}. Let the agent act again?`) : null;
      if (agreed !== true) {
        throw new TrustError({
          layer: 'presence',
          code: 'refused.stopped_by_person',
          reason: agreed === false
            ? `the person declined to resume (hypruse stays ${now.state})`
            : `hypruse was ${now.state} by ${now.by}, and only the person lifts that; this client cannot ask them to confirm`,
          hint: 'do not retry: ask the person to resume (Resume on the monitor page, or `hypruse resume` in their own terminal), then observe again',
          data: { state: now.state },
        });
      }
      by = 'the person (confirmed resume)';
    }
    const before = presence.resume(by);
    const was = before.state === 'running' ? 'was not stopped' : `was ${before.state} by ${before.by}`;
    return result(`resumed: hypruse ${was}; acting tools work again (observe before acting)`)
      .data({ resumed: before.state !== 'running', previous: before.state })
      .build();
  },
});
