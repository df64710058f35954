import { z } from 'zod';
import { NotFoundError, defineTool, fact, result } from '@hypruse/core';
import { workspaceField } from './common/fields.js';
import { compositorOf, requireCapability } from './common/desktop.js';
import { address, className } from './common/output.js';

const launchOutput = z.strictObject({ address, class: className, title: z.string(), workspace: fact(z.string()).nullable(), pid: z.number().nullable(), note: fact(z.string()).optional() });

export const launchTool = defineTool({
  name: 'launch',
  title: 'Launch an application',
  effect: 'open_world',
  description:
    'Start an application and wait for the window of that process (not any window); optionally on a workspace (single-instance apps that open elsewhere are moved there). Returns the window address, class, title and workspace.',
  input: z
    .object({
      command: fact(
        z
          .string()
          .min(1, 'name a command')
          .max(4096)
          .refine((s) => !/[\x00]/.test(s), 'the command contains a NUL byte')
          .refine((s) => !/\p{Cs}/u.test(s), 'the command contains a lone surrogate (broken UTF-16)')
          .describe('Shell command line, e.g. "foot" or "zenity --entry".'),
      ),
      workspace: workspaceField.optional(),
      wait_s: z.number().finite().default(8).describe('Seconds to wait for the window, clamped to 1..30.'),
    })
    .strict(),
  output: launchOutput,
  cli: { positional: ['command'], examples: ['hypruse launch foot --workspace 2', 'hypruse launch -- zenity --entry --text Name?'] },
  intent(args, ctx) {
    requireCapability(ctx, 'launch', 'launch');
    return { summary: `launch ${JSON.stringify(args.command)}${args.workspace ? ` on workspace ${args.workspace}` : ''}`, input: 'none', command: args.command, ...(args.workspace ? { workspace: args.workspace } : {}) };
  },
  async handle(args, ctx) {
    const waitMs = Math.min(30, Math.max(1, args.wait_s)) * 1000;
    const r = await compositorOf(ctx).launch(args.command, { workspace: args.workspace, timeoutMs: waitMs, signal: ctx.signal });
    if (!r.window) {
      throw new NotFoundError('not_found.launch', `launched ${JSON.stringify(args.command)}${r.pid ? ` (pid ${r.pid})` : ''}, but no window of it appeared within ${waitMs / 1000}s`, {
        hint: 'call desktop to look; the app may open slowly (raise wait_s) or not open a window at all',
        data: { pid: r.pid },
      });
    }
    const w = r.window;
    ctx.session.launched.add(w.address);
    ctx.session.observed.set(w.address, { ...w.geometry });
    const data = { address: w.address, class: w.class, title: w.title, workspace: args.workspace && r.relocated ? args.workspace : w.workspace, pid: w.pid, ...(r.note ? { note: r.note } : {}) };
    return result(`launched ${w.class} "${w.title}" as ${w.address} on workspace ${data.workspace ?? '-'}${r.note ? `; ${r.note}` : ''}`)
      .text(JSON.stringify(data))
      .data(data)
      .build();
  },
});
