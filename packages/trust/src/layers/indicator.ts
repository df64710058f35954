import { TRUST_ORDER, Tokens, type Indicator, type IndicatorAct, type Intent, type TrustCall, type TrustLayer } from '@hypruse/core';

/** Longest label text before it is cut (the label is one line on any monitor). */
export const LABEL_MAX = 60;

function quoted(name: string): string {
  const n = name.replace(/\s+/g, ' ').trim();
  return `"${n.length > 32 ? `${n.slice(0, 31)}…` : n}"`;
}

/** The verb a pointer call performs, from its arguments. */
function pointerVerb(args: Record<string, unknown>): string {
  switch (args.action) {
    case 'drag':
      return 'dragging';
    case 'scroll':
      return 'scrolling';
    case 'move':
      return 'moving the pointer';
    default:
      return args.double ? 'double-clicking' : 'clicking';
  }
}

/**
 * What the person reads on screen while an acting call runs: `agent · typing`,
 * `agent · clicking "Save"`, `agent · pressing ctrl+s`. Typed text itself is
 * never shown (it may be a secret); a control's name is.
 */
export function indicatorLabel(tool: string, args: Record<string, unknown>, intent: Intent | null): string {
  let what: string;
  if (intent?.control?.name) what = `clicking ${quoted(intent.control.name)}`;
  else if (tool === 'keyboard') what = args.action === 'key' && typeof args.keys === 'string' ? `pressing ${args.keys}` : 'typing';
  else if (tool === 'pointer') what = pointerVerb(args);
  else if (tool === 'click_ui') what = 'clicking';
  else if (tool === 'launch' && typeof args.command === 'string') what = `launching ${args.command.trim().split(/\s+/)[0]?.split('/').pop() ?? ''}`.trim();
  else if (tool === 'use_bind') what = 'running a key binding';
  else if (tool === 'clipboard') what = 'writing the clipboard';
  else if (intent?.summary) what = intent.summary.replace(/\s+\(?0x[0-9a-f]+\)?/gi, '').replace(/\s+/g, ' ').trim();
  else what = tool;
  const label = `agent · ${what}`;
  return label.length > LABEL_MAX ? `${label.slice(0, LABEL_MAX - 1)}…` : label;
}

/** The act to show for a call: its label and the points where pointer input lands. */
export function indicatorAct(call: Pick<TrustCall, 'tool' | 'args'>, intent: Intent | null): IndicatorAct {
  return { label: indicatorLabel(call.tool, call.args, intent), points: [...(intent?.points ?? [])] };
}

/** A call the person should see as its own act: not a plan (its steps show), not a nested call of a tool (click_ui's pointer: the outer label stays). */
function shown(call: TrustCall): boolean {
  if (call.kind !== 'act' || call.dryRun || call.tool === 'sequence' || call.tool === 'resume') return false;
  return !call.parent || call.parent.tool === 'sequence';
}

/**
 * Tells the on-screen indicator what is being done, once every guard let the
 * call through (innermost but the agent-input bracket and dry run): the glow
 * and label appear as delivery starts, and the fade clock starts when it
 * ends. The indicator never delays or breaks a call: it returns at once, and
 * its own failures stay inside it.
 */
export const indicatorLayer: TrustLayer = {
  name: 'indicator',
  order: TRUST_ORDER.indicator,
  appliesTo: shown,
  async handle(call, next) {
    if (!call.services.has(Tokens.Indicator)) return next();
    const indicator: Indicator = call.services.get(Tokens.Indicator);
    let act: IndicatorAct;
    try {
      act = indicatorAct(call, await call.intent());
    } catch {
      return next(); // the intent failed: the handler reports it
    }
    indicator.acting(act);
    try {
      return await next();
    } finally {
      indicator.idle();
    }
  },
};
