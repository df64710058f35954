import { definePlugin, PLUGIN_API_VERSION, Tokens, type AnyTool } from '@hypruse/core';
import { ALL_TOOLS } from './all.js';

export { ALL_TOOLS };

/** Registers every built-in tool into the session container. */
export const toolsPlugin = definePlugin({
  name: 'tools',
  apiVersion: PLUGIN_API_VERSION,
  register(container) {
    for (const tool of ALL_TOOLS) container.register<AnyTool>(Tokens.ToolPlugin, { useValue: tool });
  },
});
