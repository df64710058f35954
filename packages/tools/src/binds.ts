import { z } from 'zod';
import { HypruseError, NotFoundError, Tokens, defineTool, fact, parseCombo, result, type Bind } from '@hypruse/core';
import { thenField } from './common/fields.js';
import { compositorOf, requireCapability } from './common/desktop.js';

const bindFacts = { combo: fact(z.string()), action: fact(z.string()), arg: fact(z.string()) };
const bindsOutput = z.strictObject({ binds: z.array(z.strictObject({ ...bindFacts, description: z.string().optional(), submap: fact(z.string()).optional() })) });
const useBindOutput = z.strictObject(bindFacts);

const norm = (s: string) => s.toUpperCase().replace(/\s+/g, '');

function bindLine(b: Bind): string {
  return `${b.combo}${b.mode ? ` [${b.mode}]` : ''}: ${b.lua ? 'lua' : b.action}${b.arg ? ` ${b.arg}` : ''}${b.description ? ` (${b.description})` : ''}`;
}

export const bindsTool = defineTool({
  name: 'binds',
  title: 'Key bindings',
  effect: 'observe',
  description: "The person's own compositor key bindings, decoded (combo, action, argument, mode). Run one with use_bind.",
  readonlyDescription: "The person's own compositor key bindings, decoded (combo, action, argument, mode).",
  input: z.object({}).strict(),
  output: bindsOutput,
  async handle(_a, ctx) {
    requireCapability(ctx, 'binds', 'listing key bindings');
    const binds = await compositorOf(ctx).binds();
    const r = result(`${binds.length} binding(s)`);
    for (const b of binds) r.text(bindLine(b));
    return r.data({ binds: binds.map((b) => ({ combo: b.combo, action: b.lua ? 'lua' : b.action, arg: b.arg, ...(b.description ? { description: b.description } : {}), ...(b.mode ? { submap: b.mode } : {}) })) }).build();
  },
});

export const useBindTool = defineTool({
  name: 'use_bind',
  title: 'Run a key binding',
  effect: 'destructive',
  background: { mode: 'no', note: "a binding acts on the person's compositor (focus, workspaces, launches)" },
  description: "Run one of the person's compositor key bindings by its combo (as listed by binds), through the compositor: the only way to trigger compositor bindings.",
  input: z.object({ combo: fact(z.string().min(1).max(100).describe('The combo as listed by binds, e.g. "SUPER+Return".')), then: thenField }).strict(),
  output: useBindOutput,
  cli: { positional: ['combo'] },
  async intent(args, ctx) {
    requireCapability(ctx, 'bind.run', 'running key bindings');
    const b = await find(args.combo, ctx);
    if (b.lua && b.chord) return { summary: `run ${b.combo} (a Lua binding) by pressing ${b.chord} on the virtual keyboard`, input: 'keyboard', global: true, command: b.chord };
    return { summary: `run ${b.combo}: ${b.action} ${b.arg}`.trim(), input: 'none', global: true, command: `${b.action} ${b.arg}`.trim() };
  },
  async handle(args, ctx) {
    const b = await find(args.combo, ctx);
    if (b.lua && b.chord) {
      // the compositor runs its binds from virtual keyboards: the chord is the honest route to a Lua function
      await ctx.services.get(Tokens.Input).key(parseCombo(b.chord), ctx.signal);
      return result(`ran ${b.combo} (a Lua binding) by pressing ${b.chord} on the virtual keyboard`).data({ combo: b.combo, action: 'lua', arg: '' }).build();
    }
    if (b.lua) {
      throw new HypruseError('unsupported.capability', `${b.combo} is a Lua binding; its action is a Lua function that hypruse cannot run through IPC, and it cannot be pressed as a chord (a submap, release, mouse or raw-keycode binding)`, {
        hint: 'do what the binding does with the other tools (hypr/wm, launch, keyboard)',
      });
    }
    const out = await compositorOf(ctx).runBind(b);
    return result(`ran ${b.combo}: ${b.action}${b.arg ? ` ${b.arg}` : ''}${out ? ` (${out})` : ''}`).data({ combo: b.combo, action: b.action, arg: b.arg }).build();
  },
});

async function find(combo: string, ctx: Parameters<NonNullable<typeof useBindTool.intent>>[1]): Promise<Bind> {
  const binds = await compositorOf(ctx).binds();
  const want = norm(combo);
  const hits = binds.filter((b) => norm(b.combo) === want);
  const main = hits.find((b) => !b.mode) ?? hits[0];
  if (!main) throw new NotFoundError('not_found.bind', `no key binding ${combo}; call binds for the list`);
  return main;
}
