export { NiriCompositor, parseAddress, niriSessionEnv } from './niri-compositor.js';
export type { NiriCompositorOptions } from './niri-compositor.js';
export { NiriCompositorFactory, findNiriSocket } from './niri-compositor-factory.js';
export { niriPlugin } from './plugin.js';
export { NiriIpcClient, parseReply } from './ipc/niri-ipc-client.js';
export type { NiriRequestOptions, NiriEventStream, NiriEventStreamHandlers } from './ipc/niri-ipc-client.js';
export type {
  NiriOutput, NiriLogicalOutput, NiriWorkspace, NiriWindow, NiriWindowLayout, NiriLayerSurface, NiriRequest, NiriEvent, WorkspaceReference,
} from './ipc/types.js';
export { NiriEventHub } from './events/niri-event-hub.js';
export { NiriReplica } from './events/niri-replica.js';
export { toDesktop, toMonitors, toWorkspaces, toWindow, toLayers, workspaceName } from './model/to-desktop.js';
export type { NiriState } from './model/to-desktop.js';
export { windowPlacement } from './model/window-geometry.js';
export { layerKind, layerLevel } from './model/layer-kind.js';
export { resolveWorkspace } from './model/workspace-ref.js';
export { parseNiriBinds, niriBindKeys, niriConfigPath, readNiriBinds, NIRI_BIND_SYNTAX } from './model/binds.js';
export { NIRI_MANIFEST } from './manifest.js';
