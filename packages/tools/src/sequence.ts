import { z } from 'zod';
import {
  DesktopModel, NotFoundError, Tokens, TrustError, UsageError, presenceError, type HypruseError, defineTool, eventMatches, result, toHypruseError, validateArgs, type Compositor, type DesktopEvent,
  type EventSubscription, type ToolContext, type WaitEvent,
} from '@hypruse/core';
import { thenField } from './common/fields.js';
import { compositorOf } from './common/desktop.js';
import { pointerTool } from './pointer.js';
import { keyboardTool } from './keyboard.js';
import { clickUiTool } from './ui.js';
import { wmTool } from './wm.js';
import { waitForTool } from './wait-for.js';

const STEP_TOOLS = { pointer: pointerTool, keyboard: keyboardTool, click_ui: clickUiTool, hypr: wmTool, wm: wmTool, wait_for: waitForTool } as const;
type Op = keyof typeof STEP_TOOLS;

/** The longest a settle waits for the desktop to fall quiet (events that keep coming end it). */
const SETTLE_CAP_MS = 200;
const LAYER_STRUCTURAL = /rofi|wofi|fuzzel|walker|anyrun|tofi|ulauncher|bemenu|launcher|lock|wvkbd|squeekboard|keyboard/i;

/** Structural events stop a sequence; focus, title, notification and bar changes do not. */
export function isStructural(e: DesktopEvent): boolean {
  switch (e.type) {
    case 'window_open':
    case 'window_close':
    case 'window_move':
    case 'workspace':
      return true;
    case 'layer_open':
    case 'layer_close':
      return LAYER_STRUCTURAL.test(e.namespace);
    default:
      return false;
  }
}

interface Step {
  op: Op;
  args: Record<string, unknown>;
}

function describeEvent(e: DesktopEvent): string {
  const p = e as Record<string, unknown>;
  const what = p.address ?? p.name ?? p.namespace ?? '';
  return `${e.type}${what ? ` ${String(what)}` : ''}`;
}

/** Events a step is expected to cause, so they do not stop the run. */
function excused(step: Step, e: DesktopEvent, window: string | null, model?: DesktopModel): boolean {
  const a = step.args;
  // what a wait step waited for is what it meant to happen
  if (step.op === 'wait_for' && eventMatches(a.event as WaitEvent, e, String(a.match ?? ''), model)) return true;
  const op = step.op === 'wm' ? 'hypr' : step.op;
  if (op === 'hypr') {
    if (e.type === 'workspace' && ['workspace', 'focus_window', 'fullscreen', 'move_window'].includes(String(a.action))) return true;
    if (e.type === 'window_move' && a.action === 'move_window' && e.address === a.target) return true;
    if (e.type === 'window_close' && a.action === 'close_window' && e.address === a.target) return true;
  }
  if ((op === 'keyboard' && a.window) || op === 'click_ui') {
    if (e.type === 'workspace') return true;
    // a dialog closing after its OK/Return is the intended effect
    if (e.type === 'window_close' && window && e.address === window) return true;
  }
  return false;
}

/**
 * Settle after a step, driven by events rather than a fixed wait: one compositor round trip (what
 * the step made the compositor do has been processed and its events sent), then collect events
 * until none arrived for `quietMs`, at most SETTLE_CAP_MS after the round trip. Events are filled
 * in by the model; a resync becomes what a fresh snapshot shows changed.
 */
async function settle(sub: EventSubscription, watch: Watch, comp: Compositor, quietMs: number, signal: AbortSignal): Promise<DesktopEvent[]> {
  await comp.snapshot(signal).catch(() => undefined);
  const out: DesktopEvent[] = [];
  const end = Date.now() + SETTLE_CAP_MS;
  for (;;) {
    const left = Math.min(quietMs, end - Date.now());
    if (left <= 0) break;
    const e = await sub.next(left, signal);
    if (!e) break;
    out.push(...(await watch.take(e, signal)));
  }
  return out;
}

