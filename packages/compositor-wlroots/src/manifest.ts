import type { CompositorManifest } from '@hypruse/core';

/** A wlroots-family compositor reached through standard Wayland protocols only (no IPC socket). */
export const WLROOTS_MANIFEST: CompositorManifest = {
  id: 'wlroots',
  displayName: 'wlroots compositor',
  envVars: ['WAYLAND_DISPLAY'],
  sockets: '$XDG_RUNTIME_DIR/$WAYLAND_DISPLAY offering zwlr_foreign_toplevel_manager_v1',
  // workspace: where the display offers ext-workspace-v1
  capabilities: ['focus', 'close', 'fullscreen', 'events', 'workspace'],
  bindingSyntax: "the compositor's own configuration (no Wayland protocol lists or runs key bindings)",
};
