import { TRUST_ORDER, Tokens, TrustError, bindTableOf, compositorModifiers, type Desktop, type ToolResult, type TrustCall, type TrustLayer, type Window } from '@hypruse/core';
import { describeWindow, desktopOf, targetsOf } from '../desktop-view.js';
import { checkLaunch } from '../launch-allow.js';

export type Scope = { kind: 'launched' } | { kind: 'class'; value: string } | { kind: 'workspace'; value: string };

/** Parse the configured scopes; null when one is malformed (then every acting call refuses until fixed). */
export function parseScopes(items: readonly string[]): { scopes: Scope[]; bad: string | null } {
  const scopes: Scope[] = [];
  for (const raw of items) {
    const item = raw.trim();
    const m = /^(class|workspace):(.+)$/.exec(item);
    if (item === 'launched') scopes.push({ kind: 'launched' });
    else if (m && m[2].trim()) scopes.push({ kind: m[1] as 'class' | 'workspace', value: m[2].trim() });
    else return { scopes: [], bad: raw };
  }
  return { scopes, bad: null };
}

export function inScope(w: Window, scopes: Scope[], d: Desktop, launched: ReadonlySet<string>): boolean {
  return scopes.some((s) => {
    if (s.kind === 'launched') return launched.has(w.address);
    if (s.kind === 'class') return w.class === s.value;
    if (w.workspace === null) return false;
    if (w.workspace === s.value) return true;
    return d.workspaces.some((ws) => ws.id === w.workspace && ws.name === s.value);
  });
}

function describeScopes(items: readonly string[]): string {
  return items.join(', ');
}

/**
 * The windows `launch` opened this session: read from the launch result
 * (`data.address`, or `data.window.address`). Kept here, in the confinement
 * layer, even when confinement is off, so turning it on mid-session (CLI
 * state, config reload) already knows what hypruse owns.
 */
export function launchedAddress(r: ToolResult): string | null {
  const d = r.data as Record<string, unknown> | undefined;
  if (!d) return null;
  if (typeof d.address === 'string' && d.address) return d.address;
  const w = d.window as Record<string, unknown> | undefined | null;
  if (w && typeof w.address === 'string' && w.address) return w.address;
  return null;
}

/**
 * Confinement: acting calls touch only windows in scope (`launched`,
 * `class:X`, `workspace:X`). Pointer input checks every window under the
 * point (the window list is not z-ordered), keyboard input the named or
 * focused window; compositor bindings always refuse; launching runs only a
 * program of `launch.allow` with plain arguments; switching workspaces is
 * never confined; empty space is allowed.
 */
export const confineLayer: TrustLayer = {
  name: 'confine',
  order: TRUST_ORDER.confine,
  appliesTo: (call) => call.kind === 'act',
  async handle(call, next) {
    if (call.config.confine.length) await check(call);
    const r = await next();
    if (call.tool === 'launch' && !call.dryRun) {
      const addr = launchedAddress(r);
      if (addr) call.session.launched.add(addr);
    }
    return r;
  },
};

async function check(call: TrustCall): Promise<void> {
  const items = call.config.confine;
  const lift = `confinement limits acting to: ${describeScopes(items)}; act on a window in scope${items.includes('launched') ? ' (launch one to own it)' : ''}, or ask the person to widen HYPRUSE_CONFINE`;
  const refuse: (reason: string, hint?: string) => never = (reason, hint = lift) => {
    throw new TrustError({ layer: 'confine', code: 'refused.confine', reason, hint });
  };
  const { scopes, bad } = parseScopes(items);
  if (bad !== null) {
    refuse(
      `the confinement setting has a malformed scope "${bad}", so every action is refused until it is fixed`,
      'accepted scopes: launched, class:NAME, workspace:NAME (HYPRUSE_CONFINE or confine in the config)',
    );
  }
  const intent = await call.intent();
  if (!intent) refuse(`cannot tell which windows ${call.tool} would touch, so it cannot be checked against confinement`);
  if (intent.global) refuse(`${call.tool} acts on the whole desktop (${intent.summary}), which confinement never allows`);
  if (intent.command !== undefined) {
    const ok = checkLaunch(intent.command, call.config.launch.allow);
    if (!ok.ok) {
      refuse(
        `under confinement ${call.tool} starts only programs the person allowed, and ${ok.reason}`,
        'ask the person to add the program to launch.allow in the config (or HYPRUSE_LAUNCH_ALLOW, a comma list of names or absolute paths), with plain arguments',
      );
    }
  }
  if (intent.modifiers?.length && !call.config.allowModifierKeys) await checkModifiers(call, intent.modifiers, intent.summary);
  const touchesWindows = intent.input === 'pointer' || intent.hover || intent.focusedWindow || (intent.windows?.length ?? 0) > 0;
  if (!touchesWindows) return; // launch, workspace switch: never confined
  const d = await desktopOf(call);
  // a bare move enters the windows under it too (hover, and focus follows the mouse on many compositors)
  const t = targetsOf(intent, d, { hover: true });
  if (t.missing.length) refuse(`window ${t.missing.join(', ')} is not on the desktop, so it cannot be in scope`);
  if (t.pointUnknown) refuse('cannot tell where the cursor is, so cannot check the windows under it', 'pass x and y explicitly');
  const out = (ws: Window[]) => ws.filter((w) => !inScope(w, scopes, d, call.session.launched));
  const named = out(t.named);
  if (named.length) refuse(`${describeWindow(named[0])} is outside the confinement scope`);
  const under = out(t.underPoint);
  if (under.length) {
    refuse(`the point is over ${describeWindow(under[0])}, which is outside the confinement scope (every window under the point must be in scope)`);
  }
  if (t.focused && out([t.focused]).length) refuse(`the keys would go to the focused window ${describeWindow(t.focused)}, which is outside the confinement scope`);
}

const MOD_NAMES: Record<string, string> = { logo: 'super', ctrl: 'ctrl', shift: 'shift', alt: 'alt', altgr: 'altgr' };

/**
 * Under confinement no input holding the compositor's own modifier (super, and
 * the modifier most of the person's bindings use) reaches the seat, whatever
 * the window: such combinations are the person's (bindings, the compositor's
 * own drag-and-resize modifier), unless the person allowed them
 * (allowModifierKeys / HYPRUSE_ALLOW_MODIFIER_KEYS). A binding table that
 * cannot be read leaves super alone refused.
 */
async function checkModifiers(call: TrustCall, held: readonly string[], summary: string): Promise<void> {
  let binds = null;
  try {
    binds = await bindTableOf(call.services.get(Tokens.Compositor));
  } catch {
    binds = null;
  }
  const own = compositorModifiers(binds ?? []);
  const hit = held.find((m) => own.has(m));
  if (hit === undefined) return;
  throw new TrustError({
    layer: 'confine',
    code: 'refused.modifier',
    reason: `under confinement no input holding ${MOD_NAMES[hit] ?? hit} (the compositor's own modifier, which runs the person's bindings) reaches the seat: ${summary}`,
    hint: 'send keys without that modifier; the person can allow such combinations with allowModifierKeys (HYPRUSE_ALLOW_MODIFIER_KEYS=1)',
  });
}
