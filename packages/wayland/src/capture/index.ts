// Capture (grim, in-process wlr-screencopy), the image pipeline (sharp) and the clipboard (wl-clipboard).
export { GrimCapture, grimAbilitiesFromHelp, grimGeometry } from './grim-capture.js';
export type { GrimCaptureOptions, GrimAbilities } from './grim-capture.js';
export { SharpImaging, cropBox, rgbToRgba } from './sharp-imaging.js';
export { ladderFor, startFraction, sizeAt, JPEG_RUNGS } from './fit-ladder.js';
export type { Rung } from './fit-ladder.js';
export { marksSvg, MARK_FILL, MARK_RADIUS } from './marks-svg.js';
export { parsePpm } from './ppm.js';
export type { PpmImage } from './ppm.js';
export { WlClipboard, truncateText, isTextType } from './wl-clipboard.js';
export type { WlClipboardOptions } from './wl-clipboard.js';
export { ScreencopyCapture } from './screencopy-capture.js';
export type { ScreencopyCaptureOptions } from './screencopy-capture.js';
export { shmToRgb, channelOffsets, SHM_FORMAT } from './shm-pixels.js';