/** The sequence's view of the desktop: what each event meant for the windows it saw. */
interface Watch {
  model: DesktopModel | null;
  take(e: DesktopEvent, signal: AbortSignal): Promise<DesktopEvent[]>;
}

function watchOf(comp: Compositor): Watch {
  const w: Watch = {
    model: null,
    async take(e, signal) {
      if (!w.model) return e.type === 'resync' ? [] : [e];
      if (e.type !== 'resync') return [w.model.apply(e)];
      try {
        return w.model.resync(await comp.snapshot(signal));
      } catch {
        return [];
      }
    },
  };
  return w;
}

const stepSchema = z
  .object({ op: z.enum(Object.keys(STEP_TOOLS) as [Op, ...Op[]]).describe('pointer | keyboard | click_ui | hypr | wm | wait_for') })
  .catchall(z.unknown());

export const sequenceTool = defineTool({
  name: 'sequence',
  title: 'Run a short plan',
  effect: 'destructive',
  description:
    'Run ordered steps ({op: pointer|keyboard|click_ui|hypr|wait_for, ...that tool\'s arguments}) in one call, every guard applying per step; stops the moment the desktop changes structurally in a way a step did not intend (a window opens, closes, moves, a workspace changes), with a per-step report and a final observation (then, default desktop). Focus changes and notifications are ignored; give keyboard steps a window.',
  input: z
    .object({
      steps: z.array(stepSchema).min(1, 'give at least one step').max(200).describe('Steps in order.'),
      stop_on_change: z.boolean().default(true).describe('Stop when the desktop changes unexpectedly.'),
      then: thenField.default('desktop'),
    })
    .strict(),
  output: z.strictObject({ ran: z.number(), steps: z.array(z.string()).describe('One report line per step.') }),
  cli: { examples: ['hypruse sequence --steps \'[{"op":"keyboard","action":"type","text":"hi","window":"42"},{"op":"click_ui","name":"OK","window":"42"}]\''] },
  intent(args, ctx) {
    const steps = validateSteps(args.steps, ctx);
    return { summary: `run ${steps.length} step(s): ${steps.map((s) => `${s.op}${s.args.action ? ` ${String(s.args.action)}` : ''}`).join(', ')}`, input: 'none' };
  },
  async handle(args, ctx) {
    const steps = validateSteps(args.steps, ctx);
    const budgetMs = ctx.config.sequence.maxSeconds * 1000;
    const started = Date.now();
    const comp = compositorOf(ctx);
    let sub: EventSubscription | null = null;
    const watch = watchOf(comp);
    if (args.stop_on_change && comp.capabilities.has('events')) {
      try {
        sub = await comp.subscribe();
      } catch {
        sub = null;
      }
      if (sub) {
        try {
          watch.model = new DesktopModel(await comp.snapshot(ctx.signal));
        } catch {
          watch.model = null; // events still stop the run; closes are then matched by address only
        }
      }
    }
    const report: string[] = [];
    let stopped: string | null = null;
    let backlog: DesktopEvent[] = [];
    let prevWindow: string | null = null;
    let interrupted: HypruseError | null = null;
    const presence = ctx.services.has(Tokens.Presence) ? ctx.services.get(Tokens.Presence) : null;
    try {
      for (let i = 0; i < steps.length; i++) {
        const step = steps[i];
        if (presence && i > 0) {
          // the person took over or stopped hypruse: the plan ends here, whatever the next step is
          const v = await presence.verdict(ctx.signal);
          if (v.state !== 'running') {
            interrupted = presenceError(v, `step ${i + 1}`);
            stopped = `interrupted before step ${i + 1}`;
            break;
          }
        }
        if (Date.now() - started > budgetMs) {
          stopped = `time budget (${ctx.config.sequence.maxSeconds}s) reached before step ${i + 1}`;
          break;
        }
        if (sub && i > 0) {
          backlog = await settle(sub, watch, comp, ctx.config.sequence.quietMs, ctx.signal);
          const next = step.op === 'wait_for' ? (step.args.event as WaitEvent) : null;
          const surprise = backlog.filter((e) => isStructural(e) && !excused(steps[i - 1], e, prevWindow, watch.model ?? undefined) && e.type !== next);
          if (surprise.length) {
            stopped = `desktop changed (${surprise.map(describeEvent).join(', ')}) before step ${i + 1}`;
            break;
          }
        }
        const label = `[${i + 1}] ${step.op}${step.args.action ? ` ${String(step.args.action)}` : step.args.event ? ` ${String(step.args.event)}` : ''}`;
        if (step.op === 'wait_for') {
          const hit = backlog.find((e) => eventMatches(step.args.event as WaitEvent, e, String(step.args.match ?? ''), watch.model ?? undefined));
          if (hit) {
            report.push(`${label}: ${describeEvent(hit)} (already seen)`);
            continue;
          }
        }
        try {
          const r = await ctx.invoke(step.op, step.args);
          report.push(`${label}: ${r.text[0] ?? 'ok'}`);
          prevWindow = (r.observeWindow ?? (r.data?.window as string | undefined) ?? (step.args.window as string | undefined) ?? null) || null;
          const clicked = r.data?.clicked as { window?: string } | undefined;
          if (clicked?.window) prevWindow = clicked.window;
        } catch (err) {
          const e = toHypruseError(err);
          if (e.code === 'not_found.timeout') {
            // a wait that timed out is reported, not fatal: the next step decides
            report.push(`${label}: ${e.message}`);
            continue;
          }
          report.push(`${label}: ${e.category.toUpperCase()} ${e.message}`);
          if (e.code === 'refused.interrupted') interrupted = e;
          stopped = `step ${i + 1} ${e.category === 'refused' ? 'was refused' : 'failed'}: ${e.message}`;
          break;
        }
      }
      if (sub && !stopped) {
        const tail = await settle(sub, watch, comp, ctx.config.sequence.quietMs, ctx.signal);
        const surprise = tail.filter((e) => isStructural(e) && !excused(steps[steps.length - 1], e, prevWindow, watch.model ?? undefined));
        if (surprise.length) report.push(`note: desktop changed (${surprise.map(describeEvent).join(', ')}) after the last step`);
      }
    } finally {
      sub?.close();
    }
    const ran = report.filter((l) => /^\[\d+\]/.test(l)).length;
    if (stopped) {
      let observation = '';
      try {
        const o = await ctx.invoke(args.then === 'none' ? 'desktop' : args.then, {});
        observation = `\n${o.text.join('\n')}`;
      } catch {
        /* the report is what matters */
      }
      if (interrupted) {
        const e = interrupted;
        throw new TrustError({
          layer: 'interrupted',
          code: 'refused.interrupted',
          reason: `the sequence stopped after ${ran}/${steps.length} steps (${e.message})\n${report.join('\n')}${observation}`,
          hint: e.hint,
          data: { ...e.data, steps: report, ran },
        });
      }
      throw new NotFoundError('not_found.sequence', `sequence: stopped after ${ran}/${steps.length} steps, ${stopped}\n${report.join('\n')}${observation}`, {
        data: { steps: report, stopped },
      });
    }
    const r = result(`sequence: all ${steps.length}/${steps.length} steps ran${sub ? '' : ' (no event stream: change detection off)'}`);
    report.forEach((l) => r.text(l));
    return r.data({ ran: steps.length, steps: report }).build();
  },
});

function validateSteps(raw: Array<Record<string, unknown>>, ctx: ToolContext): Step[] {
  const max = ctx.config.sequence.maxSteps;
  if (raw.length > max) throw new UsageError(`sequence too long: ${raw.length} steps, at most ${max}`);
  return raw.map((s, i) => {
    const { op, then: _then, ...rest } = s as { op: Op; then?: unknown } & Record<string, unknown>;
    const tool = STEP_TOOLS[op];
    try {
      validateArgs(op, tool.input, rest);
    } catch (err) {
      throw new UsageError(`bad args for step ${i + 1} (${op}): ${toHypruseError(err).message}`);
    }
    return { op, args: rest };
  });
}

