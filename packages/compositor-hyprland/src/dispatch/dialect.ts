import { luaNumber, luaString, luaTable, type LuaTable } from './lua-literal.js';
import { validateLegacyText } from './validate.js';

/** How dispatches are spelled: the legacy grammar (hyprlang configs, ≤0.56) or Lua (Lua configs, 0.55+ and main). */
export type Dialect = 'legacy' | 'lua';

/** The dispatches hypruse sends, independent of dialect. Values are validated by the caller. */
export type DispatchOp =
  | { op: 'focus_window'; window: string }
  | { op: 'workspace'; workspace: string }
  | { op: 'move_to_workspace'; workspace: string; window: string; silent: boolean }
  | { op: 'close_window'; window: string }
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
      return [`${op.silent ? 'movetoworkspacesilent' : 'movetoworkspace'} ${op.workspace},${sel(op.window)}`];
    case 'close_window':
      return [`closewindow ${sel(op.window)}`];
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
      return [call('hl.dsp.window.move', luaTable({ workspace: op.workspace, follow: !op.silent, window: sel(op.window) }))];
    case 'close_window':
      return [call('hl.dsp.window.close', luaTable({ window: sel(op.window) }))];
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

/** `keyword windowrule` values for the legacy MARK rule: modern matcher first, then the older `tag:` form. */
export function legacyMarkRules(tag: string, color: string): string[] {
  return [`border_color ${color}, tag ${tag}`, `border_color ${color}, tag:${tag}`];
}

/** Reply texts that mean "this dispatch was written in the other dialect". */
export function looksLikeWrongDialect(dialect: Dialect, reply: string): boolean {
  const r = reply.toLowerCase();
  if (dialect === 'legacy') {
    return r.includes('dispatch in lua is a shorthand') || r.includes("non-legacy parser") || /\[string "return hl\.dispatch/.test(reply);
  }
  return r.includes('invalid dispatcher') || r.includes('unknown request');
}
