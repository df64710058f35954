export { REQUEST_TIMEOUT_MS, CONNECT_TIMEOUT_MS, MAX_REPLY_BYTES, unixRequest, connectUnix, LineSplitter, type Peer, type UnixRequestOptions } from './unix.js';
export { EventHub, RECONNECT_DELAYS_MS, type EventSource, type StreamConnection } from './event-hub.js';
export { isSocket, liveSockets, waylandDisplay, discoveredEnv, type LiveSocket } from './discovery.js';
export { LAYER_KINDS, classifyLayer } from './layers.js';
export { CapabilityTable } from './capabilities.js';
export { launchAndPlace, type PlaceSteps } from './launch.js';
export { AGENT_WORKSPACE_PREFIX, descendantPids, followDescendants, heldCommand, heldExecs, isAgentWorkspace, releaseHeld } from './unseen.js';
