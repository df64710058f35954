/**
 * Malformed arguments for every tool, derived from each tool's own schema
 * (so a new field or tool is fuzzed without editing this file), plus
 * hand-written cases for values a schema alone cannot show are invalid
 * (non-finite and off-screen coordinates, unsafe workspace names, bad
 * regions and combos, bad sequence steps).
 */
import type { AnyTool } from '@hypruse/core';
import { inputJsonSchema } from '@hypruse/core/mcp';

export interface FuzzCase {
  tool: string;
  args: unknown;
  why: string;
}

type Prop = { type?: string | string[]; enum?: unknown[]; anyOf?: Prop[]; maxLength?: number; minimum?: number; maximum?: number; items?: Prop };

export const HUGE = 'A'.repeat(1_100_000);
export const LONE_SURROGATE = 'ws\ud800x';
export const RTL_OVERRIDE = 'ws\u202egnp.exe';
/** Strings an attacker would put where a name goes. */
export const INJECTIONS = ['1; exec foot', '"]]', 'a\nb', 'x"; exec touch /tmp/hypruse-pwned; "', '$(touch /tmp/hypruse-pwned)', '`id`', 'ws,2', 'a\u0000b', '\\', '{x}'];

/** Minimal valid arguments, so a case breaks exactly one field. */
export const VALID: Record<string, Record<string, unknown>> = {
  desktop: {},
  screenshot: {},
  zoom: { x: 100, y: 100 },
  ui: {},
  marks: {},
  get_text: {},
  binds: {},
  wait_for: { event: 'window_open', timeout_s: 1 },
  click_ui: { name: 'OK' },
  pointer: { action: 'move', x: 10, y: 10 },
  keyboard: { action: 'type', text: 'hi' },
  hypr: { action: 'workspace', workspace: '2' },
  wm: { action: 'workspace', workspace: '2' },
  launch: { command: 'true' },
  use_bind: { combo: 'SUPER+Return' },
  sequence: { steps: [{ op: 'pointer', action: 'move', x: 10, y: 10 }] },
  clipboard: { action: 'read' },
};

function types(p: Prop): string[] {
  if (p.anyOf) return p.anyOf.flatMap(types);
  if (p.enum) return ['enum'];
  return Array.isArray(p.type) ? p.type : p.type ? [p.type] : [];
}

/** Values of the wrong JSON type for a property. */
function wrongTypes(p: Prop): unknown[] {
  const t = types(p);
  const out: unknown[] = [];
  if (!t.includes('string') && !t.includes('enum')) out.push('12', 'true');
  if (!t.includes('number') && !t.includes('integer')) out.push(7, -1.5);
  if (!t.includes('boolean')) out.push(true);
  if (!t.includes('object')) out.push({ $gt: '' });
  if (!t.includes('array')) out.push(['x']);
  out.push(null);
  return out;
}

export function schemaCases(tool: AnyTool, name: string): FuzzCase[] {
  const js = inputJsonSchema(tool) as { properties?: Record<string, Prop> };
  const valid = VALID[name] ?? {};
  const cases: FuzzCase[] = [
    { tool: name, args: ['not', 'an', 'object'], why: 'arguments as an array' },
    { tool: name, args: 'desktop', why: 'arguments as a string' },
    { tool: name, args: { ...valid, __proto__x: 1, unknown_field: 'x' }, why: 'an unknown field' },
  ];
  for (const [field, p] of Object.entries(js.properties ?? {})) {
    for (const v of wrongTypes(p)) cases.push({ tool: name, args: { ...valid, [field]: v }, why: `${field} of the wrong type (${JSON.stringify(v)})` });
    const t = types(p);
    if (t.includes('enum')) {
      for (const v of ['', 'LEFT ', 'drop_table', RTL_OVERRIDE, LONE_SURROGATE]) cases.push({ tool: name, args: { ...valid, [field]: v }, why: `${field} outside its enum (${JSON.stringify(v)})` });
    }
    if (t.includes('string') && p.maxLength !== undefined) {
      cases.push({ tool: name, args: { ...valid, [field]: 'x'.repeat(p.maxLength + 1) }, why: `${field} one over its maximum length` });
      cases.push({ tool: name, args: { ...valid, [field]: HUGE }, why: `${field} a 1.1 MB string` });
    }
    if ((t.includes('number') || t.includes('integer')) && !t.includes('string')) {
      cases.push({ tool: name, args: { ...valid, [field]: Number.NaN }, why: `${field} NaN` });
      cases.push({ tool: name, args: { ...valid, [field]: Number.POSITIVE_INFINITY }, why: `${field} Infinity` });
      if (p.minimum !== undefined) cases.push({ tool: name, args: { ...valid, [field]: p.minimum - 1 }, why: `${field} below its minimum` });
      if (p.maximum !== undefined) cases.push({ tool: name, args: { ...valid, [field]: p.maximum + 1 }, why: `${field} above its maximum` });
      if (t.includes('integer')) cases.push({ tool: name, args: { ...valid, [field]: 1.5 }, why: `${field} not an integer` });
    }
  }
  return cases;
}

