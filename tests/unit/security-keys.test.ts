// Key combinations against the person's bindings, in every compositor's syntax: each plugin's
// normalizer, the one comparison (core bindReach), fail-closed parsing, and unknown key names.
// The sway side is proven on the real desktop in tests/e2e/security-keys.test.ts.
import { describe, expect, it } from 'vitest';
import { bindReachedBy, compositorModifiers, parseCombo, type Bind } from '@hypruse/core';
import { parseSwayBinds, swayBindKeys } from '../../packages/compositor-sway/src/index.js';
import { hyprBindKeys, mapBinds } from '../../packages/compositor-hyprland/src/index.js';
import { niriBindKeys, parseNiriBinds } from '../../packages/compositor-niri/src/index.js';
import { HyprlandSimulator } from '../simulators/hyprland/index.js';

const reach = (keys: string, binds: Bind[]) => bindReachedBy(parseCombo(keys), binds);
const bind = (combo: string, keys: Bind['keys']): Bind => ({ combo, keys, action: 'exec', arg: 'x' });

const SWAY = `set $mod Mod4
set $alt Mod1
bindsym $mod+Return exec foot
bindsym $mod+Shift+q kill
bindsym --to-code $mod+d exec wofi
bindsym Control+$alt+Delete exec wlogout
bindsym Mod5+e exec emoji
bindsym Ctrl+Shift+Print exec grim
bindsym XF86AudioMute exec pactl set-sink-mute 0 toggle
bindsym $mod+minus scratchpad show
bindcode $mod+Control+38 exec touch /tmp/x
bindsym --whole-window $mod+button2 kill
mode "resize" {
  bindsym Return mode "default"
}
`;

describe('sway bindings (Mod4/Mod1/Mod5/Control, keysym case and aliases, keycodes)', () => {
  const binds = parseSwayBinds(SWAY).map((b) => ({ ...b, keys: swayBindKeys(b.combo) }));
  it('every spelling of a bound combination reaches its binding', () => {
    for (const k of ['super+Return', 'logo+return', 'win+enter', 'Mod4+Return', 'SUPER+RETURN', 'meta+Return', 'cmd+enter']) expect(reach(k, binds)?.bind.arg, k).toBe('foot');
    for (const k of ['super+shift+q', 'Mod4+Shift+Q', 'shift+super+q']) expect(reach(k, binds)?.bind.action, k).toBe('kill');
    for (const k of ['ctrl+alt+Delete', 'alt+ctrl+del', 'Control+Mod1+delete']) expect(reach(k, binds)?.bind.arg, k).toBe('wlogout');
    expect(reach('altgr+e', binds)?.bind.arg).toBe('emoji');
    expect(reach('ctrl+shift+Print', binds)?.exact).toBe(true);
    expect(reach('XF86AudioMute', binds)?.exact).toBe(true);
    expect(reach('super+-', binds)?.bind.action).toBe('scratchpad');
    expect(reach('super+d', binds)?.bind.arg).toBe('wofi');
    // bindcode 38 is the `a` key where hypruse's keyboard places it
    expect(reach('super+ctrl+a', binds)?.bind.arg).toBe('touch /tmp/x');
  });
  it('what is not bound passes: other modifiers, other keys, mode-only and mouse bindings', () => {
    for (const k of ['ctrl+a', 'Return', 'super+shift+Return', 'alt+Return', 'ctrl+q', 'super+ctrl+s', 'shift+Print']) expect(reach(k, binds), k).toBeNull();
  });
  it('a keycode hypruse places freely cannot be ruled out: refused as possible', () => {
    const r = reach('super+ctrl+é', binds);
    expect(r?.exact).toBe(false);
    expect(r?.why).toMatch(/keycode 38/);
  });
  it('a bare binding is reached by its key alone (what typing a character presses), not by the key under a modifier', () => {
    const bare = parseSwayBinds('bindsym section exec x\nbindsym Return exec y\n').map((b) => ({ ...b, keys: swayBindKeys(b.combo) }));
    expect(bindReachedBy({ modifiers: [], key: '§', source: '§' }, bare)?.bind.arg).toBe('x');
    expect(bindReachedBy({ modifiers: [], key: 'Return', source: 'Return' }, bare)?.bind.arg).toBe('y');
    expect(reach('shift+§', bare)).toBeNull();
    // an odd bare name matches only itself; under a modifier it matches any key (fail closed)
    const odd = [bind('XF86NotAKey', swayBindKeys('XF86NotAKey'))];
    expect(reach('Return', odd)).toBeNull();
    expect(reach('a', odd)).toBeNull();
  });

  it('modifiers and keys it does not understand fail closed, saying what was not understood', () => {
    expect(swayBindKeys('Hyper+x')).toMatchObject({ kind: 'unknown', unknown: 'Hyper' });
    const odd = [bind('Hyper+x', swayBindKeys('Hyper+x')), bind('Mod4+Frobnicate', swayBindKeys('Mod4+Frobnicate'))];
    expect(reach('super+x', odd)?.why).toMatch(/does not understand Hyper/);
    expect(reach('ctrl+shift+x', odd)?.exact).toBe(false);
    expect(reach('x', odd)).toBeNull(); // Hyper must be held, and nothing is
    expect(reach('super+z', odd)?.why).toMatch(/Frobnicate/);
    expect(reach('ctrl+z', odd)).toBeNull();
    // a bind without normalized keys (a third-party plugin that does not provide them) is read with every known modifier name
    expect(reach('super+z', [{ combo: 'SUPER + Z', action: 'exec', arg: 'x' }])?.exact).toBe(true);
    expect(reach('ctrl+z', [{ combo: 'SUPER + Z', action: 'exec', arg: 'x' }])).toBeNull();
    expect(reach('ctrl+z', [{ combo: 'Meh+z', action: 'exec', arg: 'x' }])?.exact).toBe(false);
  });
  it("the compositor's own modifiers: super always, and the one most bindings use", () => {
    expect([...compositorModifiers(binds)].sort()).toEqual(['logo']);
    const altMod = parseSwayBinds('bindsym Mod1+Return exec foot\nbindsym Mod1+q kill\nbindsym Ctrl+Print exec grim\n').map((b) => ({ ...b, keys: swayBindKeys(b.combo) }));
    expect([...compositorModifiers(altMod)].sort()).toEqual(['alt', 'logo']);
  });
});

