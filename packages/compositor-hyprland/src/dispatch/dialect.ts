import { luaNumber, luaString, luaTable, type LuaTable } from './lua-literal.js';
import { validateAddress, validateLegacyText, validateWorkspace } from './validate.js';

/** How dispatches are spelled: the legacy grammar (hyprlang configs, ≤0.56) or Lua (Lua configs, 0.55+ and main). */
export type Dialect = 'legacy' | 'lua';

/** The dispatches hypruse sends, independent of dialect. Values are validated by the caller. */
export type DispatchOp =
  | { op: 'focus_window'; window: string }
  | { op: 'workspace'; workspace: string }
  /** window null: the active window */
  | { op: 'move_to_workspace'; workspace: string; window: string | null; silent: boolean }
  /** window null: the active window */
  | { op: 'close_window'; window: string | null }
  | { op: 'fullscreen'; window: string | null }
  | { op: 'toggle_floating'; window: string | null }
  | { op: 'move_cursor'; x: number; y: number }
  | { op: 'exec'; command: string; workspace?: string }
  | { op: 'tag_window'; tag: string; window: string }
  /** A legacy bind's own dispatcher and argument, verbatim (legacy only). */
  | { op: 'raw'; dispatcher: string; arg: string };

const sel = (address: string) => `address:${address}`;

/** The legacy text after `dispatch `. Returns several when the op needs more than one dispatch. */
export function legacyDispatch(op: DispatchOp): string[] {
  switch (op.op) {
    case 'focus_window':
      return [`focuswindow ${sel(op.window)}`];
    case 'workspace':
      return [`workspace ${op.workspace}`];
    case 'move_to_workspace':
      return [`${op.silent ? 'movetoworkspacesilent' : 'movetoworkspace'} ${op.workspace}${op.window ? `,${sel(op.window)}` : ''}`];
    case 'close_window':
      return [op.window ? `closewindow ${sel(op.window)}` : 'killactive'];
    case 'fullscreen':
      return op.window ? [`focuswindow ${sel(op.window)}`, 'fullscreen 0'] : ['fullscreen 0'];
    case 'toggle_floating':
      return [op.window ? `togglefloating ${sel(op.window)}` : 'togglefloating'];
    case 'move_cursor':
      return [`movecursor ${Math.round(op.x)} ${Math.round(op.y)}`];
    case 'exec': {
      validateLegacyText('the command', op.command);
      return [op.workspace ? `exec [workspace ${op.workspace} silent] ${op.command}` : `exec ${op.command}`];
    }
    case 'tag_window':
      return [`tagwindow +${op.tag} ${sel(op.window)}`];
    case 'raw':
      validateLegacyText('the bind argument', op.arg);
      return [op.arg ? `${op.dispatcher} ${op.arg}` : op.dispatcher];
  }
}

function call(path: string, ...args: string[]): string {
  return `${path}(${args.join(', ')})`;
}

/** The Lua expression after `dispatch ` (Hyprland evaluates `return hl.dispatch(<expr>)`). Every value is an escaped literal. */
export function luaDispatch(op: DispatchOp): string[] {
  switch (op.op) {
    case 'focus_window':
      return [call('hl.dsp.focus', luaTable({ window: sel(op.window) }))];
    case 'workspace':
      return [call('hl.dsp.focus', luaTable({ workspace: op.workspace }))];
    case 'move_to_workspace':
      return [call('hl.dsp.window.move', luaTable({ workspace: op.workspace, follow: !op.silent, window: op.window ? sel(op.window) : undefined }))];
    case 'close_window':
      return [call('hl.dsp.window.close', luaTable({ window: op.window ? sel(op.window) : undefined }))];
    case 'fullscreen': {
      const t: LuaTable = { mode: 'fullscreen', action: 'toggle' };
      if (op.window) t.window = sel(op.window);
      return [call('hl.dsp.window.fullscreen', luaTable(t))];
    }
    case 'toggle_floating': {
      const t: LuaTable = { action: 'toggle' };
      if (op.window) t.window = sel(op.window);
      return [call('hl.dsp.window.float', luaTable(t))];
    }
    case 'move_cursor':
      return [call('hl.dsp.cursor.move', `{ x = ${luaNumber(Math.round(op.x))}, y = ${luaNumber(Math.round(op.y))} }`)];
    case 'exec':
      return [op.workspace ? call('hl.dsp.exec_cmd', luaString(op.command), luaTable({ workspace: `${op.workspace} silent` })) : call('hl.dsp.exec_cmd', luaString(op.command))];
    case 'tag_window':
      return [call('hl.dsp.window.tag', luaTable({ tag: `+${op.tag}`, window: sel(op.window) }))];
    case 'raw':
      throw new Error('raw legacy dispatches have no Lua form');
  }
}

