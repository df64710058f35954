import type { Desktop, DesktopEvent } from '@hypruse/core';
import { ShapeError, asArray, asWindow, asWorkspace, isObj } from '../ipc/shapes.js';
import type { NiriEvent, NiriLayerSurface, NiriOutput, NiriWindow, NiriWindowLayout, NiriWorkspace } from '../ipc/types.js';
import { toDesktop, workspaceName } from '../model/to-desktop.js';
import { windowPlacement } from '../model/window-geometry.js';

/**
 * A live copy of niri's state fed by the event stream, and the translation of
 * niri events into normalized `DesktopEvent`s (which needs the state before
 * the event: "opened" vs "title changed" vs "moved").
 *
 * A fresh connection starts with a full-state burst (WorkspacesChanged,
 * WindowsChanged, ...). On the first connection the burst only fills the
 * replica; after a reconnect it is diffed against the old state so windows
 * opened or closed while the stream was down are still reported.
 */
export class NiriReplica {
  outputs: Record<string, NiriOutput> = {};
  readonly workspaces = new Map<number, NiriWorkspace>();
  readonly windows = new Map<number, NiriWindow>();
  private gotWorkspaces = false;
  private gotWindows = false;
  /** Whether the state predates the current connection (diff the burst against it). */
  private resyncing = false;
  private everSynced = false;
  /** Full-state events already seen on this connection (their first copy belongs to the burst). */
  private readonly burstSeen = new Set<string>();

  /** Both halves of the initial burst have arrived on the current connection. */
  get synced(): boolean {
    return this.gotWorkspaces && this.gotWindows;
  }

  /** A new event-stream connection is starting: its burst replaces the state. */
  beginSync(): void {
    this.resyncing = this.everSynced;
    this.gotWorkspaces = false;
    this.gotWindows = false;
    this.burstSeen.clear();
  }

  /** Nobody is listening any more: the next connection starts afresh (no diff events for a new subscriber). */
  reset(): void {
    this.everSynced = false;
    this.resyncing = false;
  }

  setOutputs(outputs: Record<string, NiriOutput>): void {
    this.outputs = outputs;
  }

  desktop(layers: NiriLayerSurface[] | null = null): Desktop {
    return toDesktop({ outputs: this.outputs, workspaces: [...this.workspaces.values()], windows: [...this.windows.values()], layers });
  }

  /** Apply one raw event; returns the normalized events it means. Throws ShapeError on a malformed known event. */
  apply(event: NiriEvent): DesktopEvent[] {
    const [name] = Object.keys(event);
    const data = event[name];
    const body = isObj(data) ? data : {};
    switch (name) {
      case 'WorkspacesChanged':
        return this.workspacesChanged(asArray(body.workspaces, 'workspaces', asWorkspace));
      case 'WorkspaceActivated':
        return this.workspaceActivated(num(body.id, 'id'), body.focused === true);
      case 'WorkspaceActiveWindowChanged': {
        const ws = this.workspaces.get(num(body.workspace_id, 'workspace_id'));
        if (ws) ws.active_window_id = optNum(body.active_window_id);
        return [];
      }
      case 'WorkspaceUrgencyChanged': {
        const ws = this.workspaces.get(num(body.id, 'id'));
        if (ws) ws.is_urgent = body.urgent === true;
        return [{ type: 'other', name, data }];
      }
      case 'WindowsChanged':
        return this.windowsChanged(asArray(body.windows, 'windows', asWindow));
      case 'WindowOpenedOrChanged':
        return this.windowOpenedOrChanged(asWindow(body.window));
      case 'WindowClosed': {
        const id = num(body.id, 'id');
        const existed = this.windows.delete(id);
        return existed ? [{ type: 'window_close', address: String(id) }] : [];
      }
      case 'WindowFocusChanged': {
        const id = optNum(body.id);
        const before = this.focusedWindowId();
        for (const w of this.windows.values()) w.is_focused = w.id === id;
        return before === id ? [] : [{ type: 'focus', address: id === null ? null : String(id) }];
      }
      case 'WindowUrgencyChanged': {
        const id = num(body.id, 'id');
        const w = this.windows.get(id);
        if (w) w.is_urgent = body.urgent === true;
        return body.urgent === true ? [{ type: 'urgent', address: String(id) }] : [];
      }
      case 'WindowLayoutsChanged':
        return this.layoutsChanged(body.changes);
      case 'CastStartedOrChanged': {
        const cast = isObj(body.cast) ? body.cast : {};
        return [{ type: 'screencast', active: cast.is_active !== false, ...(typeof cast.pid === 'number' ? { owner: String(cast.pid) } : {}) }];
      }
      case 'CastStopped':
        return [{ type: 'screencast', active: false }];
      case 'WindowFocusTimestampChanged':
        return []; // follows every focus change; the focus event already said it
      case 'KeyboardLayoutsChanged':
      case 'OverviewOpenedOrClosed':
      case 'ConfigLoaded':
      case 'CastsChanged':
        // full-state events: the first one on a connection is part of the initial burst
        if (!this.burstSeen.has(name)) {
          this.burstSeen.add(name);
          return [];
        }
        return [{ type: 'other', name, data }];
      default:
        // KeyboardLayoutSwitched, ScreenshotCaptured, WindowFocusTimestampChanged
        // and variants newer than this code.
        return this.synced ? [{ type: 'other', name, data }] : [];
    }
  }

