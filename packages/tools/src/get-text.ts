import { z } from 'zod';
import { HypruseError, NotFoundError, Tokens, defineTool, fact, readingOrder, result, type ToolContext } from '@hypruse/core';
import { displayRole, elementArgs, readElements, resolveElement, type ElementRead } from './common/elements.js';
import { address, className } from './common/output.js';
import { normalizeName } from './common/match.js';
import type { UiItem } from './common/ui-read.js';

/** Characters one call returns unless `limit` says otherwise. */
export const TEXT_LIMIT = 10_000;

const getTextOutput = z.strictObject({
  window: address,
  class: className,
  id: z.number().int().optional(),
  role: fact(z.string()).optional(),
  text: z.string(),
  offset: z.number().int(),
  /** characters in the whole text */
  total: z.number().int(),
  /** the offset that continues, when more text follows */
  next_offset: z.number().int().optional(),
  /** password fields left out (never read) */
  passwords: z.number().int().optional(),
});

/** The text one element contributes when a window or a container is read: a field's text, else its name. */
function pieceOf(i: UiItem): string {
  if (i.password) return '';
  if (typeof i.value === 'string' && i.value !== '') return i.value;
  // an empty spreadsheet cell says nothing (its name is only its address)
  if (i.role === 'table cell' && i.value === '') return '';
  return i.name.trim();
}

/** The leaves under `root` (or of the whole read), with the text each shows. Containers speak through their leaves. */
function leavesUnder(read: ElementRead, root: UiItem | null): UiItem[] {
  const isUnder = (i: UiItem) => {
    if (!root) return true;
    for (let u = i.up; u; u = u.up) if (u === root) return true;
    return false;
  };
  const parents = new Set(read.items.map((i) => i.up).filter((u): u is UiItem => !!u));
  // labels that became a field's name are read as that field's name, not twice; a field that shows
  // its text (or a combo box its choice) does not say its name, so its label is read ("Color  Red")
  const naming = new Set(read.items.filter((i) => typeof i.labelledBy === 'number' && pieceOf(i) === i.name.trim()).map((i) => i.labelledBy as number));
  // what a container's descendants say: a container whose own name they do not repeat says it too
  // (a page tab holds its page, a named group its controls: "Alpha" before "Alpha page")
  const said = new Map<UiItem, string[]>();
  for (const i of read.items) {
    if (naming.has(i.id)) continue;
    const p = normalizeName(pieceOf(i));
    for (let u = i.up; u && p; u = u.up) said.set(u, [...(said.get(u) ?? []), p]);
  }
  const speaks = (i: UiItem) => {
    if (!parents.has(i) || (typeof i.value === 'string' && i.value !== '')) return true;
    const own = normalizeName(i.name);
    // a window's own name is its title (the answer's header says it)
    return own !== '' && !WINDOW_ROLES.has(i.role) && !(said.get(i) ?? []).includes(own);
  };
  return read.items.filter((i) => isUnder(i) && !naming.has(i.id) && speaks(i));
}

/** A document read as a whole: a web page (a browser lists the one on screen), a word processor's text (its paragraphs are its children). */
const DOCUMENT_ROLES: ReadonlySet<string> = new Set(['document web', 'document frame', 'document text']);

/** Roles of a window's own element, whose name is the window's title. */
const WINDOW_ROLES: ReadonlySet<string> = new Set(['frame', 'dialog', 'window', 'alert', 'file chooser']);

/** Whole text of the element's Text interface, or null when it has none. */
async function elementText(ctx: ToolContext, item: UiItem, offset: number, limit: number) {
  const a11y = ctx.services.get(Tokens.Accessibility);
  return a11y.textRange ? a11y.textRange(item.ref, { offset, limit }, ctx.signal) : null;
}

