import type { CompositorManifest } from '@hypruse/core';

/** What the niri plugin declares: read by the distribution, doctor and the tools (they name no compositor themselves). */
export const NIRI_MANIFEST: CompositorManifest = {
  id: 'niri',
  displayName: 'niri',
  envVars: ['NIRI_SOCKET'],
  sockets: '$XDG_RUNTIME_DIR/niri.<display>.<pid>.sock (the one of WAYLAND_DISPLAY, else the newest)',
  capabilities: ['layers', 'launch', 'fullscreen', 'floating', 'close', 'move', 'focus', 'workspace', 'events'],
  bindingSyntax: 'binds { Mod+Return { spawn "foot"; } } in ~/.config/niri/config.kdl',
  addressExample: '42',
};
