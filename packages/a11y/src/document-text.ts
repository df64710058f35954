import { isGoneError, isMissingInterfaceError, type AtspiBus } from './atspi-bus.js';
import { ATSPI_NULL_PATH, IFACE, Role, decodeStates } from './atspi-constants.js';
import type { Deadline } from './deadline.js';
import type { NodeRef } from './tree-reader.js';

/** Roles that start a line of their own when a page is read (paragraphs, headings, rows, list items...). */
const BLOCK_ROLES: ReadonlySet<number> = new Set([
  Role.PARAGRAPH, Role.HEADING, Role.SECTION, Role.FORM, Role.TABLE, Role.TABLE_ROW, Role.LIST, Role.LIST_ITEM, Role.BLOCK_QUOTE,
  Role.PANEL, Role.ARTICLE, Role.LANDMARK, Role.DOCUMENT_FRAME, Role.DOCUMENT_WEB, Role.GROUPING, Role.HEADER, Role.FOOTER,
  Role.DESCRIPTION_LIST, Role.DESCRIPTION_TERM, Role.DESCRIPTION_VALUE, Role.CAPTION, Role.FILLER, Role.SEPARATOR,
]);
/** Cells: read side by side, a row at a time. */
const CELL_ROLES: ReadonlySet<number> = new Set([Role.TABLE_CELL, Role.COLUMN_HEADER, Role.ROW_HEADER]);
/** Fields: their text is the person's input (an empty one says nothing; its label speaks for it). */
const FIELD_ROLES: ReadonlySet<number> = new Set([Role.ENTRY, Role.SPIN_BUTTON, Role.TEXT]);
/** Check boxes and radio buttons: read as a mark; their label speaks for them. */
const MARK_ROLES: ReadonlySet<number> = new Set([Role.CHECK_BOX, Role.RADIO_BUTTON, Role.TOGGLE_BUTTON]);
/** Controls set apart from the text around them. */
const CONTROL_ROLES: ReadonlySet<number> = new Set([Role.COMBO_BOX, Role.ENTRY, Role.SPIN_BUTTON, Role.PUSH_BUTTON, Role.TOGGLE_BUTTON]);
/** Options of a drop-down: only the chosen one is read. */
const OPTION_ROLES: ReadonlySet<number> = new Set([Role.MENU_ITEM, Role.LIST_ITEM]);

const OBJECT = '\uFFFC';

interface Piece {
  text: string;
  block: boolean;
  /** A control inside a line of text: set apart by spaces. */
  control?: boolean;
}

/**
 * The text of a web document as a person reads it: each object's text with its embedded objects
 * (the U+FFFC characters of AT-SPI Text, one per child, in order) replaced by their own text,
 * paragraphs, headings, list items and rows on lines of their own, a row's cells side by side,
 * links followed by their target. Password fields are left out. Stops adding after `maxNodes`.
 */
export class DocumentText {
  private nodes = 0;

  constructor(
    private readonly bus: AtspiBus,
    private readonly maxNodes: number,
  ) {}

  async read(ref: NodeRef, d: Deadline): Promise<{ text: string; truncated: boolean }> {
    this.nodes = 0;
    const p = await this.piece(ref, d, 0);
    const text = (p?.text ?? '')
      .split('\n')
      .map((l) => l.replace(/[ \t]+/g, ' ').trim())
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
    return { text, truncated: this.nodes >= this.maxNodes };
  }

  private call(ref: NodeRef, d: Deadline, iface: string, member: string, signature?: string, body?: unknown[]): Promise<unknown[]> {
    return this.bus.call({ dest: ref.bus, path: ref.path, iface, member, signature, body }, d);
  }

