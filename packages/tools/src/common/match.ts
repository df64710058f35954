/** Normalize a control name for matching: case, accents and whitespace do not matter. */
export function normalizeName(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[_&]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Exact normalized matches win over substring matches. */
export function pickByName<T extends { name: string }>(items: T[], name: string): { pool: T[]; exact: boolean } {
  const want = normalizeName(name);
  const exact = items.filter((i) => normalizeName(i.name) === want);
  if (exact.length) return { pool: exact, exact: true };
  return { pool: items.filter((i) => normalizeName(i.name).includes(want)), exact: false };
}