/** Values that pass a naive type check but must still be refused before anything is delivered. */
export function semanticCases(): FuzzCase[] {
  const c: FuzzCase[] = [];
  const add = (tool: string, args: unknown, why: string) => c.push({ tool, args, why });
  for (const [x, y] of [[-5, -5], [-99999, 10], [10, 1e9], [Number.NaN, 10], ['abc', 10], ['1,2,3', undefined], ['', 5], ['12', undefined], [Number.MAX_VALUE, 1]] as const) {
    add('pointer', { action: 'click', x, y }, `click at (${String(x)}, ${String(y)})`);
  }
  add('pointer', { action: 'click', x: 10 }, 'x without y');
  add('pointer', { action: 'drag', x: 10, y: 10 }, 'drag without a destination');
  add('pointer', { action: 'drag', x: 10, y: 10, to_x: -1e6, to_y: 5 }, 'drag to off-screen');
  add('pointer', { action: 'move', x: 10, y: 10, to_x: 20, to_y: 20 }, 'to_x on move');
  add('pointer', { action: 'scroll', x: 10, y: 10 }, 'scroll of zero notches');
  add('pointer', { action: 'scroll', scroll_dy: 1e6 }, 'a million notches');
  add('pointer', { action: 'move', x: 10, y: 10, double: true }, 'double on move');
  add('zoom', { x: 10, y: 10, size: '0x0' }, 'a zero zoom box');
  add('zoom', { x: 10, y: 10, size: '-5x10' }, 'a negative zoom box');
  add('zoom', { x: 10, y: 10, size: '10x10; rm' }, 'an injected zoom size');
  add('screenshot', { region: '1,2,3' }, 'a region without a size');
  add('screenshot', { region: '0,0,0x0' }, 'a zero region');
  add('screenshot', { region: '0,0 10x10"]]' }, 'an injected region');
  add('screenshot', { region: '0,0,10x10', window: 'active' }, 'region and window together');
  add('screenshot', { scale: 5 }, 'a scale above 1');
  add('screenshot', { scale: -0.5 }, 'a negative scale');
  add('keyboard', { action: 'type' }, 'type without text');
  add('keyboard', { action: 'type', text: 'x', keys: 'ctrl+s' }, 'type with keys');
  add('keyboard', { action: 'key' }, 'key without keys');
  add('keyboard', { action: 'key', keys: 'ctrl+ctrl+' }, 'a broken combo');
  add('keyboard', { action: 'key', keys: 'ctrl+s; exec foot' }, 'an injected combo');
  add('keyboard', { action: 'key', keys: 'hyper+🙂' }, 'a nonsense combo');
  add('keyboard', { action: 'type', text: 'x'.repeat(20001) }, 'over 20000 characters');
  for (const w of INJECTIONS) {
    add('keyboard', { action: 'type', text: 'x', window: w }, `keyboard into window ${JSON.stringify(w)}`);
    add('pointer', { action: 'click', x: 10, y: 10, window: w }, `pointer with window ${JSON.stringify(w)}`);
    add('screenshot', { window: w }, `screenshot of window ${JSON.stringify(w)}`);
  }
  for (const ws of [...INJECTIONS, '', 'x'.repeat(65), 'a]b', 'tab\there', '\u007f']) {
    add('wm', { action: 'workspace', workspace: ws }, `workspace ${JSON.stringify(ws)}`);
    add('wm', { action: 'move_window', target: '1', workspace: ws }, `move to workspace ${JSON.stringify(ws)}`);
    add('launch', { command: 'true', workspace: ws }, `launch onto workspace ${JSON.stringify(ws)}`);
  }
  for (const ws of UNICODE_WORKSPACES) {
    add('wm', { action: 'workspace', workspace: ws }, `workspace ${JSON.stringify(ws)} (unicode edge case)`);
    add('launch', { command: 'true', workspace: ws }, `launch onto workspace ${JSON.stringify(ws)} (unicode edge case)`);
    add('wm', { action: 'focus_window', target: ws }, `focus window ${JSON.stringify(ws)}`);
  }
  for (const t of UNTYPEABLE) add('keyboard', { action: 'type', text: t }, `type ${JSON.stringify(t)} (lone surrogate)`);
  for (const t of UNTYPEABLE) {
    add('clipboard', { action: 'write', text: t }, `copy ${JSON.stringify(t)} (lone surrogate)`);
    add('launch', { command: `echo ${t}` }, `launch a command with a lone surrogate`);
  }
  for (const t of INJECTIONS) add('wm', { action: 'focus_window', target: t }, `focus window ${JSON.stringify(t)}`);
  add('wm', { action: 'focus_window' }, 'focus without a target');
  add('wm', { action: 'focus_window', target: 'active' }, 'focus "active"');
  add('wm', { action: 'workspace' }, 'workspace without a name');
  add('wm', { action: 'workspace', workspace: '2', target: '1' }, 'workspace with a target');
  add('wm', { action: 'close_window', target: '1', workspace: '2' }, 'close with a workspace');
  add('launch', { command: '' }, 'an empty command');
  add('launch', { command: 'foot\u0000; rm -rf /' }, 'a NUL in the command');
  add('click_ui', {}, 'neither name nor mark');
  add('click_ui', { name: 'OK', mark: 2 }, 'both name and mark');
  add('click_ui', { name: 'OK', index: -7 }, 'a negative index');
  add('wait_for', { event: 'window_open', timeout_s: Number.NaN }, 'a NaN timeout');
  add('sequence', { steps: [] }, 'no steps');
  add('sequence', { steps: [{ op: 'exec', command: 'foot' }] }, 'an unknown step op');
  add('sequence', { steps: [{ action: 'click' }] }, 'a step without op');
  add('sequence', { steps: ['pointer click'] }, 'a step that is a string');
  add('sequence', { steps: [{ op: 'pointer', action: 'click', x: 10, y: 10 }, { op: 'pointer', action: 'wiggle' }] }, 'a valid step, then a bad one (nothing of the first may run)');
  add('sequence', { steps: [{ op: 'keyboard', action: 'type', text: 'x' }, { op: 'wm', action: 'workspace', workspace: '1; exec foot' }] }, 'an injected workspace in step 2');
  add('sequence', { steps: Array.from({ length: 31 }, () => ({ op: 'pointer', action: 'move', x: 10, y: 10 })) }, 'more steps than the limit');
  add('use_bind', { combo: '' }, 'an empty combo');
  add('clipboard', { action: 'write' }, 'write without text');
  add('clipboard', { action: 'read', text: 'x' }, 'read with text');
  return c;
}

