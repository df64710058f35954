import { displayRole } from './elements.js';
import type { UiItem } from './ui-read.js';

/**
 * The compact, hierarchical form of a window's elements, as `ui` prints it by default:
 * one space of indent per level; roles by their short names (`button` for push button, `checkbox`,
 * `entry` for an editable one-line text; the role filter takes either); nameless wrappers are not read at all, and named containers
 * appear only as headers of what is listed under them; sibling leaves of one role share one line
 * (`radio button ×3: [1] "Page 1" checked [2] "Page 2" [3] "Page 3"`); what a role implies is left out
 * (no points: act by id; no "unchecked": a check box without `checked` is unchecked; a field
 * without `= "..."` is empty; `disabled` for a control that cannot be used now). Values, checked,
 * focused and password are kept.
 */

export interface TreeOptions {
  /** Stop before the text grows past this many characters (0 = no cap); the last line says how to continue. */
  maxChars?: number;
  /** Start after the line holding this element id (the continuation of a capped answer). */
  after?: number;
}

export interface TreeText {
  lines: string[];
  /** Elements listed in `lines` (headers not counted). */
  shown: number;
  /** Elements left out by the cap. */
  left: number;
  /** The `after=` to pass for the rest, or 0 when nothing was left out. */
  next: number;
}

/** One rendered line: its text, the listed element ids on it, and the line index of its parent header. */
interface Line {
  text: string;
  ids: number[];
  listed: number;
  up: number;
}

function quote(s: string): string {
  return JSON.stringify(s);
}

/** A container named after its widget class (GTK 4 names unnamed widgets `AdwGizmo`, `GtkBox`): no header for it. */
const TYPE_NAME = /^(Gtk|Adw|Gizmo)[A-Z]?\w*$/;

/** Values longer than this are shown as their start (get_text reads the whole text). */
export const VALUE_PREVIEW = 40;

function preview(v: string): string {
  const line = v.split('\n')[0].trimEnd();
  return line.length > VALUE_PREVIEW || line.length < v.trimEnd().length ? `${quote(line.slice(0, VALUE_PREVIEW))}…` : quote(v);
}

/** What the compact form says about an element beyond its role and name (a field without `= ...` is empty). */
export function compactExtras(i: UiItem): string {
  const bits: string[] = [];
  if (i.password) {
    if (displayRole(i) !== 'password') bits.push('password');
  }
  else if (i.value !== undefined && i.value !== '') bits.push(`= ${typeof i.value === 'string' ? preview(i.value) : String(i.value)}${i.percent !== undefined ? ` (${i.percent}%)` : ''}`);
  if (i.checked) bits.push('checked');
  if (i.focused) bits.push('focused');
  if (!i.clickable && i.actionable) bits.push('disabled');
  return bits.join(' ');
}

function single(i: UiItem): string {
  const extra = compactExtras(i);
  return `[${i.id}] ${displayRole(i)}${i.name ? ` ${quote(i.name)}` : ''}${extra ? ` ${extra}` : ''}`;
}

function group(run: UiItem[]): string {
  const role = displayRole(run[0]);
  const sameName = run.every((i) => i.name === run[0].name);
  const parts = run.map((i) => {
    const extra = compactExtras(i);
    return `[${i.id}]${!sameName && i.name ? ` ${quote(i.name)}` : ''}${extra ? ` ${extra}` : ''}`;
  });
  return `${role}${sameName && run[0].name ? ` ${quote(run[0].name)}` : ''} ×${run.length}: ${parts.join(' ')}`;
}

function chunks(run: UiItem[], depth: number, cap: number): UiItem[][] {
  if (cap <= 0 || depth + group(run).length <= cap) return [run];
  const out: UiItem[][] = [];
  let cur: UiItem[] = [];
  for (const it of run) {
    if (cur.length && depth + group([...cur, it]).length > cap) {
      out.push(cur);
      cur = [];
    }
    cur.push(it);
  }
  if (cur.length) out.push(cur);
  return out;
}

/**
 * Render `listed` (elements of one read, in tree order) as the compact tree. Ancestors that are not
 * listed but carry a name become header lines; everything else unlisted is lifted away.
 */