  private async piece(ref: NodeRef, d: Deadline, depth: number, inCombo = false): Promise<Piece | null> {
    if (++this.nodes > this.maxNodes || depth > 60) return null;
    let role: number;
    let ifaces: string[];
    let kids: NodeRef[];
    let name: string;
    let states: string[];
    try {
      [role, ifaces, kids, name, states] = await Promise.all([
        this.call(ref, d, IFACE.Accessible, 'GetRole').then((b) => Number(b[0])),
        this.call(ref, d, IFACE.Accessible, 'GetInterfaces').then((b) => ((b[0] as string[]) ?? []).map((n) => n.replace(/^org\.a11y\.atspi\./, ''))),
        this.call(ref, d, IFACE.Accessible, 'GetChildren').then((b) =>
          ((b[0] as Array<[string, string]>) ?? []).filter(([, p]) => p && p !== ATSPI_NULL_PATH).map(([bus, path]) => ({ bus: bus || ref.bus, path })),
        ),
        this.call(ref, d, IFACE.Properties, 'Get', 'ss', [IFACE.Accessible, 'Name']).then((b) => String((b[0] as { value?: unknown } | undefined)?.value ?? '')),
        this.call(ref, d, IFACE.Accessible, 'GetState').then((b) => decodeStates((b[0] as number[]) ?? [])),
      ]);
    } catch (err) {
      if (isGoneError(err) && !d.fired) return null;
      throw err;
    }
    if (role === Role.PASSWORD_TEXT || states.includes('defunct')) return null;
    if (MARK_ROLES.has(role)) return { text: states.includes('checked') || states.includes('pressed') ? '[x]' : '[ ]', block: false, control: true };
    if (inCombo && OPTION_ROLES.has(role)) return states.includes('selected') ? { text: name.trim(), block: false } : { text: '', block: false };
    const combo = inCombo || role === Role.COMBO_BOX;
    const block = BLOCK_ROLES.has(role);
    const [own, children, uri] = await Promise.all([
      ifaces.includes('Text') && role !== Role.COMBO_BOX ? this.text(ref, d) : Promise.resolve(null),
      Promise.all(kids.map((k) => this.piece(k, d, depth + 1, combo))),
      role === Role.LINK && ifaces.includes('Hyperlink') ? this.uri(ref, d) : Promise.resolve(''),
    ]);
    const join = (p: Piece | null): string => (p ? (p.block ? `\n${p.text}\n` : p.control ? ` ${p.text} ` : p.text) : '');
    let text: string;
    if (own !== null && own.includes(OBJECT)) {
      let k = 0;
      text = own.replace(/\uFFFC/g, () => join(children[k++] ?? null));
      for (; k < children.length; k++) text += join(children[k]);
    } else if (own !== null && own.trim() !== '') {
      text = own;
      if (!FIELD_ROLES.has(role)) for (const c of children) text += join(c);
    } else if (FIELD_ROLES.has(role) && own !== null) {
      text = '';
    } else if (children.length > 0) {
      text = children.map(join).join('');
      if (text.trim() === '' && name.trim() && !combo) text = name.trim();
    } else {
      text = name.trim();
    }
    if (role === Role.TABLE_ROW) text = children.map((c) => c?.text.replace(/\s*\n\s*/g, ' ').trim() ?? '').filter(Boolean).join('  ');
    if (uri && !text.includes(uri)) text = `${text} <${uri}>`;
    // a cell is not a line of its own: the row puts its cells side by side
    return { text, block: block && !CELL_ROLES.has(role), control: CONTROL_ROLES.has(role) };
  }

  private async text(ref: NodeRef, d: Deadline): Promise<string | null> {
    try {
      const count = await this.call(ref, d, IFACE.Properties, 'Get', 'ss', [IFACE.Text, 'CharacterCount']).then((b) => Number((b[0] as { value?: unknown } | undefined)?.value ?? 0));
      if (!count || count <= 0) return '';
      const b = await this.call(ref, d, IFACE.Text, 'GetText', 'ii', [0, count]);
      return String(b[0] ?? '');
    } catch (err) {
      if (d.fired) throw err;
      if (isGoneError(err) || isMissingInterfaceError(err)) return null;
      return null;
    }
  }

  private async uri(ref: NodeRef, d: Deadline): Promise<string> {
    try {
      const b = await this.call(ref, d, 'org.a11y.atspi.Hyperlink', 'GetURI', 'i', [0]);
      return String(b[0] ?? '');
    } catch (err) {
      if (d.fired) throw err;
      return '';
    }
  }
}
