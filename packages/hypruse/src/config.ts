// `import { defineConfig } from 'hypruse/config'` in hypruse.config.ts: types for every key.
export { defineConfig, defaultConfig } from '@hypruse/core';
export type { HypruseConfig, HypruseConfigInput } from '@hypruse/core';
