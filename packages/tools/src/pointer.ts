import { z } from 'zod';
import { Tokens, UsageError, presenceError, defineTool, layoutBounds, monitorAt, parseModifiers, result, type KeyCombo, type Point, type Rect, type ToolContext } from '@hypruse/core';
import { allowAuthField, confirmField, coordField, thenField, windowField } from './common/fields.js';
import { lastCursor, moveHeldPointer, positionPointer, sleep } from './common/pointer.js';
import { snapshot } from './common/desktop.js';
import { lastShot, shotToGlobal } from './common/image.js';
import { pair } from './common/output.js';
import { assertInLayout, coordNumber } from './common/coords.js';

const BUTTONS = ['left', 'right', 'middle', 'back', 'forward'] as const;

const num = coordNumber;

/**
 * Accept the malformed pairs models emit (`x: "812,433"` with y missing,
 * numbers as strings) and refuse anything ambiguous loudly.
 */
export function normalizePair(xName: string, yName: string, x: string | number | undefined, y: string | number | undefined): Point | null {
  if (x === undefined && y === undefined) return null;
  if (typeof x === 'string' && /[,\s]/.test(x.trim())) {
    const parts = x.trim().split(/\s*[,\s]\s*/).filter(Boolean);
    if (parts.length !== 2) throw new UsageError(`${xName}=${JSON.stringify(x)} is not one number or an "x,y" pair`);
    if (y !== undefined) throw new UsageError(`${xName}=${JSON.stringify(x)} holds a pair and ${yName} is also given; pass ${xName} and ${yName} as two numbers`);
    return { x: num(xName, parts[0]), y: num(yName, parts[1]) };
  }
  if (x === undefined || y === undefined) throw new UsageError(`${xName} and ${yName} must be given together (got only ${x === undefined ? yName : xName})`);
  return { x: num(xName, x), y: num(yName, y) };
}

const input = z
  .object({
    action: z.enum(['move', 'click', 'drag', 'scroll']).describe('move | click | drag | scroll'),
    x: coordField,
    y: coordField,
    button: z.enum(BUTTONS).default('left').describe('left | right | middle | back | forward'),
    to_x: coordField,
    to_y: coordField,
    scroll_dy: z.number().finite().default(0).describe('Wheel notches; positive scrolls the content down.'),
    scroll_dx: z.number().finite().default(0).describe('Wheel notches; positive scrolls right.'),
    double: z.boolean().default(false).describe('Double click.'),
    triple: z.boolean().default(false).describe('Triple click (selects a line or paragraph in most text views).'),
    image_x: coordField.describe('x in the last screenshot\'s image pixels instead of x,y (converted with its geometry and scale).'),
    image_y: coordField.describe('y in the last screenshot\'s image pixels.'),
    to_image_x: coordField.describe('Drag end x in the last screenshot\'s image pixels.'),
    to_image_y: coordField.describe('Drag end y in the last screenshot\'s image pixels.'),
    modifiers: z
      .array(z.string().max(16))
      .max(5)
      .default([])
      .describe('Keys held during the click, scroll or drag, e.g. ["ctrl"] or ["ctrl", "shift"]; released in reverse order, also on failure.'),
    window: windowField.describe('The window the coordinates were read from (strict mode refuses if it moved since).'),
    then: thenField,
    allow_auth: allowAuthField,
    confirm: confirmField,
  })
  .strict();

type Args = z.output<typeof input>;

interface Plan {
  from: Point | null;
  to: Point | null;
  modifiers: KeyCombo['modifiers'];
  /** Set when the points came from the last screenshot's pixels: that image's transform, for messages. */
  fromImage: string | null;
  /** The window the last screenshot showed, when the points came from it. */
  shotWindow: string | null;
}

const assertOnScreen = assertInLayout;

