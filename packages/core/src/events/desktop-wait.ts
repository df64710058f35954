import type { EventSubscription } from '../contracts/compositor.js';
import type { Desktop, DesktopEvent } from '../contracts/desktop.js';
import { DesktopModel } from './desktop-model.js';

/** The events an agent can wait for. */
export const WAIT_EVENTS = ['window_open', 'window_close', 'workspace', 'title_change', 'layer_open', 'layer_close', 'urgent', 'screencast'] as const;
export type WaitEvent = (typeof WAIT_EVENTS)[number];

const norm = (s: string) => s.toLowerCase();

/**
 * Whether an event (as filled in by a DesktopModel) satisfies a wait:
 * workspace names match exactly, everything else by case-insensitive
 * substring over the payload (for windows: address, class and title, also
 * the ones a closed window had). With a model, a window that opened during
 * the wait and got its matching title later satisfies a `window_open` wait
 * on its `title_change` (sway's `new` event and GTK dialogs come untitled).
 */
export function eventMatches(event: WaitEvent, e: DesktopEvent, match: string, model?: DesktopModel): boolean {
  if (event === 'window_open' && match && e.type === 'title_change' && model?.opened.has(e.address)) {
    const w = model.window(e.address);
    return norm(`${e.address} ${w?.class ?? e.class ?? ''} ${e.title}`).includes(norm(match));
  }
  if (e.type !== event) return false;
  if (!match) return true;
  if (e.type === 'workspace') return norm(e.name) === norm(match) || (e.id !== undefined && e.id === match);
  const values = Object.entries(e)
    .filter(([k]) => k !== 'type')
    .map(([, v]) => (v === null || v === undefined ? '' : String(v)));
  return norm(values.join(' ')).includes(norm(match));
}

/** What a satisfied wait reports: the event named as waited for, with its payload. */
export function waitHit(event: WaitEvent, e: DesktopEvent, model?: DesktopModel): Record<string, unknown> {
  if (event === 'window_open' && e.type === 'title_change') {
    return { event, address: e.address, class: model?.window(e.address)?.class ?? e.class ?? '', title: e.title, titled_later: true };
  }
  const { type, ...payload } = e;
  return { event: type, ...payload };
}

/** Level-triggered pre-check: the condition already holds (filtered waits only). */
export function alreadyHolds(event: WaitEvent, match: string, d: Desktop): Record<string, unknown> | null {
  if (!match) return null;
  const needle = norm(match);
  if (event === 'window_open') {
    // with a filter, "a matching window is open" is the level condition (launch already waited for it)
    const w = d.windows.find((x) => norm(`${x.address} ${x.class} ${x.title}`).includes(needle));
    return w ? { event, address: w.address, class: w.class, title: w.title, already: true } : null;
  }
  if (event === 'window_close') {
    const alive = d.windows.some((w) => norm(`${w.address} ${w.class} ${w.title}`).includes(needle));
    return alive ? null : { event, already: true };
  }
  if (event === 'workspace') {
    const ws = d.workspaces.find((w) => w.focused) ?? d.workspaces.find((w) => w.id === d.activeWorkspace);
    return ws && (norm(ws.name) === needle || ws.id === match) ? { event, name: ws.name, already: true } : null;
  }
  if (event === 'layer_open' && d.layers) {
    const l = d.layers.find((x) => x.kind !== 'background' && norm(x.namespace).includes(needle));
    return l ? { event, namespace: l.namespace, already: true } : null;
  }
  return null;
}

export interface DesktopWaitOptions {
  event: WaitEvent;
  match: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Wait on a subscription for an event that satisfies the wait, matching the
 * window (through `model`, seeded from a snapshot taken after subscribing),
 * not the raw event. On a `resync` (the stream reconnected) a fresh snapshot
 * is compared with the model and the differences are matched as events, so a
 * window that closed in the gap still ends the wait. Returns the hit, or null
 * on timeout or abort.
 */
export async function awaitDesktopEvent(
  sub: EventSubscription,
  model: DesktopModel,
  snapshot: () => Promise<Desktop>,
  opts: DesktopWaitOptions,
): Promise<Record<string, unknown> | null> {
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return null;
    const raw = await sub.next(left, opts.signal);
    if (raw === null) return null;
    const events = raw.type === 'resync' ? model.resync(await snapshot()) : [model.apply(raw)];
    for (const e of events) if (eventMatches(opts.event, e, opts.match, model)) return { ...waitHit(opts.event, e, model), ...(raw.type === 'resync' ? { resynced: true } : {}) };
  }
}
