export { AtspiAccessibility } from './atspi-accessibility.js';
export type { AtspiAccessibilityOptions } from './atspi-accessibility.js';
export { a11yPlugin } from './plugin.js';
export { normalizeName, nameContains, matchByName } from './match.js';
export { collectElements, toElement, isActionable, isSkeleton, boxProblem } from './elements.js';
export type { ElementFilter } from './elements.js';
export { pickWindow } from './window-matcher.js';
export { decodeStates, Role, ACTIONABLE_ROLES } from './atspi-constants.js';
export type { RawNode, NodeRef } from './tree-reader.js';