  focusedWindowId(): number | null {
    for (const w of this.windows.values()) if (w.is_focused) return w.id;
    return null;
  }

  private finishBurst(): void {
    if (!this.synced) return;
    this.resyncing = false;
    this.everSynced = true;
  }

  private workspacesChanged(list: NiriWorkspace[]): DesktopEvent[] {
    const inBurst = !this.gotWorkspaces;
    const quiet = inBurst && !this.resyncing;
    const beforeFocused = [...this.workspaces.values()].find((w) => w.is_focused)?.id ?? null;
    this.workspaces.clear();
    for (const ws of list) this.workspaces.set(ws.id, ws);
    this.gotWorkspaces = true;
    const out: DesktopEvent[] = [];
    const focused = list.find((w) => w.is_focused);
    if (!quiet && focused && focused.id !== beforeFocused) out.push(this.workspaceEvent(focused));
    if (inBurst) this.finishBurst();
    return out;
  }

  private workspaceActivated(id: number, focused: boolean): DesktopEvent[] {
    const ws = this.workspaces.get(id);
    if (!ws) return [];
    for (const other of this.workspaces.values()) {
      if (other.output === ws.output) other.is_active = other.id === id;
      if (focused) other.is_focused = other.id === id;
    }
    return [this.workspaceEvent(ws)];
  }

  private workspaceEvent(ws: NiriWorkspace): DesktopEvent {
    return { type: 'workspace', name: workspaceName(ws), id: String(ws.id), ...(ws.output ? { monitor: ws.output } : {}) };
  }

  private windowsChanged(list: NiriWindow[]): DesktopEvent[] {
    const inBurst = !this.gotWindows;
    const diff = !inBurst || this.resyncing;
    const before = new Map(this.windows);
    this.windows.clear();
    for (const w of list) this.windows.set(w.id, w);
    this.gotWindows = true;
    const out: DesktopEvent[] = [];
    if (diff) {
      for (const [id] of before) if (!this.windows.has(id)) out.push({ type: 'window_close', address: String(id) });
      for (const w of list) out.push(...this.windowDiff(before.get(w.id), w));
    }
    if (inBurst) this.finishBurst();
    return out;
  }

  private windowOpenedOrChanged(w: NiriWindow): DesktopEvent[] {
    const before = this.windows.get(w.id);
    this.windows.set(w.id, w);
    if (w.is_focused) for (const other of this.windows.values()) if (other.id !== w.id) other.is_focused = false;
    const out = this.windowDiff(before, w);
    if (w.is_focused && !before?.is_focused) out.push({ type: 'focus', address: String(w.id) });
    return out;
  }

  /** Events that take a window from `before` (undefined: new) to `after`. */
  private windowDiff(before: NiriWindow | undefined, after: NiriWindow): DesktopEvent[] {
    const address = String(after.id);
    if (!before) {
      return [
        {
          type: 'window_open',
          address,
          class: after.app_id ?? '',
          title: after.title ?? '',
          ...(after.workspace_id != null ? { workspace: String(after.workspace_id) } : {}),
          pid: typeof after.pid === 'number' ? after.pid : null,
        },
      ];
    }
    const out: DesktopEvent[] = [];
    if ((before.title ?? '') !== (after.title ?? '')) out.push({ type: 'title_change', address, title: after.title ?? '' });
    if (before.workspace_id !== after.workspace_id) {
      out.push({ type: 'window_move', address, ...(after.workspace_id != null ? { workspace: String(after.workspace_id) } : {}) });
    }
    if ((before.is_floating === true) !== (after.is_floating === true)) out.push({ type: 'floating', address, floating: after.is_floating === true });
    if (before.is_urgent !== true && after.is_urgent === true) out.push({ type: 'urgent', address });
    const fsBefore = this.fullscreenOf(before);
    const fsAfter = this.fullscreenOf(after);
    if (fsBefore !== fsAfter) out.push({ type: 'fullscreen', address, fullscreen: fsAfter });
    return out;
  }

  private layoutsChanged(changes: unknown): DesktopEvent[] {
    if (!Array.isArray(changes)) throw new ShapeError('WindowLayoutsChanged.changes is not an array');
    const out: DesktopEvent[] = [];
    for (const change of changes) {
      if (!Array.isArray(change) || typeof change[0] !== 'number' || !isObj(change[1])) throw new ShapeError('WindowLayoutsChanged change is not [id, layout]');
      const w = this.windows.get(change[0]);
      if (!w) continue;
      const before = this.fullscreenOf(w);
      w.layout = change[1] as NiriWindowLayout;
      const after = this.fullscreenOf(w);
      if (before !== after) out.push({ type: 'fullscreen', address: String(w.id), fullscreen: after });
    }
    return out;
  }

  private fullscreenOf(w: NiriWindow): boolean {
    const ws = w.workspace_id != null ? this.workspaces.get(w.workspace_id) : undefined;
    const logical = (ws?.output && this.outputs[ws.output]?.logical) || null;
    return windowPlacement(w, logical).fullscreen;
  }
}

function num(v: unknown, what: string): number {
  if (typeof v !== 'number') throw new ShapeError(`event field ${what} is not a number`);
  return v;
}

function optNum(v: unknown): number | null {
  return typeof v === 'number' ? v : null;
}
