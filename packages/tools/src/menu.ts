import { z } from 'zod';
import { HypruseError, NotFoundError, Tokens, UsageError, backgroundRefusal, defineTool, fact, isAgentWorkspace, result, scaledMs, type ToolContext } from '@hypruse/core';
import { actionIndex } from './common/activate.js';
import { allowAuthField, confirmField, thenField, windowField } from './common/fields.js';
import { compositorOf } from './common/desktop.js';
import { openedShape, openedSince, watchOpened, type Opened } from './common/opened.js';
import { sleep } from './common/pointer.js';
import { readUi, type UiItem, type UiRead } from './common/ui-read.js';
import { normalizeRole } from './common/match.js';
import { ACTIVATE_ACTIONS, activateElement } from './common/activate.js';

/** GTK 3's MENU_SHELL_TIMEOUT (500 ms) and a margin: see the wait before a submenu's item is clicked. */
const MENU_RELEASE_GUARD_MS = 550;
const MENU_ROLES = new Set(['menu', 'menu item', 'check menu item', 'radio menu item', 'tearoff menu item', 'popup menu'].map(normalizeRole));

/** How long each submenu may take to appear (scaled by the time policy). */
const SUBMENU_MS = 3000;
/** How long the last item is given to open a window (a dialog) before the answer (scaled). */
const DIALOG_MS = 1500;

/**
 * A menu label as people write it: case, accents, mnemonic markers (`_`, `&`),
 * a trailing shortcut ("Save\tCtrl+S", GTK's padded accelerator column) and a
 * trailing ellipsis do not count.
 */
export function menuLabel(s: string): string {
  return s
    .replace(/\t.*$/s, '')
    .replace(/\s{2,}\S.*$/s, '')
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[_&]/g, '')
    .replace(/(\.\.\.|…)\s*$/u, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

/** Split "File > Save As…" into its labels (`>` or `→` between levels). */
export function menuPath(path: string): string[] {
  const parts = path.split(/\s*(?:>|→)\s*/u).map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => menuLabel(p) === '')) {
    throw new UsageError(`a menu path is labels separated by ">" (e.g. "File > Save As…"), got ${JSON.stringify(path)}`);
  }
  return parts;
}

/** The items of `items` whose label is `label`: exact label first, else those starting with it. */
export function matchMenuItem<T extends { name: string }>(items: readonly T[], label: string): T[] {
  const want = menuLabel(label);
  const exact = items.filter((i) => menuLabel(i.name) === want);
  return exact.length ? exact : items.filter((i) => menuLabel(i.name).startsWith(want));
}

const menuOutput = z.strictObject({
  path: z.array(z.string()),
  window: fact(z.string()),
  activated: z.strictObject({ role: fact(z.string()), name: z.string(), x: z.number(), y: z.number() }),
  via: z.enum(['atspi', 'pointer']),
  /** A check or radio menu item run over AT-SPI: its checked state read back after the action. */
  checked: z.boolean().optional(),
  opened: openedShape.optional(),
});

const input = z
  .object({
    path: fact(z.string().min(1).max(400)).describe('Labels from the menu bar (or an open popup menu) down, separated by ">": "File > Save As…". Case, mnemonics (_ &), shortcuts and a trailing ellipsis are ignored.'),
    window: windowField,
    then: thenField,
    allow_auth: allowAuthField,
    confirm: confirmField,
  })
  .strict();

type Args = z.output<typeof input>;

function menuItems(items: UiItem[], popupOnly: boolean): UiItem[] {
  return items.filter((i) => MENU_ROLES.has(normalizeRole(i.role)) && (!popupOnly || i.popup));
}

/**
 * Activate one menu entry with a real pointer click (through the full
 * pipeline) at its point, which the popup placement makes exact. Not over
 * AT-SPI: a GTK menu item's action runs its handler inside the accessibility
 * call, so an item that opens a modal dialog (Save As…) blocks every later
 * accessibility request until that dialog closes.
 */
