import { PLUGIN_API_VERSION, Tokens, definePlugin, type HypruseConfig, type Logger } from '@hypruse/core';
import { instanceCachingFactory } from 'tsyringe';
import { AtspiAccessibility } from './atspi-accessibility.js';
import { AppFamilyTable } from './app-families.js';

/** Registers the AT-SPI accessibility backend (one instance per container, created on first use) and the application-family table. */
export const a11yPlugin = definePlugin({
  name: 'a11y',
  apiVersion: PLUGIN_API_VERSION,
  register(container) {
    container.register(Tokens.Accessibility, {
      useFactory: instanceCachingFactory((c) => {
        const config = c.resolve<HypruseConfig>(Tokens.Config);
        const logger = c.isRegistered(Tokens.Logger, true) ? c.resolve<Logger>(Tokens.Logger) : undefined;
        const env = c.isRegistered(Tokens.SessionEnv, true) ? c.resolve<NodeJS.ProcessEnv>(Tokens.SessionEnv) : process.env;
        return new AtspiAccessibility({ env, timeoutMs: config.a11y.timeoutMs, maxNodes: config.a11y.maxNodes, switches: config.a11y.switches, logger });
      }),
    });
    container.register(Tokens.AppFamilies, { useValue: new AppFamilyTable() });
  },
});
