import { classifyLayer } from '../kit/layers.js';
import type { Desktop, DesktopEvent } from '../contracts/desktop.js';

interface ModelWindow {
  class: string;
  title: string;
}

/**
 * What a waiter knows of the desktop between snapshots: every window's class
 * and title by address, the active workspace and the open layer surfaces,
 * kept up to date from events. Close events carry only an address, and a
 * window's title may arrive after its open event, so matching a wait against
 * the raw event would miss both: `apply` returns the event filled in from the
 * model (a `window_close` with the class and title the window had), and
 * `resync` turns a fresh snapshot into the events a reconnect gap swallowed.
 */
export class DesktopModel {
  private readonly windows = new Map<string, ModelWindow>();
  /** Windows that opened after the model began (their late title still counts as the open). */
  readonly opened = new Set<string>();
  private activeWorkspace: { id: string; name: string } | null = null;
  private layers: Set<string> | null = null;

  constructor(desktop: Desktop) {
    this.load(desktop);
  }

  /** The class and title a window has (or had, for one that just closed). */
  window(address: string): ModelWindow | undefined {
    return this.windows.get(address) ?? this.closed.get(address);
  }

  /** Closed windows, remembered so an enriched close can still be described. */
  private readonly closed = new Map<string, ModelWindow>();

  /** Apply one event; returns it with what the model knows filled in. A `resync` is returned as is: call `resync` with a fresh snapshot. */
  apply(e: DesktopEvent): DesktopEvent {
    switch (e.type) {
      case 'window_open': {
        const prev = this.windows.get(e.address);
        const w = { class: e.class ?? prev?.class ?? '', title: e.title ?? prev?.title ?? '' };
        this.windows.set(e.address, w);
        this.opened.add(e.address);
        return { ...e, class: w.class, title: w.title };
      }
      case 'window_close': {
        const prev = this.windows.get(e.address);
        this.windows.delete(e.address);
        if (!prev) return e;
        this.closed.set(e.address, prev);
        if (this.closed.size > 256) this.closed.delete(this.closed.keys().next().value as string);
        return { ...e, class: prev.class, title: prev.title } as DesktopEvent;
      }
      case 'title_change': {
        const prev = this.windows.get(e.address);
        this.windows.set(e.address, { class: prev?.class ?? '', title: e.title });
        return prev ? ({ ...e, class: prev.class } as DesktopEvent) : e;
      }
      case 'workspace':
        this.activeWorkspace = { id: e.id ?? e.name, name: e.name };
        return e;
      case 'layer_open':
        this.layers?.add(e.namespace);
        return e;
      case 'layer_close':
        this.layers?.delete(e.namespace);
        return e;
      default:
        return e;
    }
  }

  /**
   * After a reconnect: the events that a fresh snapshot implies against the
   * model (windows that opened, closed or changed title, a workspace switch,
   * layers that came or went), applied, in that order.
   */
  resync(desktop: Desktop): DesktopEvent[] {
    const out: DesktopEvent[] = [];
    const now = new Map(desktop.windows.map((w) => [w.address, w] as const));
    for (const [address] of this.windows) if (!now.has(address)) out.push({ type: 'window_close', address });
    for (const w of desktop.windows) {
      const prev = this.windows.get(w.address);
      if (!prev) out.push({ type: 'window_open', address: w.address, class: w.class, title: w.title, ...(w.workspace ? { workspace: w.workspace } : {}), pid: w.pid });
      else if (prev.title !== w.title) out.push({ type: 'title_change', address: w.address, title: w.title });
    }
    const ws = activeOf(desktop);
    if (ws && (!this.activeWorkspace || this.activeWorkspace.id !== ws.id)) out.push({ type: 'workspace', name: ws.name, id: ws.id });
    if (this.layers && desktop.layers) {
      const fresh = new Set(desktop.layers.map((l) => l.namespace));
      for (const n of this.layers) if (!fresh.has(n)) out.push({ type: 'layer_close', namespace: n, kind: classifyLayer(n) });
      for (const n of fresh) if (!this.layers.has(n)) out.push({ type: 'layer_open', namespace: n, kind: desktop.layers.find((l) => l.namespace === n)?.kind ?? classifyLayer(n) });
    }
    const applied = out.map((e) => this.apply(e));
    this.load(desktop);
    return applied;
  }

  private load(desktop: Desktop): void {
    this.windows.clear();
    for (const w of desktop.windows) this.windows.set(w.address, { class: w.class, title: w.title });
    this.activeWorkspace = activeOf(desktop);
    this.layers = desktop.layers ? new Set(desktop.layers.map((l) => l.namespace)) : null;
  }
}

function activeOf(d: Desktop): { id: string; name: string } | null {
  const ws = d.workspaces.find((w) => w.focused) ?? d.workspaces.find((w) => w.id === d.activeWorkspace);
  return ws ? { id: ws.id, name: ws.name } : null;
}