async function activate(ctx: ToolContext, args: Args, window: string, item: UiItem, read: UiRead): Promise<'atspi' | 'pointer'> {
  // a popover item whose box is not where it shows (GTK 4): its own click action (GTK 4 opens no
  // blocking dialog inside the call)
  if (item.unplaced) return activateElement(ctx, { ref: item.ref, x: item.x, y: item.y, window }, ACTIVATE_ACTIONS, args);
  await compositorOf(ctx).focusWindow(window);
  const at = await placedNow(ctx, window, item, read);
  await ctx.invoke('pointer', { action: 'click', x: at.x, y: at.y, allow_auth: args.allow_auth, confirm: args.confirm });
  return 'pointer';
}

/**
 * Where the entry is now. Its point was placed with the window's geometry at the read; a window
 * moved or resized since (a neighbour closed and the layout gave it the room) puts another entry
 * under that point, and the click opens the wrong menu. Such a window is read again and the entry
 * found by its role and name; if it is no longer there, the old point stands.
 */
async function placedNow(ctx: ToolContext, window: string, item: UiItem, read: UiRead): Promise<{ x: number; y: number }> {
  const now = (await compositorOf(ctx).snapshot(ctx.signal)).windows.find((w) => w.address === window)?.geometry;
  const was = read.window.geometry;
  if (!now || (now.x === was.x && now.y === was.y && now.width === was.width && now.height === was.height)) return item;
  const fresh = await readUi(ctx, window, '', true);
  const same = fresh.items.find((i) => normalizeRole(i.role) === normalizeRole(item.role) && i.name === item.name && Boolean(i.popup) === Boolean(item.popup));
  return same ?? item;
}

/** The first read of the window, shared by intent() and handle() (keyed by the call's parsed arguments). */
const reads = new WeakMap<object, UiRead>();
async function firstRead(ctx: ToolContext, args: Args): Promise<UiRead> {
  let r = reads.get(args);
  if (!r) {
    if (!ctx.services.has(Tokens.Accessibility)) throw new HypruseError('error.a11y', 'no accessibility backend is installed');
    r = await readUi(ctx, args.window || 'active', '', true);
    reads.set(args, r);
  }
  return r;
}

/** Where a path starts: an open popup menu (a context menu) when it holds the first label, else the menu bar. */
function startItems(r: UiRead, label?: string): UiItem[] {
  const popup = menuItems(r.items, true);
  if (label !== undefined && matchMenuItem(popup, label).length) return popup;
  return menuItems(r.items, false);
}

/** Buttons that open a menu (a popover, an app's primary "hamburger" menu) where there is no menu bar. */
const OPENER_ROLES = new Set(['push button', 'toggle button', 'menu button'].map(normalizeRole));
/** What people call an app's primary menu, and the names its button carries (libadwaita's is "Main Menu", gnome-text-editor 43's "Menu"). */
const PRIMARY_MENU = new Set(['main menu', 'primary menu', 'application menu', 'app menu', 'hamburger menu', 'open menu', 'menu']);

function openers(r: UiRead): UiItem[] {
  return r.items.filter((i) => OPENER_ROLES.has(normalizeRole(i.role)) && !i.popup && i.clickable);
}

/** The button of the primary menu (named like one, or expandable with no other name), or undefined. */
function primaryButton(r: UiRead): UiItem | undefined {
  return openers(r).find((i) => PRIMARY_MENU.has(menuLabel(i.name)));
}

/**
 * Where a path starts when no menu bar or open menu holds its first label: a button of that name
 * that opens a menu (a popover), the primary menu's button when the label names it ("Main Menu"),
 * or, in a window without a menu bar, the primary menu itself as the first level the path did not
 * name (`menu "Save As"` in gnome-text-editor goes through "Menu > Save As…").
 */
