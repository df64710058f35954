import { describe, expect, it } from 'vitest';
import { UsageError } from '@hypruse/core';
import { legacyDispatch, legacyMarkRules, looksLikeWrongDialect, luaDispatch, luaMarkRule } from '../src/dispatch/dialect.js';
import { luaString } from '../src/dispatch/lua-literal.js';
import { validateAddress, validateTag, validateWorkspace } from '../src/dispatch/validate.js';
// The simulator's strict Lua parser decodes what Hyprland's Lua would see.
import { parseLuaExpression, parseLuaStatement, type LuaCall } from '../../../tests/simulators/hyprland/lua-parser.js';

const A = '0x55a4479a1200';
const HOSTILE = [
  'x") os.execute("rm -rf ~") --',
  "x' .. os.getenv('HOME') .. '",
  'a]]b[[c]==]',
  'line1\nline2\r\n\0end',
  '.. hl.dsp.exit() ..',
  '\\"; hl.dsp.exit(); --',
  'ünïcødé ✓ 🚀',
  '\x1b[31m\x7f',
];

describe('dispatch rendering', () => {
  it('legacy grammar', () => {
    expect(legacyDispatch({ op: 'focus_window', window: A })).toEqual([`focuswindow address:${A}`]);
    expect(legacyDispatch({ op: 'move_to_workspace', window: A, workspace: '3', silent: true })).toEqual([`movetoworkspacesilent 3,address:${A}`]);
    expect(legacyDispatch({ op: 'fullscreen', window: A })).toEqual([`focuswindow address:${A}`, 'fullscreen 0']);
    expect(legacyDispatch({ op: 'exec', command: 'foot -e vim', workspace: '3' })).toEqual(['exec [workspace 3 silent] foot -e vim']);
    expect(legacyDispatch({ op: 'move_cursor', x: 10.6, y: -3.2 })).toEqual(['movecursor 11 -3']);
    expect(legacyDispatch({ op: 'tag_window', tag: 'hypruse-owned', window: A })).toEqual([`tagwindow +hypruse-owned address:${A}`]);
    expect(() => legacyDispatch({ op: 'exec', command: 'a\nb' })).toThrowError(UsageError);
    // 0.50-0.52: windowrulev2 + bordercolor + tag:X; 0.53-0.56: match:tag on the property; unknown: newer first
    expect(legacyMarkRules('hypruse-owned', 'rgb(ff5555)', [0, 52, 1])).toEqual(['windowrulev2 bordercolor rgb(ff5555), tag:hypruse-owned']);
    expect(legacyMarkRules('hypruse-owned', 'rgb(ff5555)', [0, 53, 0])).toEqual(['windowrule match:tag hypruse-owned, border_color rgb(ff5555)']);
    expect(legacyMarkRules('hypruse-owned', 'rgb(ff5555)', null)).toEqual(['windowrule match:tag hypruse-owned, border_color rgb(ff5555)', 'windowrulev2 bordercolor rgb(ff5555), tag:hypruse-owned']);
  });

  it('Lua forms parse as the intended call with the intended values', () => {
    const parse = (s: string) => parseLuaExpression(s) as LuaCall;
    const focus = parse(luaDispatch({ op: 'focus_window', window: A })[0]);
    expect(focus.path).toBe('hl.dsp.focus');
    expect(focus.args[0]).toMatchObject({ fields: { window: `address:${A}` } });
    const move = parse(luaDispatch({ op: 'move_to_workspace', window: A, workspace: '3', silent: true })[0]);
    expect(move).toMatchObject({ path: 'hl.dsp.window.move', args: [{ fields: { workspace: '3', follow: false, window: `address:${A}` } }] });
    expect(parse(luaDispatch({ op: 'move_cursor', x: 100.4, y: 200 })[0])).toMatchObject({ path: 'hl.dsp.cursor.move', args: [{ fields: { x: 100, y: 200 } }] });
    expect(parse(luaDispatch({ op: 'exec', command: 'foot', workspace: '3' })[0])).toMatchObject({ path: 'hl.dsp.exec_cmd', args: ['foot', { fields: { workspace: '3 silent' } }] });
    expect(parseLuaStatement(luaMarkRule('hypruse-owned', 'rgb(ff5555)'))).toMatchObject({
      path: 'hl.window_rule',
      args: [{ fields: { match: { fields: { tag: 'hypruse-owned' } }, border_color: 'rgb(ff5555)' } }],
    });
  });

  it.each(HOSTILE)('no Lua injection: %j stays one string literal', (hostile) => {
    // Round trip through a strict Lua parser: exactly one call, the value unchanged.
    expect(parseLuaExpression(luaString(hostile))).toBe(hostile);
    const exec = parseLuaExpression(luaDispatch({ op: 'exec', command: hostile })[0]) as LuaCall;
    expect(exec).toEqual({ kind: 'call', path: 'hl.dsp.exec_cmd', args: [hostile] });
    const lit = luaString(hostile);
    expect(lit).not.toMatch(/[\n\r\0]/);
  });

  it('refuses workspace strings that could break either grammar', () => {
    for (const ok of ['3', '+1', 'e-1', 'm~2', 'name:web', 'special:scratch', 'previous', 'my ws', 'données']) expect(validateWorkspace(ok)).toBe(ok);
    for (const bad of ['3,address:0x1', '1]', '[workspace 2] x', 'a;b', 'x")', "x'", 'a\nb', 'a\\b', '{x}', '', 'x'.repeat(65)]) {
      try {
        validateWorkspace(bad);
        expect.unreachable(`accepted ${JSON.stringify(bad)}`);
      } catch (e) {
        expect(e).toBeInstanceOf(UsageError);
        expect((e as UsageError).code).toBe('usage.workspace');
      }
    }
    expect(() => validateAddress('55a4')).toThrowError(/not a window address/);
    expect(validateAddress('0xABC')).toBe('0xabc');
    expect(() => validateTag('a b')).toThrowError(UsageError);
  });

  it('recognises replies that mean "other dialect"', () => {
    expect(looksLikeWrongDialect('legacy', `[string "return hl.dispatch(workspace 3)"]:1: ')' expected near '3'\n→ Note: dispatch in lua is a shorthand for hl.dispatch(...), your syntax might need to be updated.`)).toBe(true);
    expect(looksLikeWrongDialect('legacy', "keyword can't work with non-legacy parsers. Use eval.")).toBe(true);
    expect(looksLikeWrongDialect('lua', 'Invalid dispatcher')).toBe(true);
    expect(looksLikeWrongDialect('legacy', 'No such window found')).toBe(false);
    expect(looksLikeWrongDialect('lua', 'No such window found')).toBe(false);
  });
});
