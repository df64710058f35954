import { definePlugin, PLUGIN_API_VERSION, Tokens } from '@hypruse/core';
import { SwayCompositorFactory } from './factory.js';

export const swayPlugin = definePlugin({
  name: 'compositor-sway',
  apiVersion: PLUGIN_API_VERSION,
  register(container) {
    container.register(Tokens.CompositorFactory, { useValue: new SwayCompositorFactory() });
  },
});