function openerFor(r: UiRead, label: string): { item: UiItem; implicit: boolean } | undefined {
  const named = matchMenuItem(openers(r), label)[0];
  if (named) return { item: named, implicit: false };
  const primary = primaryButton(r);
  if (primary && PRIMARY_MENU.has(menuLabel(label))) return { item: primary, implicit: false };
  if (primary && menuItems(r.items, false).length === 0) return { item: primary, implicit: true };
  return undefined;
}

function listing(items: UiItem[]): string {
  return items.map((i) => `"${i.name}"`).join(', ') || '(none)';
}

export const menuTool = defineTool({
  name: 'menu',
  title: 'Run a menu path',
  effect: 'destructive',
  background: {
    mode: 'a11y',
    note: "with window: the path is found in the window's menu tree without opening any menu (closed menus' items included where the app keeps them, as Qt and GTK 3 do) and the last item runs its AT-SPI action (no pointer, no focus); a check item's state is read back, a dialog it opens is reported. An item whose label ends in an ellipsis (it opens a dialog, which takes the focus where the person sees it) runs only in a window on the agent's workspace (one launch opened), else it is refused",
  },
  description:
    'Run a menu-bar or open popup-menu path by its labels ("File > Save As…"; case, mnemonics, shortcuts and a trailing ellipsis ignored), opening each level and waiting for its submenu. Reports the dialog or menu the last item opened, with its controls.',
  input,
  output: menuOutput,
  cli: { positional: ['path'], examples: ['hypruse menu "File > Save As…" --window 42'] },
  async intent(args, ctx) {
    const labels = menuPath(args.path);
    if (ctx.config.background) {
      const b = await backgroundPath(ctx, args, labels);
      return {
        summary: `menu ${labels.join(' > ')} in ${b.read.window.class} over AT-SPI`,
        input: 'none',
        seatless: true,
        windows: [b.read.window.address],
        control: { role: b.leaf.role, name: b.leaf.name },
      };
    }
    const r = await firstRead(ctx, args);
    const start = matchMenuItem(startItems(r, labels[0]), labels[0])[0] ?? openerFor(r, labels[0])?.item;
    return {
      summary: `menu ${labels.join(' > ')} in ${r.window.class}`,
      input: 'pointer',
      windows: [r.window.address],
      // where the path starts (the deeper items are placed once their submenu is open)
      points: start ? [{ x: start.x, y: start.y }] : [{ x: r.window.geometry.x + Math.floor(r.window.geometry.width / 2), y: r.window.geometry.y + Math.floor(r.window.geometry.height / 2) }],
      control: { role: 'menu item', name: labels[labels.length - 1] },
    };
  },
  async handle(args, ctx) {
    const labels = menuPath(args.path);
    if (!ctx.services.has(Tokens.Accessibility)) throw new HypruseError('error.a11y', 'no accessibility backend is installed');
    if (ctx.config.background) return runInBackground(ctx, args, labels);
    const first = await firstRead(ctx, args);
    const window = first.window.address;
    const watch = await watchOpened(ctx, window);
    let opened = 0;
    try {
      const taken: string[] = [];
      let items = startItems(first, labels[0]);
      // no menu bar or open menu holds the first label: a button that opens a popover menu
      const opener = matchMenuItem(items, labels[0]).length ? undefined : openerFor(first, labels[0]);
      if (opener?.implicit) labels.unshift(opener.item.name);
      const popup = menuItems(first.items, true);
      let via: 'atspi' | 'pointer' = 'pointer';
      const key = (i: UiItem) => `${i.role}|${i.name}|${i.x},${i.y}`;
      let shown = popup;
      /** The read the current level's items were placed by. */
      let placedBy: UiRead = first;
      /** When the click that opened the current submenu was sent (null: the path started in a menu already open). */
      let openedAt: number | null = null;
      for (let level = 0; level < labels.length; level++) {
        const label = labels[level];
        const hits = level === 0 && opener ? [opener.item] : matchMenuItem(items, label);
        if (!hits.length) {
          throw new NotFoundError('not_found.menu', `no menu item '${label}'${level ? ` under '${labels.slice(0, level).join(' > ')}'` : ''} in ${first.window.class}; the items are ${listing(items)}`, {
            hint: level ? 'give the label as the menu shows it' : 'the first label is a menu-bar entry (or an item of an open popup menu); call ui to see them',
          });
        }
        const item = hits[0];
        // the path as taken: the labels the app shows (an alias like "Main Menu" becomes the button's own name)
        taken.push(item.name.replace(/\t.*$/s, '').replace(/\s{2,}\S.*$/s, '').trim() || label);
        const known = new Set(shown.map(key));
        // A GTK 3 menu takes a button release within MENU_SHELL_TIMEOUT (500 ms, on the input events'
        // own clock) of its popping up for the end of the click that opened it, and ignores it: an
        // item clicked sooner stays unactivated with its menu open. Wait out that window (real
        // milliseconds, as the event timestamps are; not scaled by the machine's speed).
        if (openedAt !== null && !item.unplaced) {
          const wait = openedAt + MENU_RELEASE_GUARD_MS - Date.now();
          if (wait > 0) await sleep(wait, ctx.signal);
        }
        via = await activate(ctx, args, window, item, placedBy);
        // from when the click went out, not from before the focus and pointer requests that precede it:
        // a slow compositor answer (a loaded machine, a remote IPC) otherwise eats into the guard
        openedAt = Date.now();
        if (level === labels.length - 1) {
          const o: Opened | null = await openedSince(ctx, watch, { waitMs: DIALOG_MS, menus: true });
          const res = result(`activated menu ${taken.join(' > ')} (${item.role} '${item.name}') in ${first.window.class}${opener ? ` (opened by its button '${opener.item.name}', ${opener.implicit ? 'the primary menu, which the path did not name' : 'no menu bar'})` : ''}`);
          if (o) for (const line of o.lines) res.text(line);
          opened = 0;
          return res
            .data({ path: taken, window, activated: { role: item.role, name: item.name, x: item.x, y: item.y }, via, ...(o ? { opened: o.data } : {}) })
            .observe(window)
            .build();
        }
        opened++;
        // wait for the submenu: popup items that were not there before, holding the next label
        const end = Date.now() + scaledMs(SUBMENU_MS, ctx.env);
        let next: UiItem[] = [];
        for (;;) {
          placedBy = await readUi(ctx, window, '', true);
          shown = menuItems(placedBy.items, true);
          next = shown.filter((i) => !known.has(key(i)));
          if (matchMenuItem(next, labels[level + 1]).length || Date.now() >= end) break;
          await sleep(50, ctx.signal);
        }
        if (!next.length) throw new NotFoundError('not_found.menu', `'${labels.slice(0, level + 1).join(' > ')}' opened no submenu within ${Math.round(scaledMs(SUBMENU_MS, ctx.env))} ms`, { hint: 'call ui to see what is open' });
        items = next;
      }
      throw new UsageError('empty menu path');
    } finally {
      watch.close();
      // a path that failed half-way leaves no menu open
      for (let i = 0; i < opened; i++) {
        await ctx.invoke('keyboard', { action: 'key', keys: 'Escape', window, allow_auth: args.allow_auth }).catch(() => undefined);
      }
    }
  },
});

