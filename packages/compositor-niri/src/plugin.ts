import { PLUGIN_API_VERSION, Tokens, definePlugin } from '@hypruse/core';
import { NiriCompositorFactory } from './niri-compositor-factory.js';

export const niriPlugin = definePlugin({
  name: 'compositor-niri',
  apiVersion: PLUGIN_API_VERSION,
  register(c) {
    c.register(Tokens.CompositorFactory, { useValue: new NiriCompositorFactory() });
  },
});
