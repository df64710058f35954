/**
 * AT-SPI numbers used by the reader: role numbers (AtspiRole), state bits
 * (AtspiStateType) and the D-Bus names of the interfaces. Pure data.
 */

export const ATSPI_REGISTRY = 'org.a11y.atspi.Registry';
export const ATSPI_ROOT_PATH = '/org/a11y/atspi/accessible/root';
export const ATSPI_NULL_PATH = '/org/a11y/atspi/null';
/** Where an application publishes org.a11y.atspi.Cache. */
export const ATSPI_CACHE_PATH = '/org/a11y/atspi/cache';

export const IFACE = {
  Accessible: 'org.a11y.atspi.Accessible',
  Component: 'org.a11y.atspi.Component',
  Action: 'org.a11y.atspi.Action',
  Text: 'org.a11y.atspi.Text',
  EditableText: 'org.a11y.atspi.EditableText',
  Value: 'org.a11y.atspi.Value',
  Cache: 'org.a11y.atspi.Cache',
  Selection: 'org.a11y.atspi.Selection',
  Table: 'org.a11y.atspi.Table',
  Collection: 'org.a11y.atspi.Collection',
  Properties: 'org.freedesktop.DBus.Properties',
  EventObject: 'org.a11y.atspi.Event.Object',
} as const;

/** ATSPI_COORD_TYPE_WINDOW: extents relative to the toplevel window (the only meaningful ones on Wayland). */
export const COORD_TYPE_WINDOW = 1;
/**
 * ATSPI_COORD_TYPE_SCREEN. On Wayland a toplevel's screen origin is unknown to
 * the app (0,0), so this equals WINDOW for the main surface, while for a popup
 * (an open GTK menu) it adds the popup's offset from the main surface.
 */
export const COORD_TYPE_SCREEN = 0;

/** AtspiRole numbers the reader reasons about. */
export const Role = {
  /** What an object reads while its app has not given it a role yet (or no longer knows it). */
  INVALID: 0,
  ALERT: 2,
  CHECK_BOX: 7,
  CHECK_MENU_ITEM: 8,
  COMBO_BOX: 11,
  DIALOG: 16,
  FILLER: 20,
  FRAME: 23,
  LABEL: 29,
  LIST: 31,
  LIST_ITEM: 32,
  MENU: 33,
  MENU_BAR: 34,
  MENU_ITEM: 35,
  PAGE_TAB: 37,
  PAGE_TAB_LIST: 38,
  PANEL: 39,
  PASSWORD_TEXT: 40,
  POPUP_MENU: 41,
  PROGRESS_BAR: 42,
  PUSH_BUTTON: 43,
  RADIO_BUTTON: 44,
  RADIO_MENU_ITEM: 45,
  ROOT_PANE: 46,
  SCROLL_BAR: 48,
  SCROLL_PANE: 49,
  SEPARATOR: 50,
  SLIDER: 51,
  SPIN_BUTTON: 52,
  SPLIT_PANE: 53,
  TABLE: 55,
  TABLE_CELL: 56,
  TEAROFF_MENU_ITEM: 59,
  TEXT: 61,
  TOGGLE_BUTTON: 62,
  TOOL_BAR: 63,
  VIEWPORT: 68,
  WINDOW: 69,
  APPLICATION: 75,
  ENTRY: 79,
  DOCUMENT_FRAME: 82,
  SECTION: 85,
  LINK: 88,
  TREE: 65,
  TREE_TABLE: 66,
  TREE_ITEM: 91,
  DOCUMENT_WEB: 95,
  LIST_BOX: 98,
  GROUPING: 99,
  LEVEL_BAR: 103,
  COLUMN_HEADER: 10,
  ROW_HEADER: 47,
  HEADER: 71,
  FOOTER: 72,
  PARAGRAPH: 73,
  CAPTION: 81,
  HEADING: 83,
  FORM: 87,
  TABLE_ROW: 90,
  BLOCK_QUOTE: 105,
  ARTICLE: 109,
  LANDMARK: 110,
  DESCRIPTION_LIST: 121,
  DESCRIPTION_TERM: 122,
  DESCRIPTION_VALUE: 123,
} as const;

