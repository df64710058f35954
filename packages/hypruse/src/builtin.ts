import type { HyprusePlugin } from '@hypruse/core';
import { hyprlandPlugin } from '@hypruse/compositor-hyprland';
import { swayPlugin } from '@hypruse/compositor-sway';
import { niriPlugin } from '@hypruse/compositor-niri';
import { wlrootsPlugin } from '@hypruse/compositor-wlroots';
import { waylandPlugin } from '@hypruse/wayland';
import { a11yPlugin } from '@hypruse/a11y';
import { toolsPlugin } from '@hypruse/tools';
import { trustPlugin } from '@hypruse/trust';

/**
 * The default plugin set of the distribution, in detection order (Hyprland first). The protocols-only
 * plugin comes after every compositor with IPC: it is chosen only where none of them is found.
 */
export const BUILTIN_PLUGINS: HyprusePlugin[] = [hyprlandPlugin, swayPlugin, niriPlugin, wlrootsPlugin, waylandPlugin, a11yPlugin, toolsPlugin, trustPlugin];
