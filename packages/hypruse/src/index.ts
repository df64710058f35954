export { main } from './cli.js';
export { createSession, releaseInput } from './session.js';
export type { Session, SessionOptions } from './session.js';
export { BUILTIN_PLUGINS } from './builtin.js';
export { loadPlugin, orderPlugins } from './plugins.js';
export { VERSION } from './version.js';
export { COMMANDS } from './commands/index.js';
export type { Command } from './commands/types.js';
// The plugin API, for third-party plugins that depend on the `hypruse` package.
export {
  definePlugin, defineTool, result, Tokens, PLUGIN_API_VERSION, HypruseError, UsageError, NotFoundError, TrustError, UnsupportedError, TRUST_ORDER,
} from '@hypruse/core';
export type { HyprusePlugin, ToolDefinition, TrustLayer, Compositor, CompositorFactory, CompositorManifest, Desktop, Window } from '@hypruse/core';
// The compositor kit (docs/plugins.md): what every compositor plugin shares.
export {
  unixRequest, connectUnix, LineSplitter, REQUEST_TIMEOUT_MS, CONNECT_TIMEOUT_MS, MAX_REPLY_BYTES, EventHub, RECONNECT_DELAYS_MS, isSocket, liveSockets, waylandDisplay,
  discoveredEnv, LAYER_KINDS, classifyLayer, CapabilityTable, logicalSize, exactScale, launchAndPlace, awaitLaunchedWindow, closeAndConfirm, EventQueue, startLaunch, runtimeDir,
} from '@hypruse/core';
export type { EventSource, StreamConnection, Peer, CompositorEnv, CompositorCapability, DetectResult, DesktopEvent, EventSubscription, LayerKind } from '@hypruse/core';
