import { z } from 'zod';
import {
  HypruseError, NotFoundError, Tokens, TrustError, UsageError, backgroundRefusal, comboModifiers, defineTool, fact, parseCombo, result, scaledMs,
  type A11yElement, type Desktop, type KeyCombo, type ToolContext, type Window,
} from '@hypruse/core';
import { allowAuthField, confirmField, thenField, windowField } from './common/fields.js';
import { compositorOf, findWindow, snapshot } from './common/desktop.js';
import { elementNameField, resolveElement, roleField } from './common/elements.js';
import { sleep } from './common/pointer.js';
import { address } from './common/output.js';
import { refuseCompositorBind, refuseTypedBinds } from './common/bind-guard.js';

const keyboardOutput = z.union([
  z.strictObject({ action: z.literal('key'), keys: fact(z.string()), window: address.nullable() }),
  z.strictObject({
    action: z.literal('type'),
    chars: z.number(),
    window: address.nullable(),
    verified: z.boolean().nullable(),
    field: z.string().optional(),
    /** keys: typed on the seat's keyboard; atspi: inserted (or replaced) through the field's EditableText, nothing sent to the seat. */
    via: z.enum(['keys', 'atspi']).optional(),
    /** The named field typed into (atspi): its role and name. */
    element: z.strictObject({ role: fact(z.string()), name: z.string() }).optional(),
  }),
]);

const input = z
  .object({
    action: z.enum(['type', 'key']).describe('type: enter text; key: press a combination'),
    text: z.string().max(20000, 'type at most 20000 characters per call').refine((t) => !/\p{Cs}/u.test(t), 'text contains a lone surrogate (broken UTF-16), which cannot be typed').default('').describe('Text to type (unicode-safe). "-" on the command line reads stdin.'),
    keys: fact(z.string().max(100)).default('').describe('Combination such as "ctrl+s", "Return", "alt+F4", "shift+Tab".'),
    window: windowField.describe('Focus this window first (recommended on a shared seat).'),
    name: elementNameField.describe('type: the field to type into, by name as ui lists it: the text goes in through its AT-SPI EditableText at its caret, without focusing anything (the way background mode types). Needs window.'),
    role: roleField.describe('type: the field to type into by role (e.g. "text" for a document\'s text area), alone or narrowing name. Needs window.'),
    replace: z.boolean().default(false).describe('type with name: replace the field\'s whole text instead of inserting at its caret.'),
    then: thenField,
    allow_auth: allowAuthField,
    confirm: confirmField,
  })
  .strict();

type Args = z.output<typeof input>;

function check(args: Args): KeyCombo | null {
  if (args.action !== 'type' && (args.name || args.replace)) throw new UsageError('name and replace are for action=type (a field to type into); key presses into the window');
  if (!args.name && !args.role && args.replace) throw new UsageError('replace needs name (or role): the field whose text is replaced');
  if (args.action !== 'type' && args.role) throw new UsageError('role is for action=type (the field to type into)');
  if ((args.name || args.role) && !args.window) throw new UsageError('name and role need window: the window the field is in (an address from desktop)');
  if (args.action === 'type') {
    if (!args.text) throw new UsageError('type needs text');
    if (args.keys) throw new UsageError('keys is for action=key; type takes text');
    return null;
  }
  if (!args.keys) throw new UsageError('key needs keys, e.g. "ctrl+s" or "Return"');
  if (args.text) throw new UsageError('text is for action=type; key takes keys');
  return parseCombo(args.keys);
}

