import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { HypruseError, NotFoundError, Tokens, UsageError, backgroundRefusal, defineTool, fact, isAgentWorkspace, result, scaledMs, type AppFamilies, type EventSubscription, type ToolContext } from '@hypruse/core';
import { allowAuthField, confirmField, thenField, windowField } from './common/fields.js';
import { compositorOf, snapshot } from './common/desktop.js';
import { openedShape } from './common/opened.js';
import { matchNames, normalizeRole } from './common/match.js';
import { ACTIVATE_ACTIONS, activateElement } from './common/activate.js';
import { sleep } from './common/pointer.js';
import { readUi, uiLine, type UiItem, type UiRead } from './common/ui-read.js';

/** How long the dialog may take to close after its default button, and a text to show up (scaled). */
const CLOSE_MS = 5000;
/** How long the first Return may take to close the dialog before it is pressed once more (see handle). */
const RETURN_MS = 1500;
const FIELD_MS = 2000;

/** Default-button labels of Open/Save dialogs, most specific first. */
const DEFAULT_BUTTONS = ['Save', 'Open', 'Select', 'OK', 'Choose', 'Export', 'Import'];
/** Buttons of an overwrite confirmation. */
const REPLACE_BUTTONS = ['Replace', 'Overwrite', 'Yes'];

/** Roles of a file-name field, normalized (GTK 4 names its entry's role "text box", its buttons' "button"). */
const TEXT_ROLES = new Set(['text', 'entry']);
const isText = (i: UiItem) => TEXT_ROLES.has(normalizeRole(i.role));

const fileDialogOutput = z.strictObject({
  path: z.string(),
  dialog: fact(z.string()),
  button: z.string(),
  closed: z.boolean(),
  replaced: z.boolean(),
  /** The button that answered the app's keep-the-format question (a .docx saved from a word processor). */
  kept_format: z.string().optional(),
  /** Whether a file exists at `path` now (seen from hypruse's side). */
  exists: z.boolean(),
  /** The file the app really wrote when it is not `path`: the path with the extension the app or the dialog's filter added (a Save of "report" written as "report.odt"). */
  written: z.string().optional(),
  opened: openedShape.optional(),
});

const input = z
  .object({
    path: z.string().min(1).max(4096).describe('Absolute path of the file to open or save.'),
    window: windowField.describe('The dialog (default: the active window).'),
    overwrite: z.boolean().default(false).describe('Save over an existing file when the dialog asks to replace it.'),
    then: thenField,
    allow_auth: allowAuthField,
    confirm: confirmField,
  })
  .strict();

type Args = z.output<typeof input>;

function checkPath(p: string): void {
  if (!isAbsolute(p)) throw new UsageError(`path must be absolute (start with /), got ${JSON.stringify(p)}`);
  if (/[\x00-\x1f\x7f]/.test(p)) throw new UsageError('path contains control characters');
  if (p.endsWith('/')) throw new UsageError('path names a folder; give the file name too');
}

/** How long a dialog that a call just before asked for (menu "File > Save As") may take to become the active window (scaled). */
const APPEAR_MS = 4000;

/** The file-name field: the focused or first editable single-line text field of the dialog (a document's text area is none). */
function nameField(r: UiRead): UiItem | undefined {
  const fields = r.items.filter((i) => isText(i) && !i.password && i.clickable && !i.states.includes('multi-line'));
  return fields.find((i) => i.focused) ?? fields[0];
}

/** Whether a window reads as an Open/Save dialog: a default button and no document text area (an editor's main window has an Open button too). */
function looksLikeDialog(r: UiRead): boolean {
  if (r.items.some((i) => isText(i) && i.states.includes('multi-line') && i.states.includes('editable'))) return false;
  return Boolean(button(r, DEFAULT_BUTTONS) || nameField(r));
}

const sameRef = (a: UiItem['ref'], b: UiItem['ref']) => a.bus === b.bus && a.path === b.path;

function button(r: UiRead, names: readonly string[]): UiItem | undefined {
  const buttons = r.items.filter((i) => normalizeRole(i.role) === 'button');
  for (const n of names) {
    const { pool, kind } = matchNames(buttons, n);
    if (kind === 'exact' && pool.length) return pool[0];
  }
  return undefined;
}

/** Press a push button (a GTK button runs its AT-SPI action after the call returns), else a pointer click. */
function press(ctx: ToolContext, args: Args, b: UiItem, window: string): Promise<'atspi' | 'pointer'> {
  return activateElement(ctx, { ref: b.ref, x: b.x, y: b.y, window }, ACTIVATE_ACTIONS, args);
}

