import { PLUGIN_API_VERSION, Tokens, definePlugin } from '@hypruse/core';
import { WlrootsCompositorFactory } from './factory.js';

export const wlrootsPlugin = definePlugin({
  name: 'compositor-wlroots',
  apiVersion: PLUGIN_API_VERSION,
  register(c) {
    c.register(Tokens.CompositorFactory, { useValue: new WlrootsCompositorFactory() });
  },
});
