import { classifyLayer, type DesktopEvent } from '@hypruse/core';

/** One socket2 line split at the first `>>`. */
export interface RawHyprlandEvent {
  name: string;
  data: string;
}

/** `EVENT>>DATA` → name/data; lines without `>>` are not events (null). */
export function parseEventLine(line: string): RawHyprlandEvent | null {
  const at = line.indexOf('>>');
  if (at <= 0) return null;
  return { name: line.slice(0, at), data: line.slice(at + 2) };
}

/** Split DATA on commas into at most `parts` fields: the last field keeps its commas (titles may contain them). */
export function splitFields(data: string, parts: number): string[] {
  const out: string[] = [];
  let rest = data;
  while (out.length < parts - 1) {
    const i = rest.indexOf(',');
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + 1);
  }
  out.push(rest);
  return out;
}

/** socket2 addresses come without `0x`. */
export function withHexPrefix(addr: string): string {
  const a = addr.trim();
  if (a === '') return a;
  return /^0x/i.test(a) ? a.toLowerCase() : `0x${a.toLowerCase()}`;
}

/**
 * Map one socket2 event to the normalized event. The v1/v2 pairs Hyprland emits
 * together for the same change are mapped once (v2 where it carries ids:
 * workspacev2, movewindowv2, activewindowv2, windowtitlev2), the twin becomes
 * `other` so consumers never see a change twice.
 */
export function toDesktopEvent(ev: RawHyprlandEvent): DesktopEvent {
  const { name, data } = ev;
  switch (name) {
    case 'openwindow': {
      const [addr, ws, cls, title] = splitFields(data, 4);
      return { type: 'window_open', address: withHexPrefix(addr), workspace: ws ?? '', class: cls ?? '', title: title ?? '' };
    }
    case 'closewindow':
      return { type: 'window_close', address: withHexPrefix(data) };
    case 'movewindowv2': {
      const [addr, wsid] = splitFields(data, 3);
      return { type: 'window_move', address: withHexPrefix(addr), workspace: wsid ?? '' };
    }
    case 'workspacev2': {
      const [id, wsname] = splitFields(data, 2);
      return { type: 'workspace', id, name: wsname ?? id };
    }
    case 'activewindowv2':
      return { type: 'focus', address: data.trim() === '' ? null : withHexPrefix(data) };
    case 'windowtitlev2': {
      const [addr, title] = splitFields(data, 2);
      return { type: 'title_change', address: withHexPrefix(addr), title: title ?? '' };
    }
    case 'fullscreen':
      return { type: 'fullscreen', address: null, fullscreen: data.trim() === '1' };
    case 'changefloatingmode': {
      const [addr, on] = splitFields(data, 2);
      return { type: 'floating', address: withHexPrefix(addr), floating: (on ?? '').trim() === '1' };
    }
    case 'openlayer':
      return { type: 'layer_open', namespace: data, kind: classifyLayer(data) };
    case 'closelayer':
      return { type: 'layer_close', namespace: data, kind: classifyLayer(data) };
    case 'urgent':
      return { type: 'urgent', address: withHexPrefix(data) };
    case 'screencast': {
      const [state, owner] = splitFields(data, 2);
      return { type: 'screencast', active: state.trim() === '1', ...(owner !== undefined ? { owner } : {}) };
    }
    case 'monitoradded':
      return { type: 'monitor', name: data, change: 'added' };
    case 'monitorremoved':
      return { type: 'monitor', name: data, change: 'removed' };
    default:
      return { type: 'other', name, data };
  }
}

/** The socket2 event names that map to normalized (non-`other`) events. */
export const MAPPED_EVENTS = [
  'openwindow', 'closewindow', 'movewindowv2', 'workspacev2', 'activewindowv2', 'windowtitlev2', 'fullscreen',
  'changefloatingmode', 'openlayer', 'closelayer', 'urgent', 'screencast', 'monitoradded', 'monitorremoved',
] as const;