describe('Hyprland bindings (modmask with $mainMod expanded by Hyprland, Lua binds, code:N, mouse)', () => {
  it('hyprlang and Lua binds from the simulator normalize alike and are reached by every spelling', () => {
    const legacy = new HyprlandSimulator({ version: '0.54' });
    expect(legacy.handle('keyword bind SUPER SHIFT,Q,killactive')).toBe('ok');
    const lua = new HyprlandSimulator({ version: 'main' });
    expect(lua.handle('eval hl.bind("SUPER + SHIFT + Return", hl.dsp.exec_cmd("foot"))')).toBe('ok');
    const binds = [...mapBinds(JSON.parse(legacy.handle('j/binds'))), ...mapBinds(JSON.parse(lua.handle('j/binds')))];
    expect(reach('super+shift+q', binds)?.bind.action).toBe('killactive');
    expect(reach('Mod4+Shift+Q', binds)?.exact).toBe(true);
    const l = reach('win+shift+enter', binds);
    expect(l?.bind.lua).toBe(true);
    expect(l?.exact).toBe(true);
    expect(reach('super+q', binds)?.bind.combo).not.toBe('SUPER+SHIFT+Q');
  });
  it('modmask bits, code:N keys and pointer binds', () => {
    expect(hyprBindKeys({ modmask: 64 | 8, key: 'F' })).toEqual({ kind: 'key', modifiers: ['logo', 'alt'], key: 'f' });
    expect(hyprBindKeys({ modmask: 128, key: 'e' })).toEqual({ kind: 'key', modifiers: ['altgr'], key: 'e' });
    expect(hyprBindKeys({ modmask: 64, key: 'code:24' })).toEqual({ kind: 'code', modifiers: ['logo'], code: 24 });
    expect(hyprBindKeys({ modmask: 64, keycode: 36 })).toEqual({ kind: 'code', modifiers: ['logo'], code: 36 });
    expect(hyprBindKeys({ modmask: 64, key: 'mouse:272', mouse: true })).toEqual({ kind: 'pointer' });
    expect(hyprBindKeys({ modmask: 64, key: 'mouse_down' })).toEqual({ kind: 'pointer' });
    const binds = mapBinds([{ modmask: 64, keycode: 36, dispatcher: 'exec', arg: 'foot' }, { modmask: 64, key: 'code:24', dispatcher: 'killactive' }]);
    expect(reach('super+Return', binds)?.bind.arg).toBe('foot');
    expect(reach('super+q', binds)?.bind.action).toBe('killactive');
  });
});