/** Roles an agent can act on (hypruse 0.9.3's set, plus list/tree items and tear-off items). */
export const ACTIONABLE_ROLES: ReadonlySet<number> = new Set([
  Role.CHECK_BOX, Role.CHECK_MENU_ITEM, Role.COMBO_BOX, Role.MENU, Role.MENU_ITEM, Role.PAGE_TAB,
  Role.PASSWORD_TEXT, Role.PUSH_BUTTON, Role.RADIO_BUTTON, Role.RADIO_MENU_ITEM, Role.SLIDER, Role.SPIN_BUTTON,
  Role.TOGGLE_BUTTON, Role.ENTRY, Role.LINK, Role.LIST_ITEM, Role.TREE_ITEM, Role.TEAROFF_MENU_ITEM,
]);

/** Roles that carry a checked/unchecked state. */
export const CHECKABLE_ROLES: ReadonlySet<number> = new Set([
  Role.CHECK_BOX, Role.CHECK_MENU_ITEM, Role.RADIO_BUTTON, Role.RADIO_MENU_ITEM, Role.TOGGLE_BUTTON,
]);

/** Containers whose Selection picks one of their options (act select). */
export const SELECTION_ROLES: ReadonlySet<number> = new Set([Role.COMBO_BOX, Role.LIST, Role.LIST_BOX, Role.PAGE_TAB_LIST, Role.TABLE, Role.TREE_TABLE]);

/** Roles whose text is reported as the value (when not a password field). */
export const TEXT_VALUE_ROLES: ReadonlySet<number> = new Set([Role.TEXT, Role.ENTRY, Role.SPIN_BUTTON, Role.COMBO_BOX]);

/**
 * A cell the person types into (a spreadsheet's: editable, with a Text interface): its text is its
 * value, and it is a control (clicked to select it, typed into).
 */
export function isEditableCell(n: { roleId: number; states: readonly string[]; interfaces: readonly string[] }): boolean {
  return n.roleId === Role.TABLE_CELL && n.states.includes('editable') && n.interfaces.includes('Text');
}

/** Roles whose numeric value (with min, max, percent) is reported. */
export const NUMERIC_VALUE_ROLES: ReadonlySet<number> = new Set([
  Role.SLIDER, Role.SPIN_BUTTON, Role.PROGRESS_BAR, Role.SCROLL_BAR, Role.LEVEL_BAR,
]);

/** Containers that are never "controls", even when a toolkit gives them an action. */
export const CONTAINER_ROLES: ReadonlySet<number> = new Set([
  Role.APPLICATION, Role.FRAME, Role.WINDOW, Role.DIALOG, Role.ALERT, Role.FILLER, Role.PANEL, Role.SCROLL_PANE,
  Role.VIEWPORT, Role.ROOT_PANE, Role.SPLIT_PANE, Role.TOOL_BAR, Role.MENU_BAR, Role.PAGE_TAB_LIST, Role.LIST,
  Role.LIST_BOX, Role.SECTION, Role.GROUPING, Role.DOCUMENT_FRAME, Role.DOCUMENT_WEB, Role.SEPARATOR,
]);

/** Action names that mean "activating this element is a click". */
export const CLICK_ACTIONS: ReadonlySet<string> = new Set(['click', 'press', 'activate', 'toggle', 'jump', 'open', 'select']);

/** AtspiStateType bit numbers, in order (index = bit). */
export const STATE_NAMES = [
  'invalid', 'active', 'armed', 'busy', 'checked', 'collapsed', 'defunct', 'editable', 'enabled', 'expandable',
  'expanded', 'focusable', 'focused', 'has-tooltip', 'horizontal', 'iconified', 'modal', 'multi-line',
  'multiselectable', 'opaque', 'pressed', 'resizable', 'selectable', 'selected', 'sensitive', 'showing',
  'single-line', 'stale', 'transient', 'vertical', 'visible', 'manages-descendants', 'indeterminate', 'required',
  'truncated', 'animated', 'invalid-entry', 'supports-autocompletion', 'selectable-text', 'is-default', 'visited',
  'checkable', 'has-popup', 'read-only',
] as const;

export type StateName = (typeof STATE_NAMES)[number];

/** Decode the `au` state set of GetState (bit i of word k is state 32k+i) into state names. */
export function decodeStates(words: readonly number[]): string[] {
  const out: string[] = [];
  for (let k = 0; k < words.length; k++) {
    const w = words[k] >>> 0;
    if (w === 0) continue;
    for (let i = 0; i < 32; i++) {
      if (w & (1 << i)) {
        const bit = 32 * k + i;
        out.push(STATE_NAMES[bit] ?? `state-${bit}`);
      }
    }
  }
  return out;
}
