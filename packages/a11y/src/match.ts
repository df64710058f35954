/**
 * Name matching for `ui(name=...)` and `click_ui(name=...)`: the one
 * normalization and ranking in core (case folded, accents and mnemonic
 * markers removed, whitespace collapsed; exact before substring before
 * all-words).
 */
export { normalizeName, nameContains, matchByName, matchNames } from '@hypruse/core';
