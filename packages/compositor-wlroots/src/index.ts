export { wlrootsPlugin } from './plugin.js';
export { WlrootsCompositorFactory } from './factory.js';
export { WlrootsCompositor } from './wlroots-compositor.js';
export { ToplevelSession, MANAGER } from './toplevels.js';
export { WLROOTS_MANIFEST } from './manifest.js';