async function closedWithin(sub: EventSubscription | null, ctx: ToolContext, dialog: string, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (sub) {
      const e = await sub.next(Math.min(200, Math.max(0, end - Date.now())), ctx.signal);
      if (e?.type === 'window_close' && e.address === dialog) return true;
      if (e && e.type !== 'resync') continue;
    } else await sleep(100, ctx.signal);
    if (!(await snapshot(ctx)).windows.some((w) => w.address === dialog)) return true;
  }
  return false;
}

/**
 * The first read of the dialog. Without `window` it is the active window, which the app may still be
 * building right after the menu answered (LibreOffice's GTK file chooser kept soffice from answering
 * for over 2 s at load 15): a read that timed out is tried again while the dialog may still appear.
 */
async function firstRead(ctx: ToolContext, args: Args): Promise<UiRead> {
  const end = Date.now() + scaledMs(APPEAR_MS, ctx.env);
  for (;;) {
    try {
      return await readUi(ctx, args.window || 'active', '', true);
    } catch (e) {
      if (args.window || ctx.signal?.aborted || !(e instanceof HypruseError) || e.code !== 'error.a11y' || Date.now() >= end) throw e;
      await sleep(200, ctx.signal);
    }
  }
}

/**
 * Background mode without `window`: the active window is the person's, never the dialog's. The
 * dialog is the newest window on the agent's workspace (which no output of the person's shows)
 * that reads as an Open/Save dialog, waited for while a menu item may still be opening it.
 */
async function agentDialogRead(ctx: ToolContext): Promise<UiRead> {
  const end = Date.now() + scaledMs(APPEAR_MS, ctx.env);
  let seen = 0;
  for (;;) {
    const d = await snapshot(ctx);
    const agent = new Set(d.workspaces.filter((w) => isAgentWorkspace(w.name) && !w.visible).map((w) => w.id));
    const windows = d.windows.filter((w) => w.workspace !== null && agent.has(w.workspace));
    seen = windows.length;
    // the newest first: compositors list windows in the order they mapped within a workspace
    for (const w of [...windows].reverse()) {
      const r = await readUi(ctx, w.address, '', true).catch(() => null);
      if (r && looksLikeDialog(r)) return r;
    }
    if (Date.now() >= end) break;
    await sleep(200, ctx.signal);
  }
  throw new NotFoundError('not_found.dialog', `no Open/Save dialog on the agent's workspace (${seen} window(s) there, none with a file name field or a Save/Open button, within ${Math.round(scaledMs(APPEAR_MS, ctx.env))} ms); in background mode the active window is the person's and is never filled`, {
    hint: 'open the dialog first (menu "File > Save As…" in a window launch opened), then pass its window (menu reports it as opened)',
  });
}

async function dialogRead(ctx: ToolContext, args: Args): Promise<UiRead> {
  if (!ctx.services.has(Tokens.Accessibility)) throw new HypruseError('error.a11y', 'no accessibility backend is installed');
  if (ctx.config.background && !args.window) return agentDialogRead(ctx);
  let r = await firstRead(ctx, args);
  if (!args.window && !looksLikeDialog(r)) {
    // the dialog a menu item asked for may map after the menu answered (a loaded machine, Qt's
    // dialog built on first use): wait for the active window to become one, never fill the editor
    const end = Date.now() + scaledMs(APPEAR_MS, ctx.env);
    const app = r.window;
    while (Date.now() < end && !looksLikeDialog(r)) {
      await sleep(100, ctx.signal);
      r = await readUi(ctx, 'active', '', true).catch(() => r);
      if (looksLikeDialog(r)) break;
      // a dialog of the same program that did not take the focus (a fullscreen window keeps it on sway: FocusWriter)
      const others = (await snapshot(ctx)).windows.filter((w) => w.pid !== null && w.pid === app.pid && w.address !== app.address).reverse();
      for (const w of others) {
        const o = await readUi(ctx, w.address, '', true).catch(() => null);
        if (o && looksLikeDialog(o)) {
          r = o;
          break;
        }
      }
    }
  }
  if (!looksLikeDialog(r)) {
    throw new NotFoundError('not_found.dialog', `${r.window.class} "${r.window.title}" (${r.window.address}) is not an Open/Save dialog (no file name field, no Save/Open button${args.window ? '' : `, and no dialog became the active window within ${Math.round(scaledMs(APPEAR_MS, ctx.env))} ms`})`, {
      hint: 'open the dialog first (menu "File > Save As…"), then pass its window',
    });
  }
  return r;
}

