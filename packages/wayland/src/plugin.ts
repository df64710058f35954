import { instanceCachingFactory } from 'tsyringe';
import { definePlugin, PLUGIN_API_VERSION, Tokens, type HypruseConfig, type Logger } from '@hypruse/core';
import { WaylandInput } from './input/index.js';
import { GrimCapture, ScreencopyCapture, SharpImaging, WlClipboard } from './capture/index.js';

/** Input (virtual pointer/keyboard), capture (grim), the sharp image pipeline and the clipboard. Nothing connects until first use. */
export const waylandPlugin = definePlugin({
  name: 'wayland',
  apiVersion: PLUGIN_API_VERSION,
  register(c) {
    const env = () => (c.isRegistered(Tokens.SessionEnv, true) ? c.resolve<NodeJS.ProcessEnv>(Tokens.SessionEnv) : process.env);
    c.register(Tokens.Input, {
      useFactory: instanceCachingFactory(
        (r) => new WaylandInput({ env: env(), keyboard: r.resolve<HypruseConfig>(Tokens.Config).input.keyboard, logger: r.resolve<Logger>(Tokens.Logger) }),
      ),
    });
    // in-process wlr-screencopy (fd passing through the native addon), grim for what it cannot do
    c.register(Tokens.Capture, {
      useFactory: instanceCachingFactory((r) => {
        const logger = r.resolve<Logger>(Tokens.Logger);
        return new ScreencopyCapture({ env: env(), fallback: new GrimCapture({ env: env(), logger }), logger });
      }),
    });
    c.register(Tokens.Imaging, { useFactory: instanceCachingFactory(() => new SharpImaging()) });
    c.register(Tokens.Clipboard, { useFactory: instanceCachingFactory(() => new WlClipboard({ env: env() })) });
  },
});
