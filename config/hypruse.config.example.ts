// Copy to hypruse.config.ts (or ~/.config/hypruse/config.ts). Every key is
// optional; HYPRUSE_* environment variables override what is set here.
// Reference: docs/configuration.md; JSON schema: config/hypruse.schema.json.
import { defineConfig } from 'hypruse/config';

export default defineConfig({
  // compositor: 'auto',            // or 'hyprland' | 'sway' | 'niri'
  screenshot: {
    mode: 'file',                   // 'image' for hosts that show inline images (Claude Desktop)
    maxImageBytes: 700_000,
    maxImageEdge: 1568,
  },
  authGuard: 'on',                  // 'strict' also refuses typing into password fields
  confine: [],                      // e.g. ['launched'] or ['class:firefox', 'workspace:3']
  strict: false,                    // refuse when you moved the cursor/focus since hypruse looked
  mark: false,                      // tag and border windows hypruse launched (Hyprland)
  journal: { path: null, text: false },
  monitor: { serve: false, fps: 3 }, // serve: the MCP server also serves the monitor page (address printed once on stderr)
  dangerous: { extra: ['Transfer', 'Wipe'] },
  policy: { 'org.keepassxc.KeePassXC': 'view' },
  plugins: [],                      // e.g. ['hypruse-plugin-river', './my-plugin.ts']
});
