import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { comboKey, parseSwayBinds } from '../src/model/binds.js';

describe('parseSwayBinds', () => {
  it('parses the recorded GET_CONFIG text: $vars, flags, bindcode and a mode block', () => {
    const { config } = JSON.parse(readFileSync(new URL('./fixtures/two-outputs.get_config.json', import.meta.url), 'utf8')) as { config: string };
    const binds = parseSwayBinds(config);
    expect(binds.map(({ combo, action, arg, mode, flags }) => ({ combo, action, arg, mode, flags }))).toEqual([
      { combo: 'Mod4+Return', action: 'exec', arg: 'foot', mode: undefined, flags: [] },
      { combo: 'Mod4+Shift+q', action: 'kill', arg: '', mode: undefined, flags: ['--release'] },
      { combo: 'XF86AudioMute', action: 'exec', arg: 'true', mode: undefined, flags: ['--locked'] },
      { combo: 'code:38', action: 'workspace', arg: '7', mode: undefined, flags: [] },
      { combo: 'Mod4+r', action: 'mode', arg: '"resize"', mode: undefined, flags: [] },
      { combo: 'Left', action: 'resize', arg: 'shrink width 10px', mode: 'resize', flags: [] },
      { combo: 'Escape', action: 'mode', arg: '"default"', mode: 'resize', flags: [] },
    ]);
    expect(binds[1].description).toBe('flags: --release');
  });

  it('handles comments, continuations, nested vars, bindsym blocks, pango modes and unrelated blocks', () => {
    const cfg = [
      '# comment bindsym Mod4+x kill',
      'set $mod Mod1',
      'set $left h',
      'set $menu wofi --show drun',
      'set $modx $mod+Shift',
      'bindsym $mod+d exec \\',
      '    $menu',
      'bindsym $modx+$left move left',
      'input * {',
      '    xkb_layout us',
      '}',
      'bindsym --to-code {',
      '    $mod+1 workspace number 1',
      '    $mod+2 workspace number 2',
      '}',
      'mode --pango_markup "<b>sys</b>" {',
      '    bindsym --no-warn q exec systemctl poweroff',
      '}',
      'bindsym --whole-window button2 kill',
    ].join('\n');
    const binds = parseSwayBinds(cfg);
    expect(binds.map((b) => [b.combo, b.command, b.mode ?? null, b.flags.join(' ')])).toEqual([
      ['Mod1+d', 'exec wofi --show drun', null, ''],
      ['Mod1+Shift+h', 'move left', null, ''],
      ['Mod1+1', 'workspace number 1', null, '--to-code'],
      ['Mod1+2', 'workspace number 2', null, '--to-code'],
      ['q', 'exec systemctl poweroff', '<b>sys</b>', '--no-warn'],
      ['button2', 'kill', null, '--whole-window'],
    ]);
    // --no-warn alone is not worth showing
    expect(binds[4].description).toBeUndefined();
  });

  it('normalizes combos for lookup regardless of case, spaces and modifier order', () => {
    expect(comboKey('Mod4+Shift+q')).toBe(comboKey('shift + mod4 + Q'));
    expect(comboKey('Mod4+q')).not.toBe(comboKey('Mod4+w'));
  });
});