export const keyboardTool = defineTool({
  name: 'keyboard',
  title: 'Keyboard',
  effect: 'destructive',
  background: {
    mode: 'a11y',
    note: "type with window (and name: the field) inserts at the field's caret, or replaces its text (replace), through AT-SPI EditableText, read back; key combinations, and typing into the focused window, would reach the person's seat and are refused: press buttons with click_ui, run menu items with menu, fill fields with act set_text",
  },
  description:
    'Type text (any unicode, any layout) or press a key combination into the focused window, or into `window` after focusing it (recommended on a shared seat). With `name` (and `window`), the text goes into that field through accessibility (EditableText) at its caret, or replaces its text with `replace`, without focusing anything. Typing is verified by reading the field back over accessibility when possible. Compositor bindings (super+...) cannot be triggered this way: use binds + use_bind.',
  input,
  output: keyboardOutput,
  cli: { positional: ['action', 'text'], positionalFor: { key: ['action', 'keys'] }, stdinField: 'text', examples: ['hypruse keyboard type "hello" --window 42', 'echo hi | hypruse keyboard type -', 'hypruse keyboard key ctrl+s'] },
  async intent(args, ctx) {
    const combo = check(args);
    if (ctx.config.background && combo) {
      throw backgroundRefusal(
        `keyboard key ${args.keys} would send keys to the person's seat`,
        'key combinations have no element-level equivalent: press a button with click_ui, run a menu item with menu, fill a field with keyboard type and name (EditableText) or act set_text',
      );
    }
    if (ctx.config.background && !args.window) {
      throw backgroundRefusal('keyboard type without window would type into the focused window, which is the person\'s', 'give window and name: keyboard type then inserts into that field through AT-SPI EditableText (or act set_text replaces its text)');
    }
    if (!combo && (args.name || args.role || ctx.config.background)) {
      const f = await field(args, ctx);
      return {
        summary: `${args.replace ? 'replace the text of' : `type ${[...args.text].length} characters into`} ${f.el.role} '${f.el.name}' in ${f.window} over AT-SPI`,
        input: 'none',
        seatless: true,
        windows: [f.window],
        control: { role: f.el.role, name: f.el.name },
        ...(f.el.password ? {} : { text: args.text }),
      };
    }
    let target: string | undefined;
    if (args.window) target = findWindow(await snapshot(ctx), args.window).address;
    if (combo) await refuseCompositorBind(ctx, combo);
    else await refuseTypedBinds(ctx, args.text);
    return {
      summary: args.action === 'type' ? `type ${args.text.length} characters${target ? ` into ${target}` : ''}` : `press ${combo!.source}${target ? ` in ${target}` : ''}`,
      input: 'keyboard',
      windows: target ? [target] : [],
      focusedWindow: !target,
      ...(args.action === 'type' ? { text: args.text } : { keys: args.keys, modifiers: [...comboModifiers(combo!)] }),
    };
  },
  async handle(args, ctx) {
    const combo = check(args);
    if (!combo && (args.name || args.role || ctx.config.background)) return typeIntoField(args, ctx);
    const d = await snapshot(ctx);
    const target = args.window ? findWindow(d, args.window) : (d.windows.find((w) => w.address === d.activeWindow) ?? null);
    let refocused = '';
    if (args.window && target) {
      await compositorOf(ctx).focusWindow(target.address);
      await sleep(50, ctx.signal);
      refocused = await focusStuckElsewhere(ctx, d, target);
    }
    const kb = ctx.services.get(Tokens.Input);
    const into = args.window && target ? ` into ${target.address}` : '';
    if (combo) {
      await kb.key(combo, ctx.signal);
      return result(`pressed ${args.keys}${into}${refocused}`).data({ action: 'key', keys: args.keys, window: target?.address ?? null }).observe(target?.address ?? null).build();
    }
    const pid = target?.pid ?? null;
    const before = await fieldText(ctx, pid, target);
    const known = new Set(d.windows.map((w) => w.address));
    await kb.type(args.text, ctx.signal);
    let verification = await verify(ctx, pid, args.text, target);
    // a window that closed while the keys went out (a first window its app replaced, a dialog a
    // Return in the middle of the text closed): what followed went elsewhere, which is no success
    // (judged once the read-back had its time: an app unmaps a window a moment after the key)
    if (target && verification.verified !== true) await refuseGone(ctx, target, known, args.text);
    const stillFocused = async () => target !== null && (await snapshot(ctx)).activeWindow === target.address;
    if (verification.verified === false && verification.holds === (before ?? '') && (await stillFocused())) {
      // nothing arrived (a window that just moved between outputs can miss its first keys): type once more
      await sleep(300, ctx.signal);
      await kb.type(args.text, ctx.signal);
      verification = await verify(ctx, pid, args.text, target);
      verification.note = `${verification.note} (typed twice: the first attempt did not reach the field)`;
    }
    return result(`typed ${[...args.text].length} characters${into}${refocused}${verification.note}`)
      .data({ action: 'type', chars: [...args.text].length, window: target?.address ?? null, verified: verification.verified, ...(verification.holds !== undefined ? { field: verification.holds } : {}) })
      .observe(target?.address ?? null)
      .build();
  },
});

