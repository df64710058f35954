import { definePlugin, PLUGIN_API_VERSION, Tokens, type TrustLayer } from '@hypruse/core';
import { ALL_LAYERS } from './all.js';

export { ALL_LAYERS };

/** Registers every built-in trust layer into the session container. */
export const trustPlugin = definePlugin({
  name: 'trust',
  apiVersion: PLUGIN_API_VERSION,
  register(container) {
    for (const layer of ALL_LAYERS) container.register<TrustLayer>(Tokens.TrustLayer, { useValue: layer });
  },
});