export const fileDialogTool = defineTool({
  name: 'file_dialog',
  title: 'Fill a file dialog',
  effect: 'destructive',
  background: { mode: 'a11y', note: "the name field is filled through AT-SPI EditableText and the default button pressed through its action, without focus; a dialog without a name field (an Open dialog's hidden location field) is refused" },
  description:
    'Fill an open Open/Save dialog with an absolute path, press its default button (Save/Open), wait for the dialog to close and report the path chosen (and whether the file exists). Replaces an existing file only with overwrite=true.',
  input,
  output: fileDialogOutput,
  cli: { positional: ['path'], examples: ['hypruse file_dialog /tmp/notes.txt --window 43'] },
  async intent(args, ctx) {
    checkPath(args.path);
    const r = await dialogRead(ctx, args);
    const b = button(r, DEFAULT_BUTTONS);
    if (ctx.config.background) {
      if (!nameField(r)) throw backgroundRefusal(`${r.window.class} "${r.window.title}" shows no file name field (an Open dialog shows its location field only on ctrl+L, a key to the seat)`);
      if (!b) throw backgroundRefusal(`${r.window.class} "${r.window.title}" has no default button (${DEFAULT_BUTTONS.join('/')}) to press through AT-SPI (Return would be a key to the seat)`);
      return { summary: `choose ${args.path} in ${r.window.class} "${r.window.title}" over AT-SPI`, input: 'none', seatless: true, windows: [r.window.address], text: args.path, control: { role: 'push button', name: b.name } };
    }
    return {
      summary: `choose ${args.path} in ${r.window.class} "${r.window.title}"`,
      input: 'keyboard',
      windows: [r.window.address],
      text: args.path,
      control: { role: 'push button', name: b?.name ?? 'default button' },
    };
  },
  async handle(args, ctx) {
    checkPath(args.path);
    const started = Date.now();
    const r = await dialogRead(ctx, args);
    const dialog = r.window.address;
    const a11y = ctx.services.get(Tokens.Accessibility);
    const comp = compositorOf(ctx);
    const background = ctx.config.background;
    if (!background) await comp.focusWindow(dialog);
    let field = nameField(r);
    if (!field && background) throw backgroundRefusal(`${r.window.class} "${r.window.title}" shows no file name field`);
    if (!field) {
      // an Open dialog shows its location field on ctrl+L
      await ctx.invoke('keyboard', { action: 'key', keys: 'ctrl+l', window: dialog, allow_auth: args.allow_auth });
      const end = Date.now() + scaledMs(FIELD_MS, ctx.env);
      while (!field && Date.now() < end) {
        await sleep(50, ctx.signal);
        field = nameField(await readUi(ctx, dialog, '', true));
      }
      if (!field) throw new NotFoundError('not_found.dialog', `${r.window.class} "${r.window.title}" shows no file name or location field`, { hint: 'type the path with keyboard, then press Return' });
    }
    // the whole path in the name field: GTK, Qt and portals all take an absolute path there
    const set = a11y.setText ? await a11y.setText(field.ref, args.path, ctx.signal) : false;
    if (!set && background) throw backgroundRefusal(`the file name field of ${r.window.class} has no AT-SPI EditableText the app accepted, so filling it needs the keyboard`);
    if (!set) {
      await ctx.invoke('pointer', { action: 'click', x: field.x, y: field.y, allow_auth: args.allow_auth, confirm: args.confirm });
      await ctx.invoke('keyboard', { action: 'key', keys: 'ctrl+a', window: dialog, allow_auth: args.allow_auth });
      await ctx.invoke('keyboard', { action: 'type', text: args.path, window: dialog, allow_auth: args.allow_auth });
    }
    const holds = a11y.text ? await a11y.text(field.ref, args.path.length + 100, ctx.signal).catch(() => null) : null;
    if (holds !== null && holds !== args.path) {
      throw new HypruseError('error.unverified', `the file name field of ${r.window.class} holds ${JSON.stringify(holds)} instead of the path; nothing was pressed`, { hint: 'retry, or type the path with keyboard' });
    }
    const sub = comp.capabilities.has('events') ? await comp.subscribe().catch(() => null) : null;
    let pressed = 'the default button';
    let replaced = false;
    const before = new Set((await snapshot(ctx)).windows.map((w) => w.address));
    try {
      // Return in the name field presses the default button (no pointer: a client-side decorated
      // dialog's header-bar buttons are placed less exactly than its fields)
      if (a11y.focus && !background) await a11y.focus(field.ref, ctx.signal).catch(() => false);
      // nothing is pressed before the dialog took the path: the field holds it and the default button
      // (which Qt and GTK enable only once the name field has text) is enabled; the field focused for Return
      const fieldKey = field.ref;
      let state = await readUi(ctx, dialog, '', true);
      let b = button(state, DEFAULT_BUTTONS);
      const ready = (st: UiRead, bt: UiItem | undefined) => {
        const f = st.items.find((i) => sameRef(i.ref, fieldKey));
        return { enabled: !bt || bt.clickable, focused: f?.focused === true, present: f !== undefined };
      };
      let st = ready(state, b);
      const readyEnd = Date.now() + scaledMs(FIELD_MS, ctx.env);
      while ((!st.enabled || (!background && !st.focused && st.present)) && Date.now() < readyEnd) {
        await sleep(50, ctx.signal);
        if (!st.focused && a11y.focus && !background) await a11y.focus(field.ref, ctx.signal).catch(() => false);
        state = await readUi(ctx, dialog, '', true);
        b = button(state, DEFAULT_BUTTONS);
        st = ready(state, b);
      }
      if (!st.enabled) {
        throw new HypruseError('error.unverified', `the ${b!.name} button of ${r.window.class} "${r.window.title}" stayed disabled with the path in its name field; nothing was pressed`, { hint: 'call ui on the dialog to see what it says' });
      }
      const after = a11y.text ? await a11y.text(field.ref, args.path.length + 100, ctx.signal).catch(() => null) : null;
      if (after !== null && after !== args.path) {
        throw new HypruseError('error.unverified', `the file name field of ${r.window.class} holds ${JSON.stringify(after)} instead of the path; nothing was pressed`, { hint: 'retry, or type the path with keyboard' });
      }
      if (b) pressed = b.name;
      let closed: boolean;
      if (background || (!st.focused && b)) {
        // the default button's own action: no key to the seat (or the field would not take the focus, so Return would go elsewhere)
        if (!b) throw backgroundRefusal(`${r.window.class} "${r.window.title}" has no default button to press through AT-SPI`);
        await press(ctx, args, b, dialog);
        closed = await closedWithin(sub, ctx, dialog, scaledMs(background ? RETURN_MS : CLOSE_MS, ctx.env));
      } else {
        await ctx.invoke('keyboard', { action: 'key', keys: 'Return', window: dialog, allow_auth: args.allow_auth });
        closed = await closedWithin(sub, ctx, dialog, scaledMs(RETURN_MS, ctx.env));
      }
      if (!closed && !background) {
        // GTK 3's chooser drops a Return that arrives while it is still taking in the path just set
        // (seen on an idle machine, never under load): when nothing else happened (the dialog is
        // still there, no window of its own opened, the field still holds the path), press it once more
        const d = await snapshot(ctx);
        const still = d.windows.some((w) => w.address === dialog);
        const fresh = d.windows.some((w) => !before.has(w.address));
        const again = a11y.text ? await a11y.text(field.ref, args.path.length + 100, ctx.signal).catch(() => null) : null;
        if (still && !fresh && again === args.path) {
          await ctx.invoke('keyboard', { action: 'key', keys: 'Return', window: dialog, allow_auth: args.allow_auth });
          closed = await closedWithin(sub, ctx, dialog, scaledMs(CLOSE_MS, ctx.env));
        }
      }
      if (!closed) {
        // an overwrite confirmation (its own window, or inside the dialog)
        const d = await snapshot(ctx);
        const fresh = d.windows.filter((w) => !before.has(w.address));
        const asks = fresh.length ? await readUi(ctx, fresh[0].address, '', true).catch(() => null) : await readUi(ctx, dialog, '', true).catch(() => null);
        const replace = asks ? button(asks, REPLACE_BUTTONS) : undefined;
        if (asks && replace) {
          if (!args.overwrite) {
            const cancel = button(asks, ['Cancel', 'No']);
            if (cancel) await press(ctx, args, cancel, asks.window.address);
            throw new UsageError(`${args.path} exists and the dialog asks to replace it; nothing was replaced (the dialog stays open)`, {
              hint: 'call again with overwrite: true to replace it, or choose another path',
              data: { question: asks.items.slice(0, 8).map((i) => uiLine(i)) },
            });
          }
          await press(ctx, args, replace, asks.window.address);
          replaced = true;
          closed = await closedWithin(sub, ctx, dialog, scaledMs(CLOSE_MS, ctx.env));
        }
      }
      if (!closed) {
        throw new NotFoundError('not_found.dialog', `${r.window.class} "${r.window.title}" did not close after ${pressed} (within ${Math.round(scaledMs(CLOSE_MS, ctx.env))} ms); it may show an error`, {
          hint: 'call ui on the dialog to see what it says',
        });
      }
      const exists = await stat(args.path).then(() => true, () => false);
      // the file is written by the app once the dialog closed: give it a moment to appear, and answer
      // the app's question whether to keep the format the path asked for (a word processor saving .docx)
      // an app (or the dialog's file type filter) may add its extension: "report" is written as "report.odt"
      let written: string | null = null;
      const found = async () => (await stat(args.path).then(() => true, () => false)) || (written = await withExtension(args.path, started)) !== null;
      let seen = exists;
      let kept = '';
      let asking: { address: string; class: string; title: string } | null = null;
      let end = Date.now() + scaledMs(FIELD_MS, ctx.env);
      while (!seen && Date.now() < end) {
        await sleep(50, ctx.signal);
        seen = await found();
        if (seen || kept) continue;
        const q = (await snapshot(ctx)).windows.find((w) => !before.has(w.address) && w.pid === r.window.pid && w.address !== dialog);
        if (!q) continue;
        asking = { address: q.address, class: q.class, title: q.title };
        const families = ctx.services.has(Tokens.AppFamilies) ? ctx.services.get<AppFamilies>(Tokens.AppFamilies) : null;
        const read = await readUi(ctx, q.address, '', true).catch(() => null);
        const buttons = read ? read.items.filter((i) => i.role === 'push button') : [];
        const name = families?.keepFormatButton?.({ class: q.class, title: q.title }, buttons.map((b) => b.name)) ?? null;
        const b = name ? buttons.find((x) => x.name === name) : undefined;
        if (!b) continue;
        await press(ctx, args, b, q.address);
        kept = b.name;
        asking = null;
        end = Date.now() + scaledMs(CLOSE_MS, ctx.env);
      }
      if (!seen && asking) {
        const read = await readUi(ctx, asking.address, '', true).catch(() => null);
        throw new HypruseError('error.unverified', `the dialog closed and ${asking.class} asks "${asking.title}" (window ${asking.address}); no file at ${args.path} yet`, {
          hint: 'answer the question (ui, then click_ui), then check the file',
          data: { question: asking.address, controls: (read?.items ?? []).slice(0, 8).map((i) => uiLine(i)) },
        });
      }
      const target = (await snapshot(ctx)).windows.find((w) => w.pid === r.window.pid)?.address ?? null;
      const wrote = written as string | null; // set by found()
      const where = wrote ? `; the app wrote ${wrote} (it added the extension "${wrote.slice(args.path.length)}"): no file at ${args.path} itself` : seen ? '; the file exists' : '; no file at that path (yet)';
      return result(`chose ${args.path} in ${r.window.class} "${r.window.title}" with ${pressed} (Return)${replaced ? ' (replaced the existing file)' : ''}; the dialog closed${kept ? `; the app asked whether to keep the format: answered "${kept}"` : ''}${where}`)
        .data({ path: args.path, dialog, button: pressed, closed: true, replaced, exists: seen && !wrote, ...(wrote ? { written: wrote } : {}), ...(kept ? { kept_format: kept } : {}) })
        .observe(target)
        .build();
    } finally {
      sub?.close();
    }
  },
});

/**
 * The file an app wrote for `path` with an extension of its own added ("report" saved as
 * "report.odt"): a file of the same folder named `path`'s name, a dot and a short extension, written
 * since `since` (ms). The newest one, or null.
 */
async function withExtension(path: string, since: number): Promise<string | null> {
  const dir = dirname(path);
  const base = basename(path);
  const names = await readdir(dir).catch(() => [] as string[]);
  let best: { file: string; at: number } | null = null;
  for (const n of names) {
    if (!n.startsWith(`${base}.`) || !/^\.[A-Za-z0-9]{1,8}$/.test(n.slice(base.length))) continue;
    const st = await stat(join(dir, n)).catch(() => null);
    // file times are coarse on some file systems: a second of slack
    if (st?.isFile() && st.mtimeMs >= since - 1000 && (!best || st.mtimeMs > best.at)) best = { file: join(dir, n), at: st.mtimeMs };
  }
  return best?.file ?? null;
}
