import { z } from 'zod';
import { UsageError, defineTool, fact, result, scaledMs } from '@hypruse/core';
import { thenField, windowField, workspaceField } from './common/fields.js';
import { compositorOf, findWindow, requireCapability, snapshot } from './common/desktop.js';
import { address } from './common/output.js';

const ws = fact(z.string());
const wmOutput = z.union([
  z.strictObject({ action: z.literal('workspace'), workspace: ws }),
  z.strictObject({ action: z.enum(['focus_window', 'fullscreen', 'toggle_floating']), window: address }),
  z.strictObject({ action: z.literal('move_window'), window: address, workspace: ws }),
  z.strictObject({ action: z.literal('close_window'), window: address, status: z.enum(['closed', 'still_open', 'unconfirmed']) }),
]);

const ACTIONS = ['workspace', 'focus_window', 'move_window', 'close_window', 'fullscreen', 'toggle_floating'] as const;

const input = z
  .object({
    action: z.enum(ACTIONS).describe(ACTIONS.join(' | ')),
    target: windowField.describe('Window address from desktop (focus_window, move_window, close_window; optional for fullscreen/toggle_floating: default the active window).'),
    workspace: workspaceField.optional().describe('Workspace for workspace and move_window.'),
    then: thenField,
  })
  .strict();

type Args = z.output<typeof input>;

function check(args: Args): void {
  const needsTarget = args.action === 'focus_window' || args.action === 'move_window' || args.action === 'close_window';
  const needsWs = args.action === 'workspace' || args.action === 'move_window';
  if (needsTarget && (!args.target || args.target === 'active')) throw new UsageError(`${args.action} needs target: a window address from desktop`, { code: 'usage.address' });
  if (needsWs && !args.workspace) throw new UsageError(`${args.action} needs workspace`, { code: 'usage.workspace' });
  if (!needsWs && args.workspace) throw new UsageError(`workspace is only for workspace and move_window`);
  if (args.action === 'workspace' && args.target) throw new UsageError('workspace switches the workspace; it takes no target');
}

export const wmTool = defineTool({
  name: 'hypr',
  nameFor: (c) => (c === null ? 'hypr' : (c.wmToolName ?? 'wm')),
  aliases: ['wm'],
  title: 'Window management',
  effect: 'destructive',
  background: { mode: 'no', note: 'focus, workspaces, moves and closes change what the person sees: the person brings windows into view; observe with desktop' },
  description:
    'Window and workspace management through the compositor: workspace (switch), focus_window, move_window (silently, to a workspace), close_window (waits for the close; says when the app is prompting instead), fullscreen, toggle_floating. Targets are window addresses from desktop.',
  input,
  output: wmOutput,
  cli: { positional: ['action', 'target'], examples: ['hypruse hypr workspace --workspace 2', 'hypruse wm close_window 42'] },
  async intent(args, ctx) {
    check(args);
    const cap = { workspace: 'workspace', focus_window: 'focus', move_window: 'move', close_window: 'close', fullscreen: 'fullscreen', toggle_floating: 'floating' } as const;
    requireCapability(ctx, cap[args.action], args.action);
    let target: string | null = null;
    if (args.action !== 'workspace') target = findWindow(await snapshot(ctx), args.target || 'active').address;
    const what = args.action === 'workspace' ? `switch to workspace ${args.workspace}` : args.action === 'move_window' ? `move ${target} to workspace ${args.workspace}` : `${args.action.replace('_', ' ')} ${target}`;
    const onFocused = (args.action === 'fullscreen' || args.action === 'toggle_floating') && (!args.target || args.target === 'active');
    return { summary: what, input: 'none', windows: target ? [target] : [], ...(onFocused ? { focusedWindow: true } : {}), ...(args.workspace ? { workspace: args.workspace } : {}) };
  },
  async handle(args, ctx) {
    check(args);
    const comp = compositorOf(ctx);
    const d = await snapshot(ctx);
    switch (args.action) {
      case 'workspace':
        await comp.switchWorkspace(args.workspace!);
        return result(`on workspace ${args.workspace}`).data({ action: args.action, workspace: args.workspace }).build();
      case 'focus_window': {
        const w = findWindow(d, args.target);
        await comp.focusWindow(w.address);
        return result(`focused ${w.address}`).data({ action: args.action, window: w.address }).observe(w.address).build();
      }
      case 'move_window': {
        const w = findWindow(d, args.target);
        await comp.moveToWorkspace(w.address, args.workspace!, true);
        return result(`moved ${w.address} to workspace ${args.workspace}`).data({ action: args.action, window: w.address, workspace: args.workspace }).build();
      }
      case 'close_window': {
        const w = findWindow(d, args.target);
        const closeMs = scaledMs(1000);
        const r = await comp.closeWindow(w.address, closeMs);
        const text =
          r.status === 'closed'
            ? `closed ${w.address}`
            : r.status === 'still_open'
              ? `asked ${w.address} to close, but it is still open after ${Math.round(closeMs / 100) / 10}s (it may be prompting to save)`
              : `asked ${w.address} to close (the event stream could not confirm it)`;
        return result(text).data({ action: args.action, window: w.address, status: r.status }).build();
      }
      case 'fullscreen': {
        const w = findWindow(d, args.target || 'active');
        await comp.toggleFullscreen(w.address);
        return result(`fullscreen toggled on ${w.address}`).data({ action: args.action, window: w.address }).observe(w.address).build();
      }
      case 'toggle_floating': {
        const w = findWindow(d, args.target || 'active');
        await comp.toggleFloating(w.address);
        return result(`floating toggled on ${w.address}`).data({ action: args.action, window: w.address }).observe(w.address).build();
      }
    }
  },
});
