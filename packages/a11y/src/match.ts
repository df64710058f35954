/**
 * Name matching for `ui(name=...)` and `click_ui(name=...)`: names are
 * compared normalized (case folded, accents removed, whitespace collapsed),
 * and exact matches win over substring matches.
 */

/** Normalize a name for comparison: NFKD, accents stripped, case folded, whitespace collapsed and trimmed. */
export function normalizeName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[\s\u00a0\u200b]+/gu, ' ')
    .trim();
}

/** True when `name` contains `query` once both are normalized (an empty query matches everything). */
export function nameContains(name: string, query: string): boolean {
  const q = normalizeName(query);
  return q === '' || normalizeName(name).includes(q);
}

/**
 * Candidates for `name`: the elements whose normalized name equals the
 * normalized query if there are any (`exact: true`), else those that
 * contain it. Order of `elements` (tree order) is kept.
 */
export function matchByName<T extends { name: string }>(elements: readonly T[], name: string): { pool: T[]; exact: boolean } {
  const q = normalizeName(name);
  if (q === '') return { pool: [], exact: false };
  const exact: T[] = [];
  const partial: T[] = [];
  for (const el of elements) {
    const n = normalizeName(el.name);
    if (n === q) exact.push(el);
    else if (n.includes(q)) partial.push(el);
  }
  return exact.length > 0 ? { pool: exact, exact: true } : { pool: partial, exact: false };
}
