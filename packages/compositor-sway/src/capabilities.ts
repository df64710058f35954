import { CapabilityTable } from '@hypruse/core';

/** What the sway plugin does over IPC (sway 1.7+), and one honest line per capability sway lacks. */
export function swayCapabilities(): CapabilityTable {
  return new CapabilityTable('sway', ['cursor.set', 'tag', 'binds', 'bind.run', 'launch', 'launch.unseen', 'launch.unseen.later', 'fullscreen', 'floating', 'close', 'move', 'focus', 'workspace', 'events'], {
    layers: "sway's IPC does not list layer-shell surfaces",
    'cursor.read': 'no sway IPC request returns the pointer position; hypruse reports where it last put the cursor',
    'lock.read': 'sway cannot tell over IPC whether an ext-session-lock client has locked the session',
    notify: "sway has no on-screen notification command (that is a notification daemon's job)",
    'capture.toplevel': 'this sway names no window for ext-foreign-toplevel capture (no foreign_toplevel_identifier in its tree, sway < 1.12), so grim cannot capture a single window; window shots are crops of the output',
  });
}
