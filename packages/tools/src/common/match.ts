/** Element name matching lives once in core; tools import it from here. */
export { normalizeName, normalizeRole, matchNames, closestNames, nameSimilarity, type NameMatchKind } from '@hypruse/core';
