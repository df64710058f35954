import type { Rect } from './geometry.js';

export interface A11yValue {
  text?: string;
  current?: number;
  min?: number;
  max?: number;
  percent?: number;
}

export interface A11yElement {
  /** Opaque handle for actions (bus name + object path). */
  ref: { bus: string; path: string };
  role: string;
  /** AT-SPI role number */
  roleId: number;
  name: string;
  states: string[];
  /** Window-relative extents (coord type WINDOW). */
  extents: Rect;
  actions: string[];
  clickable: boolean;
  /** A control an agent acts on (a control role, an editable text, or a non-container with a click-like action), sensitive or not. */
  actionable?: boolean;
  value?: A11yValue;
  checked?: boolean;
  password?: boolean;
  focused?: boolean;
  depth: number;
  /** Index (in the same read's element list) of the nearest listed ancestor; absent at the top. */
  parent?: number;
  /** Scrolled out of view (read only when asked for, A11yReadOptions.offscreen): `extents` are not a place on screen. */
  offscreen?: boolean;
  /** In a popup surface (an open menu): `extents` are already relative to the main window's surface, and may lie outside it. */
  popup?: boolean;
  /**
   * In a popup the toolkit places without knowing where the compositor put it (GTK 4's popovers
   * report where they asked to be, not where a too-narrow output slid them): `extents` may not be
   * where it shows, so it is activated over AT-SPI, not pointed at.
   */
  unplaced?: boolean;
}

/** One option of a selection container (combo box, list, tab list), as `selectOption` numbers them. */
export interface A11yOption {
  index: number;
  name: string;
  selected: boolean;
}

export interface A11yWindowQuery {
  pid: number | null;
  title: string;
  /** logical size of the compositor window, to pick among several windows of one app */
  width: number;
  height: number;
  class?: string;
  /** The window's position on the screen, when known: a read is reused only for the same position. */
  x?: number;
  y?: number;
  /**
   * false: the compositor draws the window on no output (a workspace nobody shows, as background
   * mode's agent workspace on sway 1.7). Some toolkits then clear `showing` on everything below the
   * window, or stop updating the tree (WebEngine.undrawn).
   */
  drawn?: boolean;
}

export interface A11yReadOptions {
  actionableOnly: boolean;
  /** Also list elements that are scrolled out of view (not showing, no place on screen), marked `offscreen`. */
  offscreen?: boolean;
  /**
   * Also list the items of closed menus that the app keeps in its tree neither showing nor visible
   * (Qt), marked `offscreen`: for running an item by its AT-SPI action without opening its menu.
   */
  closedMenus?: boolean;
  name?: string;
  maxNodes?: number;
  signal?: AbortSignal;
}

export type A11yReadResult =
  | {
      status: 'ok'; app: string; windowName: string; elements: A11yElement[]; truncated: boolean; nodes: number;
      /** The result of an earlier read, given again because the application provably did not change since (see `forget`). */
      reused?: boolean;
      /**
       * Set when the application does not update this window's tree while the window is not drawn
       * (WebEngine.undrawn 'frozen'): why. What an action changes then never shows in the tree, so
       * nothing sent to such a window can be verified.
       */
      frozen?: string;
      /** How long (ms, unscaled) an effect may take to show in this window's tree, when longer than usual (WebEngine.undrawnSettleMs). */
      settleMs?: number;
      /** Set when the application's text fields take no text over EditableText (WebEngine.ignoresEditableText): why. */
      noEditableText?: string;
    }
  | { status: 'no_app'; reason: string }
  | { status: 'no_tree'; reason: string; skeleton?: boolean };