/**
 * Throw error.window_gone when `target` closed while text was typed into it, naming the window of
 * the same program that opened meanwhile (its replacement), else the one that has the focus now. A
 * text whose last key is Return (a dialog's answer submitted) may close its window: not an error.
 */
async function refuseGone(ctx: ToolContext, target: Window, known: ReadonlySet<string>, text: string): Promise<void> {
  const now = await snapshot(ctx);
  if (now.windows.some((w) => w.address === target.address)) return;
  if (/\n$/.test(text) && !/\n/.test(text.slice(0, -1))) return;
  const name = (w: Window) => `${w.class} "${w.title}" (${w.address})`;
  const replaced = now.windows.find((w) => !known.has(w.address) && target.pid !== null && w.pid === target.pid);
  const active = now.windows.find((w) => w.address === now.activeWindow);
  const where = replaced
    ? `; ${name(replaced)} of the same program replaced it${active && active !== replaced ? `, and ${name(active)} has the focus` : ''}`
    : active
      ? `; ${name(active)} has the focus now and may have taken some of the keys`
      : '; no window has the focus now';
  throw new HypruseError('error.window_gone', `${name(target)} closed while ${[...text].length} characters were typed into it${where}`, {
    hint: replaced ? `check what reached it (get_text, ui), then type into window ${replaced.address}` : 'check what the keys did (desktop, get_text), then type into the window meant',
    data: { window: target.address, ...(replaced ? { replaced_by: replaced.address } : {}), ...(active ? { active: active.address } : {}) },
  });
}

/**
 * An app with several windows can keep its own focus in the one it had, although the compositor gave
 * the keyboard to another (LibreOffice: Calc opened beside Writer on a workspace of three windows kept
 * Writer's paragraph focused; Calc then lost every letter typed while Tab and Return moved its cell
 * cursor, so the sheet scrolled and nothing was written). When the target shows no focused field and
 * another window of the same program does, the keyboard goes to that one and back, as a person's
 * click away and back would; said in the result. Returns that note, or ''.
 */
async function focusStuckElsewhere(ctx: ToolContext, d: Desktop, target: Window): Promise<string> {
  const siblings = d.windows.filter((w) => w.pid !== null && w.pid === target.pid && w.address !== target.address);
  if (!siblings.length || !ctx.services.has(Tokens.Accessibility)) return '';
  const a11y = ctx.services.get(Tokens.Accessibility);
  try {
    if (await a11y.focusedText(target.pid!, ctx.signal, target)) return '';
    const other = siblings.find((w) => w.title !== target.title);
    const f = other ? await a11y.focusedText(target.pid!, ctx.signal, other) : null;
    if (!other || !f) return '';
    const comp = compositorOf(ctx);
    await comp.focusWindow(other.address);
    await sleep(100, ctx.signal);
    await comp.focusWindow(target.address);
    const end = Date.now() + scaledMs(1000, ctx.env);
    while (!(await a11y.focusedText(target.pid!, ctx.signal, target)) && Date.now() < end) await sleep(50, ctx.signal);
    return ` (its program kept its focus in ${other.address} "${other.title}": the keyboard went there and back first)`;
  } catch (e) {
    if (ctx.signal?.aborted) throw e;
    return '';
  }
}

