import type { AnyTool } from '@hypruse/core';

/** The one list of built-in tools, in the order they are listed to agents. */
export const ALL_TOOLS: AnyTool[] = [];
