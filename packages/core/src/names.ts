/**
 * Name matching for elements (`ui name=`, `click_ui name=`, every tool that
 * takes an element by name): one normalization and one ranking shared by the
 * accessibility backend and the tools.
 */

/** Normalize a name for comparison: NFKD, accents stripped, case folded, mnemonic markers (`_`, `&`) dropped, whitespace collapsed and trimmed. */
export function normalizeName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[_&]/g, '')
    .replace(/[\s\u00a0\u200b]+/gu, ' ')
    .trim();
}

/**
 * A name that repeats one of its children's names ("Cancel Cancel" for a button whose label child
 * is "Cancel": GTK 4.8 joins the button's own label-derived name and its child's), as that child's
 * name. Only whole repetitions of a child's name collapse, so a name like "Bora Bora" stays unless
 * a child is named "Bora".
 */
export function collapseRepeatedName(name: string, childNames: readonly string[]): string {
  const words = name.trim().split(/\s+/u);
  const n = words.length;
  for (let len = 1; len <= n / 2; len++) {
    if (n % len !== 0) continue;
    const unit = words.slice(0, len).join(' ');
    let repeats = true;
    for (let i = len; i < n && repeats; i += len) repeats = words.slice(i, i + len).join(' ') === unit;
    if (!repeats) continue;
    const u = normalizeName(unit);
    return childNames.some((c) => normalizeName(c) === u) ? unit : name;
  }
  return name;
}

/** Short names for AT-SPI roles, the same across toolkits (GTK 3 "push button" and GTK 4 "button" are both `button`). */
export const ROLE_SHORT: Readonly<Record<string, string>> = {
  'push button': 'button',
  'toggle button': 'toggle',
  'radio button': 'radio',
  'check box': 'checkbox',
  'combo box': 'combo',
  'spin button': 'spin',
  'page tab': 'tab',
  'page tab list': 'tabs',
  'password text': 'password',
  'table cell': 'cell',
  'table column header': 'column header',
  'table row header': 'row header',
  'text box': 'entry',
  'list item': 'item',
  'tree item': 'item',
};

const ROLE_KEYS: Record<string, string> = Object.fromEntries(
  Object.entries(ROLE_SHORT).flatMap(([long, short]) => [[long.replace(/\s+/g, ''), short.replace(/\s+/g, '')]]),
);

/**
 * A role as written by an agent or by AT-SPI ("check box", "checkbox", "Check_Box", "button"), as one
 * comparison key: case, spaces, dashes and underscores ignored, and a role's short name equal to it
 * (`button` = `push button`, `entry` = `text box`; `entry` also names editable `text`, see roleMatches in the tools).
 */
export function normalizeRole(role: string): string {
  const k = role.toLowerCase().replace(/[\s_-]+/g, '');
  return ROLE_KEYS[k] ?? k;
}

/** True when `name` contains `query` once both are normalized (an empty query matches everything). */
export function nameContains(name: string, query: string): boolean {
  const q = normalizeName(query);
  return q === '' || normalizeName(name).includes(q);
}

/** How a pool of candidates was found: the whole name, a part of it, or every word of the query in any order. */
export type NameMatchKind = 'exact' | 'substring' | 'words' | 'none';

/**
 * Candidates for `name`, best kind first: elements whose normalized name
 * equals the query; else those containing it; else those containing every
 * word of it in any order. Tree order is kept within the pool.
 */
export function matchNames<T extends { name: string }>(elements: readonly T[], name: string): { pool: T[]; kind: NameMatchKind } {
  const q = normalizeName(name);
  if (q === '') return { pool: [], kind: 'none' };
  const exact: T[] = [];
  const partial: T[] = [];
  const words: T[] = [];
  const qWords = q.split(' ');
  for (const el of elements) {
    const n = normalizeName(el.name);
    if (n === q) exact.push(el);
    else if (n.includes(q)) partial.push(el);
    else if (qWords.length > 1 && qWords.every((w) => n.includes(w))) words.push(el);
  }
  if (exact.length) return { pool: exact, kind: 'exact' };
  if (partial.length) return { pool: partial, kind: 'substring' };
  if (words.length) return { pool: words, kind: 'words' };
  return { pool: [], kind: 'none' };
}

/** Exact normalized matches win over substring matches (the older two-kind form of matchNames, without word matching). */
export function matchByName<T extends { name: string }>(elements: readonly T[], name: string): { pool: T[]; exact: boolean } {
  const q = normalizeName(name);
  if (q === '') return { pool: [], exact: false };
  const exact = elements.filter((el) => normalizeName(el.name) === q);
  if (exact.length) return { pool: exact, exact: true };
  return { pool: elements.filter((el) => normalizeName(el.name).includes(q)), exact: false };
}

/** Edit distance with adjacent transpositions (optimal string alignment): a swapped pair of letters is one typo. */
function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  let prev2: number[] = [];
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const cur = [i];
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2] + 1);
      cur.push(v);
    }
    prev2 = prev;
    prev = cur;
  }
  return prev[n];
}

function wordSimilarity(a: string, b: string): number {
  return 1 - editDistance(a, b) / Math.max(a.length, b.length, 1);
}

/**
 * Similarity of a name to a query in 0..1 on the normalized forms: 1 when equal, 0.9 when one
 * contains the other, else the better of the whole-string edit similarity and the mean over the
 * query's words of their best match among the name's words (typos and word order both count little).
 */
export function nameSimilarity(name: string, query: string): number {
  // bounded, so a miss over thousands of long names stays cheap
  const x = normalizeName(name).slice(0, 64);
  const y = normalizeName(query).slice(0, 64);
  if (x === '' || y === '') return 0;
  if (x === y) return 1;
  if (x.includes(y) || y.includes(x)) return 0.9;
  const whole = wordSimilarity(x, y);
  const xw = x.split(' ');
  const yw = y.split(' ');
  const words = yw.reduce((sum, w) => sum + Math.max(...xw.map((v) => wordSimilarity(v, w))), 0) / yw.length;
  return Math.max(whole, 0.85 * words);
}

/**
 * The up to `max` named elements closest to `name` (most similar first, ties in tree order),
 * for "did you mean" in a miss. Names with no resemblance at all are left out; each name once.
 */
export function closestNames<T extends { name: string }>(elements: readonly T[], name: string, max = 5): T[] {
  const seen = new Set<string>();
  const scored: Array<{ el: T; s: number; i: number }> = [];
  elements.forEach((el, i) => {
    const n = normalizeName(el.name);
    if (n === '' || seen.has(n)) return;
    const s = nameSimilarity(el.name, name);
    if (s < 0.5) return;
    seen.add(n);
    scored.push({ el, s, i });
  });
  scored.sort((a, b) => b.s - a.s || a.i - b.i);
  return scored.slice(0, max).map((x) => x.el);
}
