import type { Accessibility } from './contracts/accessibility.js';
import type { AppFamilies } from './contracts/app-families.js';
import type { Capture, Imaging } from './contracts/capture.js';
import type { Clipboard } from './contracts/clipboard.js';
import type { Compositor, CompositorFactory, CompositorManifest } from './contracts/compositor.js';
import type { Input } from './contracts/input.js';
import type { Presence } from './contracts/presence.js';
import type { Indicator } from './contracts/indicator.js';
import type { AnyTool } from './contracts/tool.js';
import type { TrustLayer } from './contracts/trust.js';
import type { HypruseConfig } from './config/schema.js';
import type { Logger } from './logger.js';

/** A typed injection token; the interface and its token share one name. */
export type Token<T> = symbol & { readonly __type?: T };

function token<T>(name: string): Token<T> {
  return Symbol.for(`hypruse.${name}`) as Token<T>;
}

export const Tokens = {
  Config: token<HypruseConfig>('Config'),
  Logger: token<Logger>('Logger'),
  CompositorFactory: token<CompositorFactory>('CompositorFactory'),
  Compositor: token<Compositor>('Compositor'),
  /** The selected compositor's manifest (registered when its plugin declares one). */
  CompositorManifest: token<CompositorManifest>('CompositorManifest'),
  Input: token<Input>('Input'),
  Capture: token<Capture>('Capture'),
  Imaging: token<Imaging>('Imaging'),
  Accessibility: token<Accessibility>('Accessibility'),
  Clipboard: token<Clipboard>('Clipboard'),
  ToolPlugin: token<AnyTool>('ToolPlugin'),
  TrustLayer: token<TrustLayer>('TrustLayer'),
  /**
   * The session environment: the host's, with what compositor discovery found
   * on top (WAYLAND_DISPLAY, the compositor socket, XDG_RUNTIME_DIR). Every
   * backend reads this, never process.env (a host may strip the environment).
   */
  SessionEnv: token<NodeJS.ProcessEnv>('SessionEnv'),
  Presence: token<Presence>('Presence'),
  /** The on-screen indicator (click-through surfaces while the agent acts). */
  Indicator: token<Indicator>('Indicator'),
  /** Application families (toolkits, engines): the environment and switches a launched app needs. */
  AppFamilies: token<AppFamilies>('AppFamilies'),
} as const;