/** `eval` code installing the MARK border rule in Lua. */
export function luaMarkRule(tag: string, color: string): string {
  return call('hl.window_rule', luaTable({ match: { tag }, border_color: color }));
}

/**
 * `keyword` requests for the MARK rule on a hyprlang config, per version
 * (from the sources): 0.50-0.52 know only `windowrulev2 = bordercolor C, tag:X`;
 * 0.53-0.56 need `match:` on every property (`windowrule = match:tag X,
 * border_color C`); there a bare `tag X` is the tag *effect*, so a rule
 * without `match:` is accepted with `ok` and never applies. An unknown
 * version gets the 0.53+ form first, then the older one.
 */
export function legacyMarkRules(tag: string, color: string, version: [number, number, number] | null): string[] {
  const modern = `windowrule match:tag ${tag}, border_color ${color}`;
  const old = `windowrulev2 bordercolor ${color}, tag:${tag}`;
  if (!version) return [modern, old];
  return version[0] === 0 && version[1] < 53 ? [old] : [modern];
}

/** Reply texts that mean "this dispatch was written in the other dialect". */
export function looksLikeWrongDialect(dialect: Dialect, reply: string): boolean {
  const r = reply.toLowerCase();
  if (dialect === 'legacy') {
    return r.includes('dispatch in lua is a shorthand') || r.includes("non-legacy parser") || /\[string "return hl\.dispatch/.test(reply);
  }
  return r.includes('invalid dispatcher') || r.includes('unknown request');
}

/** A window selector of a legacy bind argument we can carry into Lua: `address:0x…` only; empty = active window. */
function bindWindow(s: string | undefined): string | null | undefined {
  const t = (s ?? '').trim();
  if (t === '' || t === 'activewindow') return null;
  const m = /^address:(0x[0-9a-fA-F]+)$/.exec(t);
  return m ? validateAddress(m[1]) : undefined;
}

/**
 * Translate a legacy bind's dispatcher and argument into an operation that has
 * a Lua form (the common agent-relevant ones, as Hyprland's own legacy
 * translator does). null when there is no safe translation.
 */
export function translateLegacyBind(dispatcher: string, arg: string): DispatchOp | null {
  const a = arg.trim();
  switch (dispatcher) {
    case 'workspace':
      return { op: 'workspace', workspace: validateWorkspace(a) };
    case 'movetoworkspace':
    case 'movetoworkspacesilent': {
      const comma = a.indexOf(',');
      const win = bindWindow(comma < 0 ? '' : a.slice(comma + 1));
      if (win === undefined) return null;
      return { op: 'move_to_workspace', workspace: validateWorkspace(comma < 0 ? a : a.slice(0, comma)), window: win, silent: dispatcher.endsWith('silent') };
    }
    case 'exec':
      return a ? { op: 'exec', command: a } : null;
    case 'killactive':
      return { op: 'close_window', window: null };
    case 'closewindow': {
      const win = bindWindow(a);
      return win === undefined ? null : { op: 'close_window', window: win };
    }
    case 'focuswindow': {
      const win = bindWindow(a);
      return win ? { op: 'focus_window', window: win } : null;
    }
    case 'togglefloating': {
      const win = bindWindow(a);
      return win === undefined ? null : { op: 'toggle_floating', window: win };
    }
    case 'fullscreen':
      return a === '' || a === '0' ? { op: 'fullscreen', window: null } : null;
    case 'movecursor': {
      const m = /^(-?\d+)\s+(-?\d+)$/.exec(a);
      return m ? { op: 'move_cursor', x: Number(m[1]), y: Number(m[2]) } : null;
    }
    default:
      return null;
  }
}
