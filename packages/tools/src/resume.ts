import { z } from 'zod';
import { HypruseError, Tokens, defineTool, result } from '@hypruse/core';

export const resumeTool = defineTool({
  name: 'resume',
  title: 'Resume after the person stopped hypruse',
  // changes hypruse's own state, not the desktop: acting, never destructive
  effect: 'act',
  description:
    'Lift a stop set by the person (the stop chord, or Stop/Pause on the monitor page). Call it only after the person said to go on; then observe again before acting. Refused inside a sequence. A takeover pause (the person typing or moving the pointer) needs no resume: wait and retry.',
  input: z.object({}).strict(),
  output: z.strictObject({
    resumed: z.boolean().describe('true when hypruse was stopped or paused before this call'),
    previous: z.enum(['running', 'paused', 'stopped']).describe('The state before this call.'),
  }),
  cli: { examples: ['hypruse resume'] },
  intent() {
    return { summary: 'resume acting (lift the person\'s stop)', input: 'none' };
  },
  async handle(_args, ctx) {
    if (!ctx.services.has(Tokens.Presence)) throw new HypruseError('error.internal', 'no presence state in this session');
    const presence = ctx.services.get(Tokens.Presence);
    const before = presence.resume('the agent (resume)');
    const was = before.state === 'running' ? 'was not stopped' : `was ${before.state} by ${before.by}`;
    return result(`resumed: hypruse ${was}; acting tools work again (observe before acting)`)
      .data({ resumed: before.state !== 'running', previous: before.state })
      .build();
  },
});