/** Labels that promise a dialog (HIG: the item needs more input before it acts). */
const OPENS_DIALOG = /(\.\.\.|…)\s*$/u;

/** The background path, resolved once per call (intent() and handle() see the same one). */
const backgroundPaths = new WeakMap<object, { read: UiRead; leaf: UiItem }>();

/**
 * Background mode: find the whole path in the window's menu tree without opening any menu (GTK and
 * Qt keep the items of closed menus in the tree, not showing): each label's item must lie under
 * the item of the label before it. Nothing is sent here.
 */
async function backgroundPath(ctx: ToolContext, args: Args, labels: string[]): Promise<{ read: UiRead; leaf: UiItem }> {
  const hit = backgroundPaths.get(args);
  if (hit) return hit;
  if (!args.window) {
    throw backgroundRefusal("menu without window would run the active window's menu, which is the person's", 'give window: the path is then run over AT-SPI in that window');
  }
  if (!ctx.services.has(Tokens.Accessibility)) throw new HypruseError('error.a11y', 'no accessibility backend is installed');
  const read = await readUi(ctx, args.window, '', true, { offscreen: true, closedMenus: true, points: false });
  const items = read.items;
  const menuAncestor = (i: UiItem): UiItem | null => {
    for (let p = i.up; p; p = p.up) if (MENU_ROLES.has(normalizeRole(p.role))) return p;
    return null;
  };
  let level: UiItem[] = items.filter((i) => MENU_ROLES.has(normalizeRole(i.role)) && menuAncestor(i) === null);
  let leaf: UiItem | null = null;
  for (let l = 0; l < labels.length; l++) {
    const hits = matchMenuItem(level, labels[l]);
    if (!hits.length && level.length === 0) {
      // the app builds the menu's items only when it opens (Thunar, Qt 5), or has no menu bar at all (a
      // GTK 4 primary menu is a popover made on the click): reaching the item needs the menu opened, by the seat
      throw backgroundRefusal(
        l
          ? `the items of menu '${labels.slice(0, l).join(' > ')}' are not in ${read.window.class}'s accessibility tree while the menu is closed (the app builds them when it opens), and opening it needs the pointer or the keyboard`
          : `${read.window.class} has no menu bar in its accessibility tree (its menus are popovers made when a button is clicked), and opening one needs the pointer or the keyboard`,
        'run the item in a private desk (desk: "private"), or ask the person; a control of the window itself is run with click_ui or act',
      );
    }
    if (!hits.length) {
      throw new NotFoundError('not_found.menu', `no menu item '${labels[l]}'${l ? ` under '${labels.slice(0, l).join(' > ')}'` : ''} in ${read.window.class}; the items are ${listing(level)}`, {
        hint: l ? 'give the label as the menu shows it' : 'the first label is a menu-bar entry; call ui to see them',
      });
    }
    leaf = hits[0];
    const parent = leaf;
    level = items.filter((i) => MENU_ROLES.has(normalizeRole(i.role)) && menuAncestor(i) === parent);
  }
  // a dialog maps where its app's window is: on a workspace the person does not see it takes no focus
  const comp = ctx.services.get(Tokens.Compositor);
  const later = comp.capabilities.has('launch.unseen.later') ? undefined : comp.unsupportedReason('launch.unseen.later');
  if (OPENS_DIALOG.test(leaf!.name) && onAgentWorkspace(read) && later) {
    throw backgroundRefusal(
      `menu item '${leaf!.name}' opens a dialog (its label ends in an ellipsis), and the dialog would not open out of the person's sight: ${later}`,
      'run it in a private desk (desk: "private"), or ask the person; a dialog already open is filled with file_dialog or act',
    );
  }
  if (OPENS_DIALOG.test(leaf!.name) && !onAgentWorkspace(read)) {
    throw backgroundRefusal(
      `menu item '${leaf!.name}' opens a dialog (its label ends in an ellipsis), and ${read.window.class}'s window is on a workspace of the person's, where a new dialog takes the keyboard focus`,
      'run it in a window launch opened in background mode (on the agent\'s workspace), in a private desk (desk: "private"), or ask the person; a dialog already open is filled with file_dialog or act',
    );
  }
  const r = { read, leaf: leaf! };
  backgroundPaths.set(args, r);
  return r;
}

