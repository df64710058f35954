import { PLUGIN_API_VERSION, Tokens, definePlugin } from '@hypruse/core';
import { HyprlandCompositorFactory } from './hyprland-compositor-factory.js';

export const hyprlandPlugin = definePlugin({
  name: 'compositor-hyprland',
  apiVersion: PLUGIN_API_VERSION,
  register(c) {
    c.register(Tokens.CompositorFactory, { useValue: new HyprlandCompositorFactory() });
  },
});
