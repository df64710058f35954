import { z } from 'zod';
import {
  DesktopModel, NotFoundError, Tokens, TrustError, UsageError, presenceError, type HypruseError, defineTool, eventMatches, result, toHypruseError, validateArgs, type Compositor, type DesktopEvent,
  type EventSubscription, type ToolContext, type WaitEvent,
} from '@hypruse/core';
import { thenField } from './common/fields.js';
import { compositorOf } from './common/desktop.js';
import { readElements, resolveElement, type ElementQuery } from './common/elements.js';
import { normalizeName } from './common/match.js';
import { pointerTool } from './pointer.js';
import { keyboardTool } from './keyboard.js';
import { clickUiTool, uiTool } from './ui.js';
import { wmTool } from './wm.js';
import { waitForTool } from './wait-for.js';
import { screenshotTool } from './screenshot.js';
import { getTextTool } from './get-text.js';
import { actTool } from './act.js';
import { menuTool } from './menu.js';
import { fileDialogTool } from './file-dialog.js';

const STEP_TOOLS = {
  pointer: pointerTool, keyboard: keyboardTool, click_ui: clickUiTool, hypr: wmTool, wm: wmTool, wait_for: waitForTool,
  // element actions: each verifies its own effect, and every guard applies as to a call of its own
  act: actTool, menu: menuTool, file_dialog: fileDialogTool,
  // observations: their results feed `$N` references and conditions; they change nothing
  ui: uiTool, screenshot: screenshotTool, get_text: getTextTool,
} as const;
type ToolOp = keyof typeof STEP_TOOLS;
type Op = ToolOp | 'repeat';
const OPS = [...(Object.keys(STEP_TOOLS) as ToolOp[]), 'repeat'] as const;
/** Rounds a repeat may run at most (its `max`), and how deep steps may nest (on_fail, repeat). */
const MAX_ROUNDS = 20;
const MAX_DEPTH = 3;

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

/** Where an element is, for a condition: the element arguments of click_ui (values may be `$N` references). */
type CondQuery = { id?: unknown; name?: unknown; role?: unknown; index?: unknown; window?: unknown };
type Condition =
  | { kind: 'present' | 'absent'; q: CondQuery }
  | { kind: 'text_contains'; text: unknown; q: CondQuery };

