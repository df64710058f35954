import { classifyLayer, type LayerLevel, type LayerSurface } from '@hypruse/core';
import type { RawLayers } from './raw-types.js';

const LEVELS: Record<string, LayerLevel> = { '0': 'background', '1': 'bottom', '2': 'top', '3': 'overlay' };

export function layerLevel(key: string): LayerLevel {
  return LEVELS[key] ?? 'background';
}

/** `j/layers` (monitor → levels → entries) → flat list, ordered by monitor then level. */
export function mapLayers(raw: RawLayers | null | undefined): LayerSurface[] {
  const out: LayerSurface[] = [];
  if (!raw || typeof raw !== 'object') return out;
  for (const [monitor, value] of Object.entries(raw)) {
    const levels = value?.levels ?? {};
    for (const key of Object.keys(levels).sort((a, b) => Number(a) - Number(b))) {
      const level = layerLevel(key);
      for (const e of levels[key] ?? []) {
        const namespace = e.namespace ?? '';
        out.push({
          namespace,
          kind: classifyLayer(namespace, level),
          level,
          monitor,
          geometry: { x: e.x ?? 0, y: e.y ?? 0, width: e.w ?? 0, height: e.h ?? 0 },
          pid: typeof e.pid === 'number' && e.pid > 0 ? e.pid : null,
        });
      }
    }
  }
  return out;
}
