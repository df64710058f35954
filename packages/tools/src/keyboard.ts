import { z } from 'zod';
import { Tokens, UsageError, comboModifiers, defineTool, fact, parseCombo, result, scaledMs, type KeyCombo, type ToolContext } from '@hypruse/core';
import { allowAuthField, confirmField, thenField, windowField } from './common/fields.js';
import { compositorOf, findWindow, snapshot } from './common/desktop.js';
import { sleep } from './common/pointer.js';
import { address } from './common/output.js';
import { refuseCompositorBind, refuseTypedBinds } from './common/bind-guard.js';

const keyboardOutput = z.union([
  z.strictObject({ action: z.literal('key'), keys: fact(z.string()), window: address.nullable() }),
  z.strictObject({ action: z.literal('type'), chars: z.number(), window: address.nullable(), verified: z.boolean().nullable(), field: z.string().optional() }),
]);

const input = z
  .object({
    action: z.enum(['type', 'key']).describe('type: enter text; key: press a combination'),
    text: z.string().max(20000, 'type at most 20000 characters per call').refine((t) => !/\p{Cs}/u.test(t), 'text contains a lone surrogate (broken UTF-16), which cannot be typed').default('').describe('Text to type (unicode-safe). "-" on the command line reads stdin.'),
    keys: fact(z.string().max(100)).default('').describe('Combination such as "ctrl+s", "Return", "alt+F4", "shift+Tab".'),
    window: windowField.describe('Focus this window first (recommended on a shared seat).'),
    then: thenField,
    allow_auth: allowAuthField,
    confirm: confirmField,
  })
  .strict();

type Args = z.output<typeof input>;

function check(args: Args): KeyCombo | null {
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
  background: { mode: 'no', note: "keys go to the person's seat: to fill a field use act set_text (AT-SPI EditableText, no focus); key combinations have no element-level equivalent" },
  description:
    'Type text (any unicode, any layout) or press a key combination into the focused window, or into `window` after focusing it (recommended on a shared seat). Typing is verified by reading the field back over accessibility when possible. Compositor bindings (super+...) cannot be triggered this way: use binds + use_bind.',
  input,
  output: keyboardOutput,
  cli: { positional: ['action', 'text'], positionalFor: { key: ['action', 'keys'] }, stdinField: 'text', examples: ['hypruse keyboard type "hello" --window 42', 'echo hi | hypruse keyboard type -', 'hypruse keyboard key ctrl+s'] },
  async intent(args, ctx) {
    const combo = check(args);
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
    const d = await snapshot(ctx);
    const target = args.window ? findWindow(d, args.window) : (d.windows.find((w) => w.address === d.activeWindow) ?? null);
    if (args.window && target) {
      await compositorOf(ctx).focusWindow(target.address);
      await sleep(50, ctx.signal);
    }
    const kb = ctx.services.get(Tokens.Input);
    const into = args.window && target ? ` into ${target.address}` : '';
    if (combo) {
      await kb.key(combo, ctx.signal);
      return result(`pressed ${args.keys}${into}`).data({ action: 'key', keys: args.keys, window: target?.address ?? null }).observe(target?.address ?? null).build();
    }
    const pid = target?.pid ?? null;
    const before = await fieldText(ctx, pid);
    await kb.type(args.text, ctx.signal);
    let verification = await verify(ctx, pid, args.text);
    const stillFocused = async () => target !== null && (await snapshot(ctx)).activeWindow === target.address;
    if (verification.verified === false && verification.holds === (before ?? '') && (await stillFocused())) {
      // nothing arrived (a window that just moved between outputs can miss its first keys): type once more
      await sleep(300, ctx.signal);
      await kb.type(args.text, ctx.signal);
      verification = await verify(ctx, pid, args.text);
      verification.note = `${verification.note} (typed twice: the first attempt did not reach the field)`;
    }
    return result(`typed ${[...args.text].length} characters${into}${verification.note}`)
      .data({ action: 'type', chars: [...args.text].length, window: target?.address ?? null, verified: verification.verified, ...(verification.holds !== undefined ? { field: verification.holds } : {}) })
      .observe(target?.address ?? null)
      .build();
  },
});

/** The focused field's text before typing (undefined when it cannot be read). */
async function fieldText(ctx: ToolContext, pid: number | null): Promise<string | undefined> {
  if (pid === null || !ctx.services.has(Tokens.Accessibility)) return undefined;
  try {
    const f = await ctx.services.get(Tokens.Accessibility).focusedText(pid, ctx.signal);
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
async function verify(ctx: ToolContext, pid: number | null, text: string): Promise<{ verified: boolean | null; note: string; holds?: string }> {
  if (pid === null || !ctx.services.has(Tokens.Accessibility)) return { verified: null, note: '' };
  const a11y = ctx.services.get(Tokens.Accessibility);
  const end = Date.now() + scaledMs(VERIFY_MS, ctx.env);
  try {
    for (;;) {
      await sleep(20, ctx.signal);
      const f = await a11y.focusedText(pid, ctx.signal);
      if (f && (f.element.password || f.text === null)) return { verified: null, note: ' (not verified: password field)' };
      if (f && f.text!.includes(text)) return { verified: true, note: ' (verified)' };
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