/** CLI argv that must be exit 2 (usage), with no side effect. */
export const BAD_VERBS: Array<{ argv: string[]; why: string }> = [
  { argv: ['frobnicate'], why: 'an unknown verb' },
  { argv: ['pointer', 'wiggle'], why: 'an unknown action' },
  { argv: ['pointer', 'click', 'abc', '10'], why: 'a non-numeric x' },
  { argv: ['pointer', 'click', '--x', 'NaN', '--y', '10'], why: 'a NaN x' },
  { argv: ['pointer', 'click', '-99999', '10'], why: 'an off-screen point' },
  { argv: ['pointer', 'click', '--colour', 'red'], why: 'an unknown flag' },
  { argv: ['pointer', 'click', '--button', 'nose', '10', '10'], why: 'an unknown button' },
  { argv: ['zoom', 'abc', '5'], why: 'a non-numeric zoom point' },
  { argv: ['screenshot', '--region', '1,2,3'], why: 'a malformed region' },
  { argv: ['keyboard', 'type'], why: 'type without text' },
  { argv: ['keyboard', 'key', 'ctrl+ctrl+'], why: 'a broken combo' },
  { argv: ['wm', 'workspace', '--workspace', '1; exec foot'], why: 'an injected workspace' },
  { argv: ['wm', 'focus_window', '"]]'], why: 'an injected window address' },
  { argv: ['wait_for', 'explode'], why: 'an unknown event' },
  { argv: ['launch', ''], why: 'an empty command' },
  { argv: ['sequence', '--steps', '{"op":"exec"}'], why: 'steps that are not a list' },
  { argv: ['sequence', '--steps', '[{"op":"exec","command":"foot"}]'], why: 'an unknown step op' },
  { argv: ['desktop', '--extra', '1'], why: 'a flag desktop does not take' },
];

/** Unicode that must never reach a workspace name, and text that cannot be typed. */
export const UNICODE_WORKSPACES = [LONE_SURROGATE, RTL_OVERRIDE, 'ws\u2066x', 'ws\u200bx', '\ufeffws', 'ws\u200fx'];
export const UNTYPEABLE = ['a\ud800b', '\udfffx', 'x\ud83d'];