interface Step {
  op: Op;
  args: Record<string, unknown>;
  /** A failure is reported and the plan goes on. */
  optional: boolean;
  /** Run only when this holds (checked right before the step). */
  cond: Condition | null;
  /** Steps run when this one fails; when they all succeed, the plan goes on. */
  onFail: Step[] | null;
  /** op repeat: the body, run until `until` holds, at most `max` rounds. */
  repeat: { steps: Step[]; until: Condition; max: number } | null;
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
  // a menu path's last item opening its dialog is what the step meant
  if (op === 'menu' && e.type === 'window_open') return true;
  if (op === 'file_dialog' && e.type === 'window_close' && (e.address === window || e.address === a.window)) return true;
  if ((op === 'keyboard' && a.window) || op === 'click_ui' || op === 'act') {
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
  .object({
    op: z.enum(OPS).describe('pointer | keyboard | click_ui | act | menu | file_dialog | hypr | wm | wait_for | ui | screenshot | get_text | repeat'),
    optional: z.boolean().optional().describe('A failure of this step is reported and the plan goes on.'),
    if: z.unknown().optional().describe('Run only when it holds: {present: {name|id|role, window}}, {absent: {...}}, or {text_contains: "...", window, name|id}.'),
    on_fail: z.array(z.unknown()).max(20).optional().describe('Steps to run when this step fails; when they succeed the plan goes on.'),
  })
  .catchall(z.unknown());

export const sequenceTool = defineTool({
  name: 'sequence',
  title: 'Run a short plan',
  effect: 'destructive',
  background: { mode: 'yes', note: 'each step is checked on its own: steps that need the seat are refused' },
  description:
    'Run ordered steps ({op: pointer|keyboard|click_ui|act|menu|file_dialog|hypr|wait_for|ui|screenshot|get_text, ...that tool\'s arguments}) in one call, every guard applying per step; stops the moment the desktop changes structurally in a way a step did not intend (a window opens, closes, moves, a workspace changes), with a per-step report and a final observation (then, default desktop). Focus changes and notifications are ignored; give keyboard steps a window. ' +
    'Control flow: optional: true (a failure does not stop the plan; a refusal always does); if: {present: {name, role, id, window}} | {absent: {...}} | {text_contains: "...", window, name|id} (skipped when false); on_fail: [steps] (recovery, then go on); {op: "repeat", steps: [...], until: <condition>, max: N} (at most 20 rounds). A whole string "$N" or "$N.path" (e.g. "$2.elements.0.id", "$1.window") is replaced by step N\'s result; "$$" writes a literal "$".',
  input: z
    .object({
      steps: z.array(stepSchema).min(1, 'give at least one step').max(200).describe('Steps in order.'),
      stop_on_change: z.boolean().default(true).describe('Stop when the desktop changes unexpectedly.'),
      then: thenField.default('desktop'),
    })
    .strict(),
  output: z.strictObject({ ran: z.number(), steps: z.array(z.string()).describe('One report line per step.') }),
  cli: {
    examples: [
      'hypruse sequence --steps \'[{"op":"keyboard","action":"type","text":"hi","window":"42"},{"op":"click_ui","name":"OK","window":"42"}]\'',
      'hypruse sequence --steps \'[{"op":"ui","window":"42","name":"Save"},{"op":"click_ui","id":"$1.elements.0.id"}]\'',
    ],
  },
  intent(args, ctx) {
    const steps = validateSteps(args.steps, ctx);
    return { summary: `run ${steps.length} step(s): ${steps.map(stepSummary).join(', ')}`, input: 'none', seatless: true };
  },
  async handle(args, ctx) {
    const steps = validateSteps(args.steps, ctx);
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
    const run = new Run(ctx, comp, sub, watch);
    let ran = 0;
    try {
      for (let i = 0; i < steps.length && !run.stopped; i++) {
        ran = i + 1;
        const out = await run.step(steps[i], `${i + 1}`, i + 1);
        if (!out.ok) run.stop(out.why, out.before);
      }
      if (sub && !run.stopped && run.prev) {
        const tail = await settle(sub, watch, comp, ctx.config.sequence.quietMs, ctx.signal);
        const surprise = tail.filter((e) => isStructural(e) && !excused(run.prev!, e, run.prevWindow, watch.model ?? undefined));
        if (surprise.length) run.report.push(`note: desktop changed (${surprise.map(describeEvent).join(', ')}) after the last step`);
      }
    } finally {
      sub?.close();
    }
    const report = run.report;
    if (run.stopped) {
      if (run.stoppedBefore) ran -= 1; // stopped before that step began (interruption, budget, surprise)
      let observation = '';
      try {
        const o = await ctx.invoke(args.then === 'none' ? 'desktop' : args.then, {});
        observation = `\n${o.text.join('\n')}`;
      } catch {
        /* the report is what matters */
      }
      if (run.interrupted) {
        const e = run.interrupted;
        throw new TrustError({
          layer: 'interrupted',
          code: 'refused.interrupted',
          reason: `the sequence stopped after ${ran}/${steps.length} steps (${e.message})\n${report.join('\n')}${observation}`,
          hint: e.hint,
          data: { ...e.data, steps: report, ran },
        });
      }
      throw new NotFoundError('not_found.sequence', `sequence: stopped after ${ran}/${steps.length} steps, ${run.stopped}\n${report.join('\n')}${observation}`, {
        data: { steps: report, stopped: run.stopped },
      });
    }
    const r = result(`sequence: all ${steps.length}/${steps.length} steps ran${sub ? '' : ' (no event stream: change detection off)'}`);
    report.forEach((l) => r.text(l));
    return r.data({ ran: steps.length, steps: report }).build();
  },
});

function stepSummary(s: Step): string {
  if (s.repeat) return `repeat(${s.repeat.steps.map(stepSummary).join(', ')}) up to ${s.repeat.max}x`;
  return `${s.cond ? 'if … ' : ''}${s.op}${s.args.action ? ` ${String(s.args.action)}` : ''}${s.optional ? ' (optional)' : ''}`;
}

/** One step's result as `$N` sees it: the tool's structured data, plus its text lines as `text`. */
type StepValue = Record<string, unknown>;

/** How a step ended. `hard`: the whole plan ends (interruption, budget, surprise, refusal); `before`: its step never began. */
type Outcome = { ok: true } | { ok: false; hard: boolean; before: boolean; why: string };
const OK: Outcome = { ok: true };
/** A hard stop from inside a repeat, passed out through its step. */
class Halt {
  constructor(readonly out: Outcome) {}
}
const OBSERVATIONS: ReadonlySet<Op> = new Set<Op>(['ui', 'screenshot', 'get_text']);

/** The state of one sequence run: report, what ran last, results for `$N`. */
class Run {
  readonly report: string[] = [];
  readonly results = new Map<number, StepValue | null>();
  readonly budgetMs: number;
  readonly started = Date.now();
  /** The last acting step (its args filled in), for what it may cause; observations leave it. */
  prev: Step | null = null;
  prevWindow: string | null = null;
  /** Set once the first step began: from then on, each step first checks presence and settles. */
  private started_ = false;
  backlog: DesktopEvent[] = [];
  stopped: string | null = null;
  /** The stop came before its step began (interruption, budget, surprise), so that step did not run. */
  stoppedBefore = false;
  interrupted: HypruseError | null = null;
  private readonly presence;

  constructor(
    readonly ctx: ToolContext,
    readonly comp: Compositor,
    readonly sub: EventSubscription | null,
    readonly watch: Watch,
  ) {
    this.budgetMs = ctx.config.sequence.maxSeconds * 1000;
    this.presence = ctx.services.has(Tokens.Presence) ? ctx.services.get(Tokens.Presence) : null;
  }

  stop(why: string, before: boolean): void {
    this.stopped ??= why;
    this.stoppedBefore = before;
  }

  /** Everything that must hold before a step begins: presence, time budget, no surprise since the last step. */
  private async gate(step: Step, label: string): Promise<Outcome> {
    if (this.presence && this.started_) {
      // the person took over or stopped hypruse: the plan ends here, whatever the next step is
      const v = await this.presence.verdict(this.ctx.signal);
      if (v.state !== 'running') {
        this.interrupted = presenceError(v, `step ${label}`);
        return { ok: false, hard: true, before: true, why: `interrupted before step ${label}` };
      }
    }
    if (Date.now() - this.started > this.budgetMs) {
      return { ok: false, hard: true, before: true, why: `time budget (${this.ctx.config.sequence.maxSeconds}s) reached before step ${label}` };
    }
    if (this.sub && this.started_) {
      this.backlog = await settle(this.sub, this.watch, this.comp, this.ctx.config.sequence.quietMs, this.ctx.signal);
      const next = step.op === 'wait_for' ? (step.args.event as WaitEvent) : null;
      const surprise = this.backlog.filter((e) => isStructural(e) && !(this.prev && excused(this.prev, e, this.prevWindow, this.watch.model ?? undefined)) && e.type !== next);
      if (surprise.length) return { ok: false, hard: true, before: true, why: `desktop changed (${surprise.map(describeEvent).join(', ')}) before step ${label}` };
    }
    this.started_ = true;
    return OK;
  }

  /**
   * Run one step: its condition, the tool or the repeat, and on failure its recovery or `optional`.
   * A hard outcome (interruption, budget, surprise, refusal) ends the whole plan; a plain failure
   * ends it at top level, fails the repeat or recovery it belongs to otherwise.
   * `slot` is the top-level step number whose result `$N` refers to (0 inside nested steps).
   */
  async step(step: Step, label: string, slot: number): Promise<Outcome> {
    const gate = await this.gate(step, label);
    if (!gate.ok) return gate;
    const name = `[${label}] ${step.op}${step.args.action ? ` ${String(step.args.action)}` : step.args.event ? ` ${String(step.args.event)}` : ''}`;
    let failure: HypruseError;
    try {
      if (step.cond) {
        const held = await this.holds(step.cond, slot);
        if (!held.value) {
          this.report.push(`${name}: skipped (${held.why})`);
          if (slot) this.results.set(slot, null);
          return OK;
        }
      }
      const value = step.repeat ? await this.repeat(step, label, slot) : await this.invoke(step, name, slot);
      if (value instanceof Halt) return value.out;
      if (slot) this.results.set(slot, value);
      return OK;
    } catch (err) {
      failure = toHypruseError(err);
    }
    const e = failure;
    if (slot) this.results.set(slot, null);
    this.report.push(`${name}: ${e.category.toUpperCase()} ${e.message}`);
    if (e.category === 'refused') {
      // a guard said no: the plan assumed this step happens, so neither optional nor on_fail goes on without it
      if (e.code === 'refused.interrupted') this.interrupted = e;
      return { ok: false, hard: true, before: false, why: `step ${label} was refused: ${e.message}` };
    }
    if (step.onFail) {
      this.report.push(`[${label}] on_fail: ${step.onFail.length} recovery step(s)`);
      for (let k = 0; k < step.onFail.length; k++) {
        const out = await this.step(step.onFail[k], `${label}!${k + 1}`, 0);
        if (!out.ok) return out.hard ? out : { ok: false, hard: false, before: false, why: `step ${label} failed (${e.message}) and its recovery step ${k + 1} failed too` };
      }
      return OK;
    }
    if (step.optional) {
      this.report[this.report.length - 1] += ' (optional: going on)';
      return OK;
    }
    return { ok: false, hard: false, before: false, why: `step ${label} failed: ${e.message}` };
  }

  /** Call the step's tool through the pipeline; its result as `$N` sees it. */
  private async invoke(step: Step, name: string, slot: number): Promise<StepValue> {
    const args = this.substitute(step.args, slot) as Record<string, unknown>;
    // observations change nothing: what the last acting step may cause stays excused after them
    const acting = !OBSERVATIONS.has(step.op);
    if (step.op === 'wait_for') {
      const hit = this.backlog.find((e) => eventMatches(args.event as WaitEvent, e, String(args.match ?? ''), this.watch.model ?? undefined));
      if (hit) {
        this.report.push(`${name}: ${describeEvent(hit)} (already seen)`);
        this.prev = { ...step, args };
        return { event: hit };
      }
    }
    if (acting) this.prev = { ...step, args };
    try {
      const r = await this.ctx.invoke(step.op, args);
      if (step.op === 'wait_for' && r.data?.timed_out === true) {
        // a wait that timed out is reported, not fatal: the next step decides
        this.report.push(`${name}: ${r.text[0]}`);
        return { timeout: true, text: r.text[0] ?? 'timeout' };
      }
      this.report.push(`${name}: ${r.text[0] ?? 'ok'}`);
      if (acting) {
        this.prevWindow = (r.observeWindow ?? (r.data?.window as string | undefined) ?? (args.window as string | undefined) ?? null) || null;
        const clicked = r.data?.clicked as { window?: string } | undefined;
        if (clicked?.window) this.prevWindow = clicked.window;
        // act names its element's window, file_dialog its dialog
        const acted = (r.data?.element as { window?: string } | undefined)?.window ?? (r.data?.dialog as string | undefined);
        if (acted) this.prevWindow = acted;
      }
      return { text: r.text.join('\n'), ...(r.data ?? {}) };
    } catch (err) {
      const e = toHypruseError(err);
      if (e.code === 'not_found.timeout') {
        // a wait that timed out is reported, not fatal: the next step decides
        this.report.push(`${name}: ${e.message}`);
        return { timeout: true, text: e.message };
      }
      throw err;
    }
  }

  /** op repeat: run the body, then check `until`; at most `max` rounds. A failing body step fails the repeat. */
  private async repeat(step: Step, label: string, slot: number): Promise<StepValue | Halt> {
    const rep = step.repeat!;
    for (let round = 1; round <= rep.max; round++) {
      for (let k = 0; k < rep.steps.length; k++) {
        const out = await this.step(rep.steps[k], `${label}.${round}.${k + 1}`, 0);
        if (!out.ok) {
          if (out.hard) return new Halt(out);
          throw new NotFoundError('not_found.sequence', `round ${round} failed at its step ${k + 1}`);
        }
      }
      const done = await this.holds(rep.until, slot);
      if (done.value) {
        this.report.push(`[${label}] repeat: done after ${round} round(s) (${done.why})`);
        return { rounds: round };
      }
    }
    throw new NotFoundError('not_found.sequence', `the until condition did not hold after ${rep.max} round(s)`, {
      hint: 'raise max (at most 20), or look with ui why the condition does not hold',
    });
  }

  /** Evaluate a condition against a fresh read of the window. Missing elements are false, not errors. */
  private async holds(c: Condition, slot: number): Promise<{ value: boolean; why: string }> {
    const q = this.query(c.q, slot);
    const what = describeQuery(q);
    if (c.kind === 'text_contains') {
      const text = String(this.substitute(c.text, slot));
      const want = normalizeName(text);
      let hay: string[];
      if (q.id || q.name || q.role) {
        const el = await this.find(q);
        hay = el ? [el.name, String(el.item.value ?? '')] : [];
      } else {
        const all = await readElements(this.ctx, q.window ?? '');
        hay = all.items.flatMap((i) => [i.name, String(i.value ?? '')]);
      }
      const value = hay.some((h) => normalizeName(h).includes(want));
      return { value, why: `text ${JSON.stringify(text)} ${value ? 'found' : 'not found'}${what ? ` (${what})` : ''}` };
    }
    const el = await this.find(q);
    const present = el !== null;
    const value = c.kind === 'present' ? present : !present;
    return { value, why: `${what} ${present ? `is present${el ? ` (${el.label})` : ''}` : 'is absent'}` };
  }

  /** The element a query names, or null when it is not there (a miss or a stale id); ambiguity counts as present. */
  private async find(q: ElementQuery): Promise<Awaited<ReturnType<typeof resolveElement>> | null> {
    try {
      return await resolveElement(this.ctx, q, { actionableOnly: false, purpose: 'a condition' });
    } catch (err) {
      const e = toHypruseError(err);
      if (e.code === 'not_found.ambiguous') {
        const c = (e.data as { candidates?: unknown[] } | undefined)?.candidates ?? [];
        return c.length ? await resolveElement(this.ctx, { ...q, index: 0 }, { actionableOnly: false }) : null;
      }
      if (e.code === 'not_found.element' || e.code === 'not_found.stale_id') return null;
      throw err;
    }
  }

  private query(raw: CondQuery, slot: number): ElementQuery {
    const q = this.substitute(raw, slot) as CondQuery;
    const out: ElementQuery = {};
    if (q.id !== undefined) {
      const id = Number(q.id);
      if (!Number.isInteger(id) || id <= 0) throw new UsageError(`condition id ${JSON.stringify(q.id)} is not an element id (a positive integer from ui)`);
      out.id = id;
    }
    if (q.name !== undefined) out.name = String(q.name);
    if (q.role !== undefined) out.role = String(q.role);
    if (q.index !== undefined) out.index = Number(q.index);
    if (q.window !== undefined) out.window = String(q.window);
    return out;
  }

  /** Replace `$N` / `$N.path` strings by earlier results (deeply); `$$` stands for a literal `$`. */
  substitute(v: unknown, slot: number): unknown {
    if (typeof v === 'string') {
      if (v.startsWith('$$')) return v.slice(1);
      const m = REF.exec(v);
      if (!m) return v;
      return this.lookup(Number(m[1]), m[2] ? m[2].slice(1).split('.') : [], v, slot);
    }
    if (Array.isArray(v)) return v.map((x) => this.substitute(x, slot));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.substitute(x, slot)]));
    return v;
  }

  private lookup(n: number, path: string[], ref: string, _slot: number): unknown {
    if (!this.results.has(n)) throw new UsageError(`${ref}: step ${n} has not run yet`);
    let cur: unknown = this.results.get(n);
    if (cur === null) throw new UsageError(`${ref}: step ${n} was skipped or failed, so it has no result`);
    const seen: string[] = [];
    for (const key of path) {
      const here = cur as Record<string, unknown> | unknown[] | null;
      const next = Array.isArray(here) ? here[Number(key)] : here && typeof here === 'object' ? (here as Record<string, unknown>)[key] : undefined;
      if (next === undefined) {
        const at = seen.length ? seen.join('.') : `step ${n}'s result`;
        const has = Array.isArray(here) ? `a list of ${here.length}` : here && typeof here === 'object' ? `fields ${Object.keys(here).slice(0, 12).join(', ')}` : JSON.stringify(here);
        throw new UsageError(`${ref}: ${at} has no ${JSON.stringify(key)} (it has ${has})`);
      }
      seen.push(key);
      cur = next;
    }
    return cur;
  }
}

