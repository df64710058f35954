// Contract target: the protocols-only wlroots plugin against real sway 1.12 in the real-compositor
// guest, through the Wayland protocols alone (tests/real/support/wlroots-target.ts).
import { realWlrootsTarget } from '../../real/support/wlroots-target.js';

export const target = realWlrootsTarget('real-wlroots-sway-1.12', 'sway');
