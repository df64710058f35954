import type { HyprusePlugin } from '@hypruse/core';
import { hyprlandPlugin } from '@hypruse/compositor-hyprland';
import { swayPlugin } from '@hypruse/compositor-sway';
import { niriPlugin } from '@hypruse/compositor-niri';
import { waylandPlugin } from '@hypruse/wayland';
import { a11yPlugin } from '@hypruse/a11y';
import { toolsPlugin } from '@hypruse/tools';
import { trustPlugin } from '@hypruse/trust';

/** The default plugin set of the distribution, in detection order (Hyprland first). */
export const BUILTIN_PLUGINS: HyprusePlugin[] = [hyprlandPlugin, swayPlugin, niriPlugin, waylandPlugin, a11yPlugin, toolsPlugin, trustPlugin];