/** The focused field's text before typing (undefined when it cannot be read). */
async function fieldText(ctx: ToolContext, pid: number | null, window: Window | null): Promise<string | undefined> {
  if (pid === null || !ctx.services.has(Tokens.Accessibility)) return undefined;
  try {
    const f = await ctx.services.get(Tokens.Accessibility).focusedText(pid, ctx.signal, window ?? undefined);
    return f && !f.element.password && f.text !== null ? f.text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * How long the read-back waits for the app to show what was typed (scaled by the time policy). The app
 * handles the keys after they were sent, and under load it may not even have moved its focus yet: the
 * field is read until it holds the text or this passed; a field that never does is then reported as is.
 */
const VERIFY_MS = 800;

/** Read the focused field back over AT-SPI: "verified", or what it holds instead. Never reads password fields. */
async function verify(ctx: ToolContext, pid: number | null, text: string, window: Window | null): Promise<{ verified: boolean | null; note: string; holds?: string }> {
  if (pid === null || !ctx.services.has(Tokens.Accessibility)) return { verified: null, note: '' };
  const a11y = ctx.services.get(Tokens.Accessibility);
  const end = Date.now() + scaledMs(VERIFY_MS, ctx.env);
  try {
    for (;;) {
      await sleep(20, ctx.signal);
      // the field of the window typed into (an app's other window may keep a focused field of its own)
      const f = await a11y.focusedText(pid, ctx.signal, window ?? undefined);
      if (f && (f.element.password || f.text === null)) return { verified: null, note: ' (not verified: password field)' };
      if (f && f.text!.includes(text)) return { verified: true, note: ' (verified)' };
      // a spreadsheet's cell takes the text when it is committed (Return, Tab), and the commit moves the focus on:
      // what the focused cell holds says nothing of whether the keys arrived (typing again would type twice)
      if (f && f.element.role === 'table cell') return { verified: null, note: ' (not verified: a cell takes the text when it is committed with Return or Tab; read the cell back then)' };
      if (Date.now() < end) continue;
      if (!f) return { verified: null, note: ' (not verified: no focused text field is readable)' };
      const shown = f.text!.length > 200 ? `${f.text!.slice(0, 200)}...` : f.text!;
      return { verified: false, note: `; WARNING: the field now holds ${JSON.stringify(shown)}`, holds: f.text! };
    }
  } catch (e) {
    if (ctx.signal?.aborted) throw e;
    return { verified: null, note: ' (not verified: the accessibility read failed)' };
  }
}

/** The field a named (or background) type goes into, keyed by the call's parsed arguments (intent() and handle() see the same one). */
const fields = new WeakMap<object, { el: A11yElement; window: string; noEditableText?: string }>();

/** Roles that hold editable text: when a name matches several elements, these win (a label shares its field's name). */
const TEXT_ROLES = /^(entry|text|password text|spin button|editbar|terminal|paragraph|section|document text|combo box)$/;

async function field(args: Args, ctx: ToolContext): Promise<{ el: A11yElement; window: string; noEditableText?: string }> {
  const hit = fields.get(args);
  if (hit) return hit;
  if (!ctx.services.has(Tokens.Accessibility)) throw new HypruseError('error.a11y', 'no accessibility backend is installed, so no field can be typed into by name');
  const a11y = ctx.services.get(Tokens.Accessibility);
  let found: { el: A11yElement; window: string; noEditableText?: string };
  if (args.name || args.role) {
    const t = await resolveElement(ctx, { name: args.name || undefined, role: args.role || undefined, window: args.window }, { purpose: 'type into', points: false, prefer: (i) => TEXT_ROLES.test(i.role) });
    const el = await a11y.refresh(t.item.ref, ctx.signal);
    if (!el) throw new NotFoundError('not_found.stale_id', `${t.item.role} '${t.item.name}' went away before it was typed into`, { hint: 'read the window again (ui)' });
    found = { el, window: t.read.window.address, ...(t.read.noEditableText ? { noEditableText: t.read.noEditableText } : {}) };
  } else {
    // background without name: the field the window's app has its own focus in (nothing of the seat's focus changes)
    const w = findWindow(await snapshot(ctx), args.window);
    const f = w.pid ? await a11y.focusedText(w.pid, ctx.signal, w) : null;
    if (!f) throw new UsageError(`window ${w.address} has no focused text field that accessibility can see: name the field (name, as ui lists it)`);
    found = { el: f.element, window: w.address };
  }
  if (found.el.password && !ctx.config.a11y.setPasswords) {
    throw new TrustError({ layer: 'tool', code: 'refused.password', reason: `${found.el.role} '${found.el.name}' is a password field; keyboard does not fill password fields by name unless the config allows it`, hint: 'set a11y.setPasswords in the config, or let the person type it' });
  }
  fields.set(args, found);
  return found;
}

/** How long the field gets to show an accepted EditableText call (scaled by the time policy). */
const FIELD_VERIFY_MS = 1500;

/**
 * Type into a field through AT-SPI EditableText (insert at its caret, or replace its text), read it
 * back; nothing reaches the seat. An app that refuses the call: in background mode a refusal (nothing
 * was sent), else the field is focused through act and the text typed on the keyboard.
 */
async function typeIntoField(args: Args, ctx: ToolContext) {
  const { el, window, noEditableText } = await field(args, ctx);
  const a11y = ctx.services.get(Tokens.Accessibility);
  const label = `${el.role} '${el.name}'`;
  const chars = [...args.text].length;
  let expected: string | null = null;
  // an app whose fields take no EditableText (UiRead.noEditableText) is not sent the call
  if (noEditableText) {
    if (ctx.config.background) throw backgroundRefusal(`${label} takes no text over AT-SPI (${noEditableText}), so typing into it needs the keyboard`, 'ask the person, or turn background mode off for this field');
  } else if (args.replace) {
    if (a11y.setText && (await a11y.setText(el.ref, args.text, ctx.signal))) expected = args.text;
  } else if (a11y.insertText) {
    const r = await a11y.insertText(el.ref, args.text, ctx.signal);
    if (r) {
      const b = [...r.before];
      expected = [...b.slice(0, r.offset), args.text, ...b.slice(r.offset)].join('');
    }
  }
  if (expected === null) {
    if (ctx.config.background) throw backgroundRefusal(`${label} has no AT-SPI EditableText the app accepted, so typing into it needs the keyboard`, 'ask the person, or turn background mode off for this field');
    await ctx.invoke('act', { action: 'focus', name: el.name, role: el.role, window, allow_auth: args.allow_auth });
    await ctx.invoke('keyboard', { action: 'type', text: args.text, window, allow_auth: args.allow_auth, confirm: args.confirm });
    return result(`typed ${chars} characters into ${label} on the keyboard (its app refused AT-SPI EditableText)`)
      .data({ action: 'type', chars, window, verified: null, via: 'keys', element: { role: el.role, name: el.name } })
      .observe(window)
      .build();
  }
  if (el.password) {
    return result(`typed ${chars} characters into password field '${el.name}' through AT-SPI (not read back: password)`)
      .data({ action: 'type', chars, window, verified: null, via: 'atspi', element: { role: el.role, name: el.name } })
      .build();
  }
  const end = Date.now() + scaledMs(FIELD_VERIFY_MS, ctx.env);
  let now: string | null = null;
  for (;;) {
    now = a11y.text ? await a11y.text(el.ref, [...expected].length + 100, ctx.signal) : ((await a11y.refresh(el.ref, ctx.signal))?.value?.text ?? null);
    if (now === expected || Date.now() >= end) break;
    await sleep(20, ctx.signal);
  }
  const verified = now === expected;
  const how = args.replace ? `replaced the text of ${label} (${chars} characters)` : `typed ${chars} characters into ${label}`;
  const shown = now === null ? 'nothing readable' : JSON.stringify(now.length > 200 ? `${now.slice(0, 200)}...` : now);
  return result(`${how} through AT-SPI EditableText, nothing sent to the seat${verified ? ' (verified)' : `; WARNING: the field now holds ${shown}`}`)
    .data({ action: 'type', chars, window, verified, via: 'atspi', element: { role: el.role, name: el.name }, ...(now !== null ? { field: now } : {}) })
    .observe(window)
    .build();
}