export function renderTree(listed: UiItem[], opts: TreeOptions = {}): TreeText {
  const shown = new Set(listed);
  // headers: named, unlisted ancestors of listed elements
  const headers = new Set<UiItem>();
  for (const it of listed) {
    for (let u = it.up; u; u = u.up) {
      if (shown.has(u) || headers.has(u)) break;
      if (u.name.trim() !== '' && !TYPE_NAME.test(u.name)) headers.add(u);
    }
  }
  const shownParent = (it: UiItem): UiItem | null => {
    for (let u = it.up; u; u = u.up) if (shown.has(u) || headers.has(u)) return u;
    return null;
  };
  // children per displayed node, in tree order (listed comes in tree order; headers precede their descendants)
  const order = new Map<UiItem, number>();
  const all: UiItem[] = [];
  const visit = (it: UiItem) => {
    if (order.has(it)) return;
    const chain: UiItem[] = [];
    for (let u = it.up; u; u = u.up) if (headers.has(u) && !order.has(u)) chain.unshift(u);
    for (const h of chain) {
      order.set(h, all.length);
      all.push(h);
    }
    order.set(it, all.length);
    all.push(it);
  };
  for (const it of listed) visit(it);
  const kids = new Map<UiItem | null, UiItem[]>();
  for (const it of all) {
    const p = shownParent(it);
    const list = kids.get(p) ?? [];
    list.push(it);
    kids.set(p, list);
  }

  const lines: Line[] = [];
  const walk = (parent: UiItem | null, depth: number, upLine: number) => {
    const children = kids.get(parent) ?? [];
    for (let i = 0; i < children.length; ) {
      const it = children[i];
      const leaf = !kids.has(it) && shown.has(it);
      if (leaf) {
        let j = i + 1;
        while (j < children.length && displayRole(children[j]) === displayRole(it) && !kids.has(children[j]) && shown.has(children[j])) j++;
        if (j - i >= 2) {
          // under a cap, a long run is cut into lines that fit
          for (const run of chunks(children.slice(i, j), depth, opts.maxChars ?? 0)) {
            lines.push({ text: ' '.repeat(depth) + (run.length > 1 ? group(run) : single(run[0])), ids: run.map((r) => r.id), listed: run.length, up: upLine });
          }
          i = j;
          continue;
        }
      }
      const isListed = shown.has(it);
      lines.push({ text: ' '.repeat(depth) + (isListed ? single(it) : `[${it.id}] ${displayRole(it)} ${quote(it.name)}:`), ids: [it.id], listed: isListed ? 1 : 0, up: upLine });
      const me = lines.length - 1;
      if (kids.has(it)) walk(it, depth + 1, me);
      i++;
    }
  };
  walk(null, 0, -1);

  return capLines(lines, opts);
}

/** Apply `after` and `maxChars` to rendered lines. */
function capLines(lines: Line[], opts: TreeOptions): TreeText {
  let start = 0;
  const out: string[] = [];
  if (opts.after) {
    const at = lines.findIndex((l) => l.ids.includes(opts.after as number));
    start = at >= 0 ? at + 1 : lines.length;
    // the headers above the first line, so its indent still reads
    const chain: number[] = [];
    for (let u = start < lines.length ? lines[start].up : -1; u >= 0 && u < start; u = lines[u].up) chain.unshift(u);
    for (const c of chain) out.push(lines[c].text);
  }
  const cap = opts.maxChars ?? 0;
  let size = out.reduce((n, l) => n + l.length + 1, 0);
  let listedOut = 0;
  let last = 0;
  let i = start;
  for (; i < lines.length; i++) {
    const l = lines[i];
    if (cap > 0 && size + l.text.length + 1 > cap && listedOut > 0) break;
    out.push(l.text);
    size += l.text.length + 1;
    listedOut += l.listed;
    last = l.ids[l.ids.length - 1];
  }
  const left = lines.slice(i).reduce((n, l) => n + l.listed, 0);
  if (i < lines.length) out.push(`… ${left} more element(s): call ui again with after=${last}`);
  return { lines: out, shown: listedOut, left, next: i < lines.length ? last : 0 };
}

/** The flat list (one element a line, `line` renders it) under the same `after` and `maxChars` rules. */
export function renderFlat(listed: UiItem[], line: (i: UiItem) => string, opts: TreeOptions = {}): TreeText {
  return capLines(listed.map((i) => ({ text: line(i), ids: [i.id], listed: 1, up: -1 })), opts);
}
