import type { CompositorManifest } from '@hypruse/core';

/** What the sway plugin declares: read by the distribution, doctor and the tools (they name no compositor themselves). */
export const SWAY_MANIFEST: CompositorManifest = {
  id: 'sway',
  displayName: 'sway',
  envVars: ['SWAYSOCK', 'I3SOCK'],
  sockets: '$XDG_RUNTIME_DIR/sway-ipc.<uid>.<pid>.sock (the newest whose sway is alive)',
  capabilities: ['cursor.set', 'tag', 'binds', 'bind.run', 'launch', 'launch.unseen', 'launch.unseen.later', 'fullscreen', 'floating', 'close', 'move', 'focus', 'workspace', 'events', 'capture.toplevel'],
  bindingSyntax: 'bindsym Mod4+Return exec foot (bindcode 36 for a raw keycode) in ~/.config/sway/config',
  addressExample: '42',
};
