import type { CompositorManifest } from '@hypruse/core';

/** What the Hyprland plugin declares: read by the distribution, doctor and the tools (they name no compositor themselves). */
export const HYPRLAND_MANIFEST: CompositorManifest = {
  id: 'hyprland',
  displayName: 'Hyprland',
  envVars: ['HYPRLAND_INSTANCE_SIGNATURE'],
  sockets: '$XDG_RUNTIME_DIR/hypr/<signature>/.socket.sock and .socket2.sock (the instance whose hyprland.lock names a live pid)',
  capabilities: [
    'layers', 'cursor.read', 'cursor.set', 'lock.read', 'tag', 'notify', 'binds', 'bind.run', 'launch', 'launch.unseen', 'fullscreen',
    'floating', 'close', 'move', 'focus', 'workspace', 'events', 'capture.toplevel',
  ],
  bindingSyntax: 'bind = SUPER, Return, exec, foot in ~/.config/hypr/hyprland.conf (hl.bind(...) in a Lua config)',
  wmToolName: 'hypr',
  addressExample: '0x55d1c9a0',
  // its own dialogs (permission prompt, app-not-responding, safe mode) share one class
  promptClasses: ['hyprland-dialog', 'org.hyprland.hyprland-dialog'],
};