/** Image pixels of the last screenshot to global points; the pixel must lie inside that image. */
function fromImage(ctx: ToolContext, name: string, p: Point | null): Point | null {
  if (!p) return null;
  const t = lastShot(ctx);
  if (!t) {
    throw new UsageError(`${name} are pixels of the last screenshot, but this session has taken none`, {
      hint: 'take a screenshot first (its image pixels are what image_x/image_y address), or pass global x,y',
    });
  }
  if (p.x < 0 || p.y < 0 || p.x > t.image[0] || p.y > t.image[1]) {
    throw new UsageError(`${name} (${p.x}, ${p.y}) is outside the last screenshot's image (${t.image[0]}x${t.image[1]} pixels)`, {
      hint: 'image pixels run from 0,0 to the image size given in the screenshot\'s metadata',
    });
  }
  return shotToGlobal(t, p);
}

async function plan(args: Args, ctx: ToolContext): Promise<Plan> {
  const global = normalizePair('x', 'y', args.x, args.y);
  const globalTo = normalizePair('to_x', 'to_y', args.to_x, args.to_y);
  const img = normalizePair('image_x', 'image_y', args.image_x, args.image_y);
  const imgTo = normalizePair('to_image_x', 'to_image_y', args.to_image_x, args.to_image_y);
  if (global && img) throw new UsageError('pass either x,y (global) or image_x,image_y (pixels of the last screenshot), not both');
  if (globalTo && imgTo) throw new UsageError('pass either to_x,to_y or to_image_x,to_image_y, not both');
  const from = global ?? fromImage(ctx, 'image_x,image_y', img);
  const to = globalTo ?? fromImage(ctx, 'to_image_x,to_image_y', imgTo);
  const shot = img || imgTo ? lastShot(ctx) : null;
  const modifiers = parseModifiers(args.modifiers);
  if (modifiers.length && args.action === 'move') throw new UsageError('modifiers are for click, scroll and drag; a move presses nothing');
  if (args.double && args.triple) throw new UsageError('pass double or triple, not both');
  if (args.triple && args.action !== 'click') throw new UsageError('triple is only for click');
  if (args.action === 'move' && !from) throw new UsageError('move needs x and y');
  if (args.action === 'drag' && (!from || !to)) throw new UsageError('drag needs x, y, to_x and to_y');
  if (args.action !== 'drag' && to) throw new UsageError('to_x/to_y are only for drag');
  if (args.action === 'scroll' && args.scroll_dy === 0 && args.scroll_dx === 0) throw new UsageError('scroll needs a non-zero scroll_dy or scroll_dx (wheel notches)');
  if (Math.abs(args.scroll_dy) > 50 || Math.abs(args.scroll_dx) > 50) throw new UsageError('scroll at most 50 notches per call');
  if (args.double && args.action !== 'click') throw new UsageError('double is only for click');
  if (from || to) {
    const d = await snapshot(ctx);
    if (from) assertOnScreen('x,y', from, d.monitors);
    if (to) assertOnScreen('to_x,to_y', to, d.monitors);
  }
  return {
    from,
    to,
    modifiers,
    fromImage: shot ? `pixels of the last ${shot.target} image (origin ${shot.geometry[0]},${shot.geometry[1]}, scale ${shot.scale})` : null,
    shotWindow: shot?.window ?? null,
  };
}

