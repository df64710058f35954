// Contract target: the protocols-only wlroots plugin against real labwc 0.20 in the real-compositor
// guest. labwc has no IPC: the plugin is the only way hypruse reaches it (tests/real/support/wlroots-target.ts).
import { realWlrootsTarget } from '../../real/support/wlroots-target.js';

export const target = realWlrootsTarget('real-wlroots-labwc-0.20', 'labwc');
