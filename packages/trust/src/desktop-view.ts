import { Tokens, contains, intersects, type Desktop, type Intent, type Logger, type Point, type Rect, type TrustCall, type Window } from '@hypruse/core';

/**
 * What the guards need to see of the desktop, read once per call: every layer
 * of one call shares one snapshot (a call's guards then agree with each
 * other, and a guarded click costs one IPC round trip, not one per layer).
 */
const snapshots = new WeakMap<TrustCall, Promise<Desktop>>();

export function desktopOf(call: TrustCall): Promise<Desktop> {
  let p = snapshots.get(call);
  if (!p) {
    p = call.services.get(Tokens.Compositor).snapshot(call.signal);
    snapshots.set(call, p);
    // a rejected snapshot is not cached: the next guard asks again
    p.catch(() => snapshots.delete(call));
  }
  return p;
}

/** Drop the cached snapshot (after the action ran, a fresh look is needed). */
export function forgetDesktop(call: TrustCall): void {
  snapshots.delete(call);
}

/** Input reaches a person's apps (pointer or keyboard), as opposed to compositor-only changes. */
export function deliversInput(intent: Intent | null): intent is Intent & { input: 'pointer' | 'keyboard' } {
  return intent?.input === 'pointer' || intent?.input === 'keyboard';
}

/** Workspaces being shown (a shown special workspace included). */
export function visibleWorkspaces(d: Desktop): Set<string> {
  const out = new Set<string>();
  for (const ws of d.workspaces) if (ws.visible) out.add(ws.id);
  for (const m of d.monitors) if (m.activeWorkspace) out.add(m.activeWorkspace);
  return out;
}

/**
 * Where a window may be: its rectangle, or, when the compositor reports no
 * position for it (niri: tiled windows), the whole monitor of its workspace
 * (every monitor when that is unknown): a guard cannot rule it out there.
 */
export function possibleAreas(d: Desktop, w: Window): Rect[] {
  if (w.positionUnknown === undefined) return [w.geometry];
  const monitor = d.workspaces.find((ws) => ws.id === w.workspace)?.monitor ?? null;
  const on = d.monitors.filter((m) => m.name === monitor);
  return (on.length ? on : d.monitors).map((m) => m.geometry);
}

/**
 * Every window that may receive input at a point. The compositor's window
 * list is not z-ordered, so a guard must consider every window whose
 * rectangle contains the point on a visible workspace, not just the topmost;
 * a window without a reported position counts wherever it may be.
 */
export function windowsAt(d: Desktop, p: Point): Window[] {
  const shown = visibleWorkspaces(d);
  return d.windows.filter((w) => {
    if (w.hidden) return false;
    const onShown = w.visible || (w.workspace !== null && shown.has(w.workspace));
    return onShown && possibleAreas(d, w).some((r) => contains(r, p));
  });
}

/** Whether a window may overlap an area (see possibleAreas). */
export function mayOverlap(d: Desktop, w: Window, area: Rect): boolean {
  return possibleAreas(d, w).some((r) => intersects(r, area));
}

/** The points pointer input will land on: the intent's points, or the cursor when it names none. Null when unknown. */
export function pointerPoints(intent: Intent, d: Desktop): Point[] | null {
  if (intent.points && intent.points.length) return intent.points;
  if (!d.cursor) return null;
  return [{ x: d.cursor.x, y: d.cursor.y }];
}

export function windowByAddress(d: Desktop, address: string): Window | undefined {
  return d.windows.find((w) => w.address === address) ?? d.windows.find((w) => w.address.toLowerCase() === address.toLowerCase());
}

export function focusedWindow(d: Desktop): Window | null {
  if (d.activeWindow) {
    const w = windowByAddress(d, d.activeWindow);
    if (w) return w;
  }
  return d.windows.find((w) => w.focused) ?? null;
}

export interface Targets {
  /** Windows the call names (focus, keys into, close, click into). */
  named: Window[];
  /** Addresses named by the intent that are not on the desktop. */
  missing: string[];
  /** Windows under the pointer points (pointer input only). */
  underPoint: Window[];
  /** The focused window when keyboard input goes to it. */
  focused: Window | null;
  /** Pointer input with no readable point (cursor unknown). */
  pointUnknown: boolean;
}

/** Every window an acting call will touch, as far as the desktop tells. */
/** The windows an intent touches; `hover` counts the windows a bare pointer move passes into as well (confinement). */
export function targetsOf(intent: Intent, d: Desktop, opts: { hover?: boolean } = {}): Targets {
  const named: Window[] = [];
  const missing: string[] = [];
  for (const a of intent.windows ?? []) {
    const w = windowByAddress(d, a);
    if (w) named.push(w);
    else missing.push(a);
  }
  let underPoint: Window[] = [];
  let pointUnknown = false;
  if (intent.input === 'pointer' || (opts.hover && intent.hover)) {
    const pts = pointerPoints(intent, d);
    if (!pts) pointUnknown = true;
    else underPoint = unique(pts.flatMap((p) => windowsAt(d, p)));
  }
  const focused = intent.focusedWindow ? focusedWindow(d) : null;
  return { named, missing, underPoint, focused, pointUnknown };
}

export function allTargets(t: Targets): Window[] {
  return unique([...t.named, ...t.underPoint, ...(t.focused ? [t.focused] : [])]);
}

function unique(ws: Window[]): Window[] {
  const seen = new Set<string>();
  return ws.filter((w) => (seen.has(w.address) ? false : (seen.add(w.address), true)));
}

export function describeWindow(w: Window): string {
  return `${w.address} (${w.class || 'no class'}${w.title ? `, "${w.title.slice(0, 40)}"` : ''})`;
}

/** The session logger, or stderr when none is registered. */
export function loggerOf(call: TrustCall): Logger {
  if (call.services.has(Tokens.Logger)) return call.services.get(Tokens.Logger);
  const w = (m: string) => process.stderr.write(`hypruse: ${m}\n`);
  return { debug: () => undefined, info: w, warn: w, error: w };
}
