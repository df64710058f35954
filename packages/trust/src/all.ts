import type { TrustLayer } from '@hypruse/core';

/** The one list of built-in trust layers (ordered at run time by TRUST_ORDER). */
export const ALL_LAYERS: TrustLayer[] = [];