export interface Accessibility {
  describe(): Promise<string>;
  /** Which apps publish a tree (name, pid). */
  apps(signal?: AbortSignal): Promise<Array<{ name: string; pid: number | null; bus: string }>>;
  /**
   * A window's elements. A backend may answer with an earlier read of the same window (marked
   * `reused`) while the application provably did not change: it sent no change event since, no
   * input was sent (`forget`), and the read is young.
   */
  read(window: A11yWindowQuery, opts: A11yReadOptions): Promise<A11yReadResult>;
  /** Input was sent (or is about to be): no read taken before now is reused. */
  forget?(): void;
  /**
   * The caller saw the application show the effect of the input sent so far (a clicked check box
   * read back toggled): the application has handled it, so a read need not wait for it to settle.
   * Answered by the tool pipeline, which times that wait; a backend has nothing to do.
   */
  inputHandled?(): void;
  /** Whether the element still exists (one cheap call): checked before acting on an element of a reused read. */
  exists?(ref: A11yElement['ref'], signal?: AbortSignal): Promise<boolean>;
  /** Current state of one element (after an action), or null if it is gone. */
  refresh(ref: A11yElement['ref'], signal?: AbortSignal): Promise<A11yElement | null>;
  doAction(ref: A11yElement['ref'], index: number, signal?: AbortSignal): Promise<boolean>;
  /**
   * Run an action without waiting long for its reply: an app answers DoAction only when the action
   * returns, and an action that runs a modal dialog returns when the dialog closes (Qt's
   * QDialog::exec, a GTK nested main loop) while the app keeps answering other calls. True/false
   * when the app answers within `replyMs`; 'pending' when the call was delivered and no answer came
   * yet (its effect is then judged otherwise, e.g. by the window it opened).
   */
  sendAction?(ref: A11yElement['ref'], index: number, replyMs: number, signal?: AbortSignal): Promise<boolean | 'pending'>;
  /**
   * Characters [offset, offset + limit) of an element's text (its Text interface) and the whole length;
   * `password: true` (and no text) for a password field; null when the element is gone or has no text.
   */
  textRange?(ref: A11yElement['ref'], range: { offset: number; limit: number }, signal?: AbortSignal): Promise<{ text: string; total: number; password?: boolean } | null>;
  /**
   * The whole text of a web document (or any element holding others) as a person reads it: its
   * paragraphs, headings, list items and table rows on lines of their own, links with their
   * target; password fields left out. Null when the element is gone.
   */
  documentText?(ref: A11yElement['ref'], signal?: AbortSignal): Promise<{ text: string; truncated: boolean } | null>;
  /**
   * The session's accessibility switches (`org.a11y.Status`): IsEnabled (what toolkits read at
   * start), ScreenReaderEnabled, and whether this backend turned IsEnabled on.
   */
  sessionStatus?(signal?: AbortSignal): Promise<{ isEnabled: boolean; screenReaderEnabled: boolean; switchedOn: boolean }>;
  /**
   * The focused text element of an app (for typing verification), or null. With `window`, only the
   * app's window of that title is searched when it has one: an app with several windows (LibreOffice's
   * Writer beside its Calc) can keep a focused field in each.
   */
  focusedText(pid: number, signal?: AbortSignal, window?: { title: string }): Promise<{ element: A11yElement; text: string | null } | null>;
  dispose(): Promise<void>;
  /**
   * Semantic element operations (optional: a backend without them makes the
   * tools fall back to pointer and keyboard, or say what is unsupported).
   * Each resolves false when the element lacks the interface for it.
   */
  /** Replace the whole text of an editable element (EditableText). */
  setText?(ref: A11yElement['ref'], text: string, signal?: AbortSignal): Promise<boolean>;
  /**
   * Insert text into an editable element at its caret (its end when it has none) through
   * EditableText.InsertText, without focusing it. The character offset it went in at and the
   * text the element held before, or null when it lacks the interface or the app refused.
   */
  insertText?(ref: A11yElement['ref'], text: string, signal?: AbortSignal): Promise<{ offset: number; before: string } | null>;
  /** The element's text, up to `limit` characters (null: it has no text; password fields are never read). */
  text?(ref: A11yElement['ref'], limit: number, signal?: AbortSignal): Promise<string | null>;
  /** Give the element the keyboard focus (Component.GrabFocus). */
  focus?(ref: A11yElement['ref'], signal?: AbortSignal): Promise<boolean>;
  /**
   * Scroll the element into view: `scroll` asks the toolkit (Component.ScrollTo); `focus` gives the
   * keyboard focus to the element or its nearest focusable ancestor inside its scrolling container
   * (toolkits scroll a focused row into view). What was sent, or null when that could not be sent.
   */
  scrollTo?(ref: A11yElement['ref'], how: 'scroll' | 'focus', signal?: AbortSignal): Promise<'scroll' | 'focus' | null>;
  /**
   * Where the element can be seen, window-relative: the intersection of its scrolling ancestors'
   * boxes (scroll pane, viewport, list, table, tree); null when it has none.
   */
  visibleArea?(ref: A11yElement['ref'], signal?: AbortSignal): Promise<Rect | null>;
  /** The options of a selection container, or null when it is not one. */
  options?(ref: A11yElement['ref'], signal?: AbortSignal): Promise<A11yOption[] | null>;
  /** Select the option `index` of a selection container (Selection.SelectChild). */
  selectOption?(ref: A11yElement['ref'], index: number, signal?: AbortSignal): Promise<boolean>;
  /**
   * Select the table row holding a cell as a single click does (that row alone), through the
   * table's Selection and Table interfaces: null when no table holds the element; else the row and
   * whether the table reads that row alone selected afterwards.
   */
  selectRow?(ref: A11yElement['ref'], signal?: AbortSignal): Promise<{ row: number; selected: boolean } | null>;
}