/** `$N` or `$N.a.b.0`: a whole-string reference to top-level step N's result. */
const REF = /^\$(\d{1,3})((?:\.[A-Za-z0-9_]+)*)$/;

function describeQuery(q: ElementQuery): string {
  const parts = [q.id ? `id ${q.id}` : '', q.name ? JSON.stringify(q.name) : '', q.role ? `(${q.role})` : '', q.window ? `in ${q.window}` : ''].filter(Boolean);
  return parts.join(' ');
}

const queryKeys = ['id', 'name', 'role', 'index', 'window'];

function parseQuery(raw: unknown, where: string): CondQuery {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new UsageError(`${where}: expected an element {name, role, id, index, window}`);
  const extra = Object.keys(raw).filter((k) => !queryKeys.includes(k));
  if (extra.length) throw new UsageError(`${where}: unknown field(s) ${extra.join(', ')}; an element is given by ${queryKeys.join(', ')}`);
  const q = raw as CondQuery;
  if (q.id === undefined && q.name === undefined && q.role === undefined && !(where.includes('text_contains'))) throw new UsageError(`${where}: name the element by name, role or id`);
  return q;
}

function parseCondition(raw: unknown, where: string): Condition {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new UsageError(`${where} must be {present: {...}}, {absent: {...}} or {text_contains: "...", window, name|id}`);
  }
  const c = raw as Record<string, unknown>;
  if ('present' in c || 'absent' in c) {
    const kind = 'present' in c ? 'present' : 'absent';
    if (Object.keys(c).length !== 1) throw new UsageError(`${where}: {${kind}: {...}} takes nothing else`);
    return { kind, q: parseQuery(c[kind], `${where}.${kind}`) };
  }
  if ('text_contains' in c) {
    if (typeof c.text_contains !== 'string' || c.text_contains === '') throw new UsageError(`${where}.text_contains must be a non-empty string`);
    const { text_contains, ...q } = c;
    return { kind: 'text_contains', text: text_contains, q: parseQuery(q, `${where}.text_contains`) };
  }
  throw new UsageError(`${where} must be {present: {...}}, {absent: {...}} or {text_contains: "...", window, name|id}; got fields ${Object.keys(c).join(', ') || '(none)'}`);
}

