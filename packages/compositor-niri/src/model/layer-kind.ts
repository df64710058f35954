import { classifyLayer, type LayerKind, type LayerLevel } from '@hypruse/core';

/** Classify a layer surface by its namespace: the one table of the kit (core's classifyLayer), as on every compositor. */
export function layerKind(namespace: string, level: LayerLevel): LayerKind {
  return classifyLayer(namespace, level);
}

/** niri `Layer` → normalized level. */
export function layerLevel(layer: string): LayerLevel {
  switch (layer) {
    case 'Background':
      return 'background';
    case 'Bottom':
      return 'bottom';
    case 'Overlay':
      return 'overlay';
    default:
      return 'top';
  }
}
