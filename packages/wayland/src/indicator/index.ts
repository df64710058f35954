// The on-screen indicator: click-through layer-shell surfaces drawn from SVG into wl_shm buffers.
export { LayerShellIndicator, indicatorBlocker, LAYER_SHELL, INDICATOR_NAMESPACE, INDICATOR_HOLD_MS, INDICATOR_FADE_MS } from './layer-shell-indicator.js';
export type { LayerShellIndicatorOptions } from './layer-shell-indicator.js';
export {
  indicatorElements, labelBox, labelParts, labelSvg, RING_HALF, rgbaToShmArgb, INDICATOR_ACCENT, LABEL_FILL, LABEL_TEXT, GLOW_DEPTH, RING_RADIUS, RING_STROKE, LABEL_HEIGHT, LABEL_TOP, LABEL_FONT_SIZE,
} from './indicator-svg.js';
export type { IndicatorScene, IndicatorElement } from './indicator-svg.js';
