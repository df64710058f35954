import type { DesktopEvent } from '@hypruse/core';
import type { SwayEventName } from '../ipc/message-types.js';
import { windowClass } from '../model/desktop-model.js';
import type { SwayNode } from '../model/raw-types.js';

interface WindowEventPayload {
  change: string;
  container?: SwayNode;
}

interface WorkspaceEventPayload {
  change: string;
  current?: SwayNode | null;
  old?: SwayNode | null;
}

interface BindingEventPayload {
  change: string;
  binding?: { command?: string; event_state_mask?: string[]; input_code?: number; symbol?: string | null; input_type?: string };
}

/** Render a binding event's keys the way `binds()` renders combos: modifiers then the key. */
export function bindingCombo(b: NonNullable<BindingEventPayload['binding']>): string | undefined {
  const key = b.symbol ?? (b.input_code ? `code:${b.input_code}` : null);
  if (!key) return undefined;
  return [...(b.event_state_mask ?? []), key].join('+');
}

/**
 * One SUBSCRIBE payload -> normalized events (usually one; an empty list for
 * payloads that carry nothing hypruse models). Unknown changes become `other`.
 */
export function normalizeSwayEvent(name: SwayEventName, payload: unknown): DesktopEvent[] {
  switch (name) {
    case 'window': {
      const p = payload as WindowEventPayload;
      const c = p.container;
      if (!c) return [{ type: 'other', name: `window_${p.change}`, data: payload }];
      const address = String(c.id);
      switch (p.change) {
        case 'new':
          return [{ type: 'window_open', address, class: windowClass(c), title: c.name ?? '', pid: typeof c.pid === 'number' && c.pid > 0 ? c.pid : null }];
        case 'close':
          return [{ type: 'window_close', address }];
        case 'focus':
          return [{ type: 'focus', address }];
        case 'title':
          return [{ type: 'title_change', address, title: c.name ?? '' }];
        case 'move':
          return [{ type: 'window_move', address }];
        case 'fullscreen_mode':
          return [{ type: 'fullscreen', address, fullscreen: (c.fullscreen_mode ?? 0) !== 0 }];
        case 'floating':
          return [{ type: 'floating', address, floating: c.type === 'floating_con' }];
        case 'urgent':
          return c.urgent ? [{ type: 'urgent', address }] : [{ type: 'other', name: 'window_urgent_cleared', data: { address } }];
        default:
          return [{ type: 'other', name: `window_${p.change}`, data: { address, marks: c.marks ?? [] } }];
      }
    }
    case 'workspace': {
      const p = payload as WorkspaceEventPayload;
      if (p.change === 'focus' && p.current) {
        const wsName = p.current.name ?? '';
        return [{ type: 'workspace', name: wsName, id: wsName, ...(p.current.output ? { monitor: p.current.output } : {}) }];
      }
      return [{ type: 'other', name: `workspace_${p.change}`, data: { name: p.current?.name ?? null, old: p.old?.name ?? null } }];
    }
    case 'binding': {
      const p = payload as BindingEventPayload;
      if (!p.binding) return [{ type: 'other', name: 'binding', data: payload }];
      const combo = bindingCombo(p.binding);
      return [{ type: 'binding', command: p.binding.command ?? '', ...(combo ? { combo } : {}) }];
    }
    case 'shutdown':
      return [{ type: 'shutdown' }];
    case 'output':
      // sway's output event carries no output name (`{"change":"unspecified"}`): '*' means "some output".
      return [{ type: 'monitor', name: '*', change: 'changed' }];
    default:
      return [{ type: 'other', name, data: payload }];
  }
}