/** Whether the read window is on the agent's workspace (background launch), which no output of the person's shows. */
function onAgentWorkspace(read: UiRead): boolean {
  const ws = read.desktop.workspaces.find((w) => w.id === read.window.workspace);
  return ws !== undefined && isAgentWorkspace(ws.name) && !ws.visible;
}

/**
 * How long the reply of a menu item's action is waited for: an action that runs a modal dialog
 * (Qt's QDialog::exec, GTK's nested main loop) answers only when the dialog closes, and the app
 * answers other calls meanwhile; the dialog it opened is then what shows the item ran.
 */
const ACTION_REPLY_MS = 1000;

/** Roles whose AT-SPI action flips a checked state that can be read back. */
const TOGGLE_ROLES = new Set(['check menu item', 'radio menu item']);

async function runInBackground(ctx: ToolContext, args: Args, labels: string[]) {
  const { read, leaf } = await backgroundPath(ctx, args, labels);
  const a11y = ctx.services.get(Tokens.Accessibility);
  const window = read.window.address;
  const el = await a11y.refresh(leaf.ref, ctx.signal);
  if (!el) throw new NotFoundError('not_found.menu', `menu item '${leaf.name}' went away before it was run`, { hint: 'call ui to see the menu again' });
  if (!el.states.includes('sensitive') && !el.states.includes('enabled')) throw new HypruseError('error.unverified', `menu item '${leaf.name}' is disabled (insensitive): nothing was sent`, { hint: 'the app enables it when it applies (a selection, an open document)' });
  const i = actionIndex(el, ['click', 'activate', 'press', 'toggle']);
  if (i < 0) throw backgroundRefusal(`menu item '${leaf.name}' has no AT-SPI action, so running it needs the pointer`, 'ask the person, or work in a private desk');
  const before = el.checked;
  const watch = await watchOpened(ctx, window);
  try {
    const sent = a11y.sendAction ? await a11y.sendAction(leaf.ref, i, scaledMs(ACTION_REPLY_MS, ctx.env), ctx.signal) : await a11y.doAction(leaf.ref, i, ctx.signal);
    if (sent === false) {
      throw backgroundRefusal(`the app refused the AT-SPI action of menu item '${leaf.name}'`, 'ask the person, or work in a private desk');
    }
    let checked: boolean | undefined;
    if (TOGGLE_ROLES.has(leaf.role) && before !== undefined) {
      const end = Date.now() + scaledMs(DIALOG_MS, ctx.env);
      for (;;) {
        checked = (await a11y.refresh(leaf.ref, ctx.signal))?.checked;
        if ((leaf.role === 'radio menu item' ? checked === true : checked !== before) || Date.now() >= end) break;
        await sleep(20, ctx.signal);
      }
      const ok = leaf.role === 'radio menu item' ? checked === true : checked !== before;
      if (!ok) throw new HypruseError('error.unverified', `menu item '${leaf.name}' was run over AT-SPI, but it still reads ${checked ? 'checked' : 'unchecked'}`, { hint: 'read the window again (ui)' });
    }
    const o: Opened | null = await openedSince(ctx, watch, { waitMs: DIALOG_MS, menus: true });
    // no answer and nothing opened: whether the item ran is not known
    if (sent === 'pending' && !o?.data.some((x) => x.kind === 'window')) {
      throw new HypruseError('error.unverified', `menu item '${leaf.name}' was run over AT-SPI, but ${read.window.class} has not answered after ${Math.round(scaledMs(ACTION_REPLY_MS + DIALOG_MS, ctx.env))} ms and opened no window`, {
        hint: 'the app may be busy or still opening a dialog: call ui or wait_for before running it again',
      });
    }
    const res = result(`ran menu ${labels.join(' > ')} (${leaf.role} '${leaf.name}') in ${read.window.class} through its AT-SPI action, no menu opened, nothing sent to the seat${checked !== undefined ? ` (now ${checked ? 'checked' : 'unchecked'}, verified)` : ''}${sent === 'pending' ? ' (the app answers the action when the dialog it opened closes)' : ''}`);
    if (o) for (const line of o.lines) res.text(line);
    return res
      .data({ path: labels, window, activated: { role: leaf.role, name: leaf.name, x: leaf.x, y: leaf.y }, via: 'atspi', ...(checked !== undefined ? { checked } : {}), ...(o ? { opened: o.data } : {}) })
      .observe(window)
      .build();
  } finally {
    watch.close();
  }
}
