import type { DependencyContainer } from 'tsyringe';
import type { HypruseConfig } from '../config/schema.js';

/** The plugin API version this hypruse implements. A plugin declaring another major is refused. */
export const PLUGIN_API_VERSION = 1;

export interface PluginContext {
  config: HypruseConfig;
  /** Directory of the config file that named the plugin (relative paths resolve here). */
  baseDir: string;
}

/**
 * A hypruse plugin: compositor factories, tools or trust layers registered
 * into the session container through `register`, never by import side effects.
 */
export interface HyprusePlugin {
  name: string;
  apiVersion: number;
  /** Names of plugins that must be registered first. */
  dependsOn?: string[];
  register(container: DependencyContainer, ctx: PluginContext): void | Promise<void>;
}

export function definePlugin(p: HyprusePlugin): HyprusePlugin {
  return p;
}