describe('niri bindings (Mod/Super/Win, KDL config)', () => {
  const KDL = `// niri config
input { keyboard { xkb { layout "us"; } } }
binds {
    Mod+Shift+Slash { show-hotkey-overlay; }
    Mod+T hotkey-overlay-title="Open a Terminal: foot" { spawn "foot"; }
    /-Mod+D { spawn "fuzzel"; }
    Super+Alt+L { spawn "swaylock"; }
    XF86AudioRaiseVolume allow-when-locked=true { spawn "wpctl" "set-volume" "@DEFAULT_AUDIO_SINK@" "0.1+"; }
    Mod+WheelScrollDown cooldown-ms=150 { focus-workspace-down; }
    /* Mod+Q { close-window; } */
    Ctrl+Alt+Delete { quit; }
}
`;
  const binds = parseNiriBinds(KDL);
  it('reads the binds section (comments and /- nodes skipped) with actions and titles', () => {
    expect(binds.map((b) => b.combo)).toEqual(['Mod+Shift+Slash', 'Mod+T', 'Super+Alt+L', 'XF86AudioRaiseVolume', 'Mod+WheelScrollDown', 'Ctrl+Alt+Delete']);
    expect(binds[1]).toMatchObject({ action: 'spawn', arg: 'foot', description: 'Open a Terminal: foot' });
    expect(niriBindKeys('Mod+WheelScrollDown')).toEqual({ kind: 'pointer' });
  });
  it('is reached by every spelling of the same keys', () => {
    expect(reach('super+t', binds)?.bind.arg).toBe('foot');
    expect(reach('win+shift+/', binds)?.bind.action).toBe('show-hotkey-overlay');
    expect(reach('logo+alt+l', binds)?.bind.arg).toBe('swaylock');
    expect(reach('XF86AudioRaiseVolume', binds)?.exact).toBe(true);
    expect(reach('ctrl+alt+Delete', binds)?.bind.action).toBe('quit');
    for (const k of ['super+d', 'super+q', 'ctrl+t', 'super+WheelScrollDown'.replace('WheelScrollDown', 'Down')]) expect(reach(k, binds), k).toBeNull();
  });
});

describe('unknown key names are usage errors naming the closest valid names', () => {
  it.each([
    ['ctrl+nonexistentkey', /"nonexistentkey" is not a key name \(closest: /],
    ['Frobnicate', /"Frobnicate" is not a key name \(closest: /],
    ['super+Retrun', /closest: Return/],
    ['\u0000', /control character/],
    ['ctrl+\u001b', /control character/],
    ['hyper+a', /"hyper" is not a modifier .*closest modifiers: super/],
  ])('%j', (keys, why) => {
    let err: unknown;
    try {
      parseCombo(keys);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ category: 'usage', code: 'usage.combo' });
    expect((err as Error).message).toMatch(why);
  });
  it('keysym names are found whatever their case, and Mod4/Mod1/Mod5 are modifiers', () => {
    expect(parseCombo('xf86audioplay').key).toBe('XF86AudioPlay');
    expect(parseCombo('Mod4+Mod1+Mod5+kp_enter')).toMatchObject({ modifiers: ['logo', 'alt', 'altgr'], key: 'KP_Enter' });
    expect(parseCombo('U00E9').key).toBe('U00E9');
    expect(() => parseCombo('U0000')).toThrow(/not a key name/);
  });
});