export const getTextTool = defineTool({
  name: 'get_text',
  title: 'Text of an element or window',
  effect: 'observe',
  description:
    "The text of one element (id, name or role from ui: a text field's or document's whole content) or, with no element, of the whole window: labels, field contents and control names in reading order (rows top to bottom, left to right). In a browser, the page on screen (headings, paragraphs, list items, table rows, links with their target), without the browser's own controls. Pages with `limit` (default 10,000 characters) and `offset`; `next_offset` says where the rest starts. Password fields are never read.",
  input: z
    .object({
      ...elementArgs,
      limit: z.number().int().min(1).max(100_000).default(TEXT_LIMIT).describe('Characters to return (1..100000, default 10000).'),
      offset: z.number().int().min(0).default(0).describe('Start at this character (from next_offset of the previous call).'),
    })
    .strict(),
  output: getTextOutput,
  cli: { positional: ['name'] },
  async handle(args, ctx) {
    if (!ctx.services.has(Tokens.Accessibility)) throw new HypruseError('error.a11y', 'no accessibility backend is installed');
    const wantsElement = Boolean(args.id || args.name.trim() || args.role.trim());
    // a page within the host's limit unless asked for less
    const budget = ctx.textBudget ?? 0;
    const limit = budget ? Math.min(args.limit, budget) : args.limit;
    let read: ElementRead;
    let item: UiItem | null = null;
    if (wantsElement) {
      const e = await resolveElement(ctx, args, { actionableOnly: false, purpose: 'reading its text', points: false });
      read = e.read;
      item = e.item;
    } else read = await readElements(ctx, args.window, { points: false });
    const w = read.window;
    const data: Record<string, unknown> = { window: w.address, class: w.class, ...(item ? { id: item.id, role: item.role } : {}) };
    const what = item ? `${displayRole(item)}${item.name ? ` "${item.name}"` : ''} [${item.id}]` : `${w.class} "${w.title}"`;

    // a web page: the document on screen, read as a person reads it (the browser's chrome only when
    // an element of it is asked for)
    const doc = item ? (DOCUMENT_ROLES.has(item.role) ? item : null) : read.items.find((i) => DOCUMENT_ROLES.has(i.role)) ?? null;
    const a11y = ctx.services.get(Tokens.Accessibility);
    if (doc && a11y.documentText) {
      const t = await a11y.documentText(doc.ref, ctx.signal);
      if (t && t.text !== '') {
        const docWhat = `${displayRole(doc)}${doc.name ? ` "${doc.name}"` : ''} [${doc.id}] in ${w.class} "${w.title}"`;
        return page(docWhat, t.text.slice(args.offset, args.offset + args.limit), args.offset, t.text.length, { ...data, id: doc.id, role: doc.role });
      }
    }
    if (item?.password) {
      throw new NotFoundError('not_found.element', `${what} is a password field: its text is never read`, { hint: 'ask the person, or read another element' });
    }
    // one element with a Text interface: read the range straight from the app, so long documents page cheaply
    if (item) {
      const t = await elementText(ctx, item, args.offset, limit);
      if (t?.password) throw new NotFoundError('not_found.element', `${what} is a password field: its text is never read`, { hint: 'ask the person, or read another element' });
      if (t && (t.total > 0 || leavesUnder(read, item).length === 0)) return page(what, t.text, args.offset, t.total, data, budget);
    }
    const leaves = leavesUnder(read, item);
    const passwords = leaves.filter((l) => l.password).length;
    // a field's text in the tree is a preview; read the whole of each long one
    const pieces = new Map<UiItem, string>();
    for (const l of leaves) {
      let p = pieceOf(l);
      if (typeof l.value === 'string' && l.value.endsWith('…')) {
        const full = await elementText(ctx, l, 0, 1_000_000).catch(() => null);
        if (full && !full.password) p = full.text;
      }
      if (p) pieces.set(l, p);
    }
    const rows = readingOrder([...pieces.keys()], (i) => i.extents).map((r) => r.map((i) => pieces.get(i)).join('  '));
    const all = rows.join('\n');
    if (passwords) data.passwords = passwords;
    if (!all) return result(`${what} shows no text`).data({ ...data, text: '', offset: 0, total: 0 }).build();
    return page(what, all.slice(args.offset, args.offset + limit), args.offset, all.length, data, budget);
  },
});

function page(what: string, text: string, offset: number, total: number, data: Record<string, unknown>, budget = 0) {
  // escapes make the JSON of a text longer than the text: a page whose JSON exceeds the host's limit ends sooner
  for (let n = 0; budget && n < 8 && JSON.stringify(text).length > budget; n++) text = text.slice(0, Math.floor((text.length * budget) / JSON.stringify(text).length));
  const end = Math.min(total, offset + text.length);
  const more = end < total;
  const head = total === 0 ? `${what} holds no text` : `${what}: characters ${offset}-${end} of ${total}${more ? ` (more: offset=${end})` : ''}`;
  return result(head)
    .text(text)
    .data({ ...data, text, offset, total, ...(more ? { next_offset: end } : {}) })
    .build();
}