/** The `$N` references in a value: each must name a top-level step before `slot`. */
function checkRefs(v: unknown, slot: number, where: string): boolean {
  if (typeof v === 'string') {
    if (v.startsWith('$$')) return false;
    if (/^\$\d/.test(v)) {
      const m = REF.exec(v);
      if (!m) throw new UsageError(`${where}: ${JSON.stringify(v)} is not a reference "$N" or "$N.path" (write "$$" for a literal "$")`);
      const n = Number(m[1]);
      if (n < 1 || n >= slot) throw new UsageError(`${where}: ${v} refers to step ${n}, but only the steps before this one (1..${slot - 1}) have results (write "$$" for a literal "$")`);
      return true;
    }
    return false;
  }
  if (Array.isArray(v)) return v.map((x) => checkRefs(x, slot, where)).some(Boolean);
  if (v && typeof v === 'object') return Object.values(v).map((x) => checkRefs(x, slot, where)).some(Boolean);
  return false;
}

function validateSteps(raw: Array<Record<string, unknown>>, ctx: ToolContext): Step[] {
  const max = ctx.config.sequence.maxSteps;
  let count = 0;
  // `parent`: the top-level step nested steps belong to (their `$N` refer to the steps before it)
  const parse = (list: unknown[], where: string, depth: number, parent: number | null): Step[] => {
    if (depth > MAX_DEPTH) throw new UsageError(`${where}: steps nest at most ${MAX_DEPTH} deep (on_fail, repeat)`);
    return list.map((s0, i) => {
      const at = `${where}${i + 1}`;
      count++;
      if (!s0 || typeof s0 !== 'object' || Array.isArray(s0)) throw new UsageError(`step ${at} must be an object {op, ...}`);
      const s = s0 as Record<string, unknown>;
      const { op, then: _then, optional, if: cond, on_fail, ...rest } = s as { op: Op; then?: unknown; optional?: unknown; if?: unknown; on_fail?: unknown } & Record<string, unknown>;
      if (!OPS.includes(op)) throw new UsageError(`step ${at}: op ${JSON.stringify(op)} is not one of ${OPS.join(', ')}`);
      if (optional !== undefined && typeof optional !== 'boolean') throw new UsageError(`step ${at}: optional must be true or false`);
      if (on_fail !== undefined && !Array.isArray(on_fail)) throw new UsageError(`step ${at}: on_fail must be a list of steps`);
      // `$N` in nested steps refer to top-level steps before the one they belong to
      const slot = parent ?? i + 1;
      const step: Step = {
        op,
        args: rest,
        optional: optional === true,
        cond: cond === undefined ? null : parseCondition(cond, `step ${at} if`),
        onFail: on_fail ? parse(on_fail as unknown[], `${at}!`, depth + 1, slot) : null,
        repeat: null,
      };
      if (step.cond) checkRefs(cond, slot, `step ${at} if`);
      if (op === 'repeat') {
        const { steps, until, max: rounds, ...other } = rest as { steps?: unknown; until?: unknown; max?: unknown };
        if (Object.keys(other).length) throw new UsageError(`step ${at} (repeat) takes steps, until and max; not ${Object.keys(other).join(', ')}`);
        if (!Array.isArray(steps) || !steps.length) throw new UsageError(`step ${at} (repeat) needs steps: a non-empty list`);
        if (until === undefined) throw new UsageError(`step ${at} (repeat) needs until: the condition that ends it ({present: ...}, {absent: ...} or {text_contains: ...})`);
        const n = rounds === undefined ? 5 : Number(rounds);
        if (!Number.isInteger(n) || n < 1 || n > MAX_ROUNDS) throw new UsageError(`step ${at} (repeat): max must be a whole number of rounds from 1 to ${MAX_ROUNDS}, got ${JSON.stringify(rounds)}`);
        step.repeat = { steps: parse(steps, `${at}.`, depth + 1, slot), until: parseCondition(until, `step ${at} until`), max: n };
        checkRefs(until, slot, `step ${at} until`);
        step.args = {};
        return step;
      }
      const tool = STEP_TOOLS[op];
      // arguments holding references are checked once they are filled in, when the step runs
      if (!checkRefs(rest, slot, `step ${at} (${op})`)) {
        try {
          validateArgs(op, tool.input, rest);
        } catch (err) {
          throw new UsageError(`bad args for step ${at} (${op}): ${toHypruseError(err).message}`);
        }
      }
      return step;
    });
  };
  const steps = parse(raw, '', 0, null);
  if (count > max) throw new UsageError(`sequence too long: ${count} steps${count > raw.length ? ' (nested ones included)' : ''}, at most ${max}`);
  return steps;
}
