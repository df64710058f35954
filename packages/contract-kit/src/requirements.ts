import type { CompositorCapability } from '@hypruse/core';

/**
 * The compositor contract, one id per behaviour. `capability: null` means
 * every plugin must pass it. With a capability, a plugin that declares it
 * must pass; one that does not must answer as `absent` says:
 * - `unsupported`: the corresponding method throws UnsupportedError (category `unsupported`);
 * - `null`: the contract has an honest "cannot tell" value (`null`, or for the
 *   cursor a position marked `source: 'hypruse'`) and the plugin must give it
 *   (a thrown UnsupportedError is also accepted where the method can throw).
 */
export interface Requirement {
  id: string;
  capability: CompositorCapability | null;
  absent: 'unsupported' | 'null';
  description: string;
}

const R = (id: string, capability: CompositorCapability | null, description: string, absent: Requirement['absent'] = 'unsupported'): Requirement => ({
  id, capability, absent, description,
});

export const REQUIREMENTS = [
  R('C-MANIFEST', null, "the factory declares a manifest: the compositor's id and display name, its socket variables, a binding syntax, and every capability the compositor declares"),
  R('C-VERSION', null, 'version() names the compositor and its version'),
  R('C-UNSUPPORTED-REASON', null, 'every capability not declared has a one-line reason from unsupportedReason()'),
  R('C-SNAPSHOT-MONITORS', null, 'snapshot() lists monitors with logical geometry, scale > 0, exactly one focused, and an active workspace that exists'),
  R('C-SNAPSHOT-WINDOWS', null, 'a window opened outside hypruse shows in snapshot() with its pid, class, title, an existing workspace and a geometry on a monitor'),
  R('C-SNAPSHOT-ACTIVE', null, 'activeWindow is the one window marked focused (or null when none is)'),
  R('C-EVENTS-OPEN-CLOSE', 'events', 'a subscription sees window_open and window_close for a window, by address'),
  R('C-EVENTS-RECONNECT', 'events', 'after the server drops the event connection, the same subscription keeps delivering events'),
  R('C-EVENTS-RESYNC', 'events', 'after the event connection drops, the subscription delivers one typed `resync` event (the one name for "events may be missing")'),
  R('C-WAIT-CLOSE-BY-TITLE', 'events', 'a wait for window_close matching a title ends on the close of the window that had that title (close events carry only an address)'),
  R('C-WAIT-OPEN-LATE-TITLE', 'events', 'a wait for window_open matching a title ends when a new window gets that title after it opened'),
  R('C-WAIT-RESYNC', 'events', 'a window_close wait re-checks a fresh snapshot on resync: a window closed while the event connection was down ends the wait'),
  R('C-FOCUS', 'focus', 'focusWindow(address) makes that window the active window'),
  R('C-WORKSPACE', 'workspace', 'switchWorkspace(name) makes it the active workspace'),
  R('C-MOVE-SILENT', 'move', 'moveToWorkspace(address, ws, silent=true) moves the window without changing the active workspace'),
  R('C-CLOSE-AWAIT', 'close', 'closeWindow(address) resolves `closed` once the window is gone'),
  R('C-FULLSCREEN', 'fullscreen', 'toggleFullscreen(address) turns fullscreen on, and off again'),
  R('C-FLOATING', 'floating', 'toggleFloating(address) flips floating, and back'),
  R('C-CURSOR-SET', 'cursor.set', 'moveCursor(point) positions the pointer; the snapshot cursor then reports that point'),
  R('C-CURSOR-READ', 'cursor.read', 'snapshot().cursor is read from the compositor (source `compositor`)', 'null'),
  R('C-LAUNCH-OWN-WINDOW', 'launch', "launch(cmd, {workspace}) returns the launched process's own window (not a concurrent stranger) on the requested workspace"),
  R('C-LAUNCH-SAME-CLASS-DECOY', 'launch', 'a window of the same class and title opened by someone else during launch() is never taken for the launched one'),
  R('C-LAUNCH-TIMEOUT', 'launch', 'launch() of a command that opens no window returns window: null after the timeout, not an error or a hang'),
  R('C-LAUNCH-UNSEEN', 'launch.unseen', "launch(cmd, {unseen}) opens the process's window on the agent's workspace (named in the result) while the active workspace and the focused window stay as they were"),
  R('C-LAUNCH-UNSEEN-LATER', 'launch.unseen.later', "a window the process launched with {unseen} opens 2 s after its first also opens on the agent's workspace, while the active workspace and the focused window stay as they were"),
  R('C-BINDS', 'binds', 'binds() lists key bindings with a combo and an action'),
  R('C-RUN-BIND', 'bind.run', 'runBind() executes a bind\'s action through the compositor (a workspace switch)'),
  R('C-LOCK-READ', 'lock.read', 'locked() returns true/false', 'null'),
  R('C-LAYERS', 'layers', 'snapshot().layers is a list of layer surfaces', 'null'),
  R('C-TAG', 'tag', "tagWindow(address, tag) attaches a tag that shows in the window's extra data"),
  R('C-NOTIFY', 'notify', 'notify(message, ms) shows a notice'),
  R('C-BAD-ADDRESS', null, 'a malformed address is usage.address; a closed window\'s address is not_found.window; both answered quickly'),
  R('C-BAD-WORKSPACE', null, 'a workspace name with quotes, separators or a newline is refused with a typed usage (or not_found) error, quickly'),
] as const satisfies readonly Requirement[];

/** Every capability of the contract (kept in step with CompositorCapability by the type below). */
export const ALL_CAPABILITIES = [
  'layers', 'cursor.read', 'cursor.set', 'lock.read', 'tag', 'notify', 'binds', 'bind.run', 'launch', 'launch.unseen', 'launch.unseen.later', 'fullscreen', 'floating', 'close', 'move',
  'focus', 'workspace', 'events', 'capture.toplevel',
] as const satisfies readonly CompositorCapability[];
type MissingCapability = Exclude<CompositorCapability, (typeof ALL_CAPABILITIES)[number]>;
// Compile error here means a capability was added to the contract but not to ALL_CAPABILITIES.
export const CAPABILITIES_COMPLETE: MissingCapability extends never ? true : never = true;

export type RequirementId = (typeof REQUIREMENTS)[number]['id'];

export const REQUIREMENT_IDS: readonly RequirementId[] = REQUIREMENTS.map((r) => r.id);

export function requirement(id: RequirementId): Requirement {
  return REQUIREMENTS.find((r) => r.id === id)!;
}
