import { z } from 'zod';
import { defineTool, fact, result, type Desktop } from '@hypruse/core';
import { snapshot } from './common/desktop.js';
import { address, className, pair, rect4, wsId } from './common/output.js';

export const desktopOutput = z.strictObject({
  compositor: fact(z.string()),
  monitors: z.array(z.strictObject({ name: fact(z.string()), geometry: rect4, scale: z.number(), focused: z.boolean(), active_workspace: wsId, transform: z.number().optional() })),
  workspaces: z.array(z.strictObject({ id: wsId, name: fact(z.string()), monitor: fact(z.string()).nullable(), windows: z.number().nullable(), visible: z.boolean(), special: z.literal(true).optional(), urgent: z.literal(true).optional() })),
  windows: z.array(
    z.strictObject({
      address, workspace: wsId, class: className, title: z.string(), at: pair.nullable(), size: pair, floating: z.boolean(), pid: z.number().nullable(),
      fullscreen: z.literal(true).optional(), hidden: z.literal(true).optional(), urgent: z.literal(true).optional(),
      // Why the compositor gives no position for this window (niri: tiled); `at` is then null.
      position_unknown: fact(z.string()).optional(),
      // Why the compositor says no workspace for this window (ext-workspace-v1 has no membership); `workspace` is then null.
      workspace_unknown: fact(z.string()).optional(),
    }),
  ),
  active_window: address.nullable(),
  cursor: pair.nullable(),
  cursor_source: z.enum(['compositor', 'hypruse']).optional(),
  layers: z.array(z.strictObject({ namespace: fact(z.string()), kind: z.enum(['launcher', 'lock', 'osk', 'notification', 'bar', 'background', 'other']), level: z.enum(['background', 'bottom', 'top', 'overlay']), monitor: fact(z.string()).nullable(), geometry: rect4 })).optional(),
  layers_supported: z.literal(false).optional(),
});

const id = (v: string | null): string | number | null => (v !== null && /^-?\d+$/.test(v) ? Number(v) : v);

/** The hypruse-compatible JSON shape of a desktop (HYPRUSE-BEHAVIOR §1.1), plus compositor and cursor source. */
export function desktopJson(d: Desktop): Record<string, unknown> {
  const out: Record<string, unknown> = {
    compositor: d.compositor,
    monitors: d.monitors.map((m) => ({
      name: m.name,
      geometry: [m.geometry.x, m.geometry.y, m.geometry.width, m.geometry.height],
      scale: m.scale,
      focused: m.focused,
      active_workspace: id(m.activeWorkspace),
      ...(m.transform ? { transform: m.transform } : {}),
    })),
    workspaces: [...d.workspaces]
      .sort((a, b) => (Number(a.id) || 0) - (Number(b.id) || 0) || a.name.localeCompare(b.name))
      .map((w) => ({ id: id(w.id), name: w.name, monitor: w.monitor, windows: w.windowsUnknown === undefined ? w.windows : null, visible: w.visible, ...(w.special ? { special: true } : {}), ...(w.urgent ? { urgent: true } : {}) })),
    windows: d.windows.map((w) => ({
      address: w.address,
      workspace: id(w.workspace),
      class: w.class,
      title: w.title,
      at: w.positionUnknown === undefined ? [w.geometry.x, w.geometry.y] : null,
      size: [w.geometry.width, w.geometry.height],
      floating: w.floating,
      pid: w.pid,
      ...(w.fullscreen ? { fullscreen: true } : {}),
      ...(w.hidden ? { hidden: true } : {}),
      ...(w.urgent ? { urgent: true } : {}),
      ...(w.positionUnknown !== undefined ? { position_unknown: w.positionUnknown } : {}),
      ...(w.workspaceUnknown !== undefined ? { workspace_unknown: w.workspaceUnknown } : {}),
    })),
    active_window: d.activeWindow,
    cursor: d.cursor ? [d.cursor.x, d.cursor.y] : null,
  };
  if (d.cursor) out.cursor_source = d.cursor.source;
  const layers = (d.layers ?? []).filter((l) => l.kind !== 'background');
  if (layers.length) {
    out.layers = layers.map((l) => ({ namespace: l.namespace, kind: l.kind, level: l.level, monitor: l.monitor, geometry: [l.geometry.x, l.geometry.y, l.geometry.width, l.geometry.height] }));
  }
  if (d.layers === null) out.layers_supported = false;
  return out;
}

/** Compact lines for the agent: one per monitor, workspace and window. */
export function desktopLines(d: Desktop): string[] {
  const lines: string[] = [];
  lines.push(`${d.compositor}: ${d.monitors.length} monitor(s), ${d.windows.length} window(s); active window ${d.activeWindow ?? 'none'}`);
  for (const m of d.monitors) {
    const g = m.geometry;
    lines.push(`monitor ${m.name} ${g.width}x${g.height}+${g.x}+${g.y} scale ${m.scale}${m.transform ? ` transform ${m.transform}` : ''} ws ${m.activeWorkspace ?? '-'}${m.focused ? ' (focused)' : ''}`);
  }
  for (const w of d.workspaces) {
    lines.push(`workspace ${w.name}${w.id !== w.name ? ` (id ${w.id})` : ''} on ${w.monitor ?? '-'}: ${w.windowsUnknown === undefined ? `${w.windows} window(s)` : 'windows unknown'}${w.visible ? ', visible' : ''}${w.focused ? ', focused' : ''}${w.special ? ', special' : ''}${w.urgent ? ', urgent' : ''}`);
  }
  for (const w of d.windows) {
    const g = w.geometry;
    const flags = [w.focused ? 'focused' : '', w.floating ? 'floating' : '', w.fullscreen ? 'fullscreen' : '', w.visible ? '' : 'hidden', w.urgent ? 'urgent' : ''].filter(Boolean);
    lines.push(`[${w.address}] ${w.class} "${w.title}" ws ${w.workspaceUnknown !== undefined ? 'unknown' : (w.workspace ?? '-')} ${w.positionUnknown === undefined ? `@${g.x},${g.y} ` : 'position unknown '}${g.width}x${g.height} pid ${w.pid ?? '-'}${flags.length ? ` (${flags.join(', ')})` : ''}`);
  }
  lines.push(d.cursor ? `cursor ${d.cursor.x},${d.cursor.y}${d.cursor.source === 'hypruse' ? ' (where hypruse last put it; this compositor cannot report the cursor)' : ''}` : 'cursor unknown (this compositor cannot report it)');
  if (d.layers === null) lines.push('layers: not listed (this compositor does not report layer surfaces)');
  else for (const l of d.layers.filter((x) => x.kind !== 'background')) lines.push(`layer ${l.kind} "${l.namespace}" ${l.level} on ${l.monitor ?? '-'} ${l.geometry.width}x${l.geometry.height}+${l.geometry.x}+${l.geometry.y} (tracked by the compositor, not necessarily visible)`);
  return lines;
}

export const desktopTool = defineTool({
  name: 'desktop',
  title: 'Desktop state',
  effect: 'observe',
  description:
    'One-call desktop state: monitors (logical geometry, scale), workspaces, windows (address, class, title, geometry, workspace, floating, fullscreen, pid), the active window, the cursor and layer surfaces. Call it first; use window addresses with the other tools.',
  input: z.object({}).strict(),
  output: desktopOutput,
  async handle(_args, ctx) {
    const d = await snapshot(ctx);
    for (const w of d.windows) ctx.session.observed.set(w.address, { ...w.geometry });
    const r = result();
    for (const l of desktopLines(d)) r.text(l);
    return r.data(desktopJson(d)).build();
  },
});