export const pointerTool = defineTool({
  name: 'pointer',
  title: 'Pointer',
  effect: 'destructive',
  background: { mode: 'no', note: "the pointer is the person's: click_ui clicks a control through its AT-SPI action, act checks, selects and fills without it" },
  description:
    'Move, click, drag or scroll the real pointer at global logical coordinates (from desktop, ui, or a screenshot via global = geometry[:2] + pixel / scale). Without x,y, click and scroll act at the current cursor. Prefer click_ui when the control has a name.',
  input,
  output: z.strictObject({ action: z.enum(['move', 'click', 'drag', 'scroll']), cursor: pair.nullable() }),
  cli: { positional: ['action', 'x', 'y'], examples: ['hypruse pointer click 812 433', 'hypruse pointer scroll --scroll-dy 3', 'hypruse pointer drag 100 200 --to-x 300 --to-y 200'] },
  async intent(args, ctx) {
    const p = await plan(args, ctx);
    const at = p.from ? `(${Math.round(p.from.x)}, ${Math.round(p.from.y)})` : 'the cursor';
    const summary =
      args.action === 'drag'
        ? `drag ${args.button} from ${at} to (${Math.round(p.to!.x)}, ${Math.round(p.to!.y)})`
        : args.action === 'scroll'
          ? `scroll dy=${args.scroll_dy} dx=${args.scroll_dx} at ${at}`
          : args.action === 'move'
            ? `move the cursor to ${at}`
            : `${args.triple ? 'triple-' : args.double ? 'double-' : ''}click ${args.button} at ${at}`;
    const held = p.modifiers.length ? ` holding ${p.modifiers.join('+')}` : '';
    // the points were read from a window's screenshot: strict mode checks that window did not move since
    const window = args.window || p.shotWindow || '';
    const observed = window && ctx.session.observed.get(window);
    return {
      summary: `${summary}${held}`,
      input: args.action === 'move' ? 'none' : 'pointer',
      ...(args.action === 'move' ? { hover: true } : {}),
      ...(p.modifiers.length ? { modifiers: [...p.modifiers] } : {}),
      points: [p.from, p.to].filter((x): x is Point => x !== null),
      ...(observed ? { observed: { address: window, geometry: observed } } : {}),
    };
  },
  async handle(args, ctx) {
    const p = await plan(args, ctx);
    const pointer = ctx.services.get(Tokens.Input);
    // the cursor move is confirmed by the compositor (IPC reply, or a Wayland round trip on the
    // device's own connection) before the press goes out, in order: no settle in between
    if (p.from) await positionPointer(ctx, p.from);
    // modifiers go down after the cursor is in place and come up in reverse order however the action ends
    await pointer.holdModifiers(p.modifiers, () => act(args, p, ctx), ctx.signal);
    const c = lastCursor(ctx);
    const held = p.modifiers.length ? ` holding ${p.modifiers.join('+')}` : '';
    const how = args.action === 'click' && (args.triple || args.double) ? `${args.triple ? 'triple' : 'double'} click` : args.action;
    return result(`${how}${held} ok; cursor now at (${c ? `${c.x}, ${c.y}` : 'unknown'})${p.fromImage ? ` from ${p.fromImage}` : ''}`)
      .data({ action: args.action, cursor: c ? [c.x, c.y] : null })
      .build();
  },
});

async function act(args: Args, p: Plan, ctx: ToolContext): Promise<void> {
  const pointer = ctx.services.get(Tokens.Input);
  if (args.action === 'click') await pointer.click(args.button, args.triple ? 3 : args.double ? 2 : 1, ctx.signal);
  else if (args.action === 'scroll') await pointer.scroll(args.scroll_dx, args.scroll_dy, ctx.signal);
  else if (args.action === 'drag') {
    const from = p.from!;
    const to = p.to!;
    const layout = layoutBounds((await snapshot(ctx)).monitors);
    await sleep(10, ctx.signal);
    await pointer.drag(
      args.button,
      async () => {
        const steps = 12;
        const presence = ctx.services.has(Tokens.Presence) ? ctx.services.get(Tokens.Presence) : null;
        for (let i = 1; i <= steps; i++) {
          // a stop or pause from the person ends the drag between moves (the button is released by drag())
          const v = presence?.current();
          if (v && v.state !== 'running') throw presenceError(v, 'the drag');
          await moveHeldPointer(ctx, { x: from.x + ((to.x - from.x) * i) / steps, y: from.y + ((to.y - from.y) * i) / steps }, layout);
          await sleep(15, ctx.signal);
        }
      },
      ctx.signal,
    );
  }
}
