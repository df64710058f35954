import { PLUGIN_API_VERSION, Tokens, defaultConfig, type CompositorFactory, type HyprusePlugin } from '@hypruse/core';

/**
 * The compositor factory a plugin registers, taken the way hypruse takes it
 * (through `register`, with the default config): what a contract target
 * creates its compositor from. Throws when the plugin declares another API
 * version or registers no compositor (or several, without `id`).
 */
export async function factoryOf(plugin: HyprusePlugin | { default: HyprusePlugin }, id?: string): Promise<CompositorFactory> {
  const p = 'default' in plugin ? plugin.default : plugin;
  if (p.apiVersion !== PLUGIN_API_VERSION) throw new Error(`plugin "${p.name}" declares API version ${p.apiVersion}; this hypruse implements ${PLUGIN_API_VERSION}`);
  const factories: CompositorFactory[] = [];
  const container = {
    register(token: symbol, provider: { useValue?: unknown }) {
      if (token === Tokens.CompositorFactory && provider.useValue) factories.push(provider.useValue as CompositorFactory);
      return container;
    },
  } as unknown as Parameters<HyprusePlugin['register']>[0];
  await p.register(container, { config: defaultConfig(), baseDir: process.cwd() });
  const chosen = id ? factories.filter((f) => f.id === id) : factories;
  if (chosen.length !== 1) {
    throw new Error(`plugin "${p.name}" registers ${factories.length ? `the compositors ${factories.map((f) => f.id).join(', ')}` : 'no compositor factory'}${id ? `; wanted ${id}` : ''}`);
  }
  return chosen[0];
}
