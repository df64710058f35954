// Input validation and the confinement rules for modifiers and bare pointer moves: coordinates
// read the same way everywhere (finite, decimal only, on a monitor), control characters escaped
// where text is drawn or written to a terminal, and (under confinement) no input holding the
// compositor's modifier and no bare move over a window outside the scope.
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { escapeControlChars, type Intent } from '@hypruse/core';
import { confineLayer } from '../../packages/trust/src/index.js';
import { desktop, fakeCall, fakeCompositor, fakeNext, refusal, run, win } from '../../packages/trust/test/fakes.js';
import { labelSvg } from '../../packages/wayland/src/indicator/indicator-svg.js';
import { normalizePair } from '../../packages/tools/src/pointer.js';
import { assertInLayout, assertRegionInLayout, coordNumber } from '../../packages/tools/src/common/coords.js';
import { swayBindKeys } from '../../packages/compositor-sway/src/index.js';

const monitors = desktop([]).monitors;

describe('coordinates: finite, decimal only, on a monitor, in every tool', () => {
  it.each([['0x10'], ['1e3'], ['Infinity'], ['NaN'], [' 12abc'], ['0b11'], ['1_000'], ['']])('%j is a usage error, never read as a number', (v) => {
    expect(() => coordNumber('x', v)).toThrow(expect.objectContaining({ category: 'usage' }));
    expect(() => normalizePair('x', 'y', v, 5)).toThrow(expect.objectContaining({ category: 'usage' }));
  });
  it('plain decimals (strings too, and "x,y" pairs) are read as given', () => {
    expect(normalizePair('x', 'y', '812', ' 433.5 ')).toEqual({ x: 812, y: 433.5 });
    expect(normalizePair('x', 'y', '812,433', undefined)).toEqual({ x: 812, y: 433 });
    expect(normalizePair('x', 'y', -3, 4)).toEqual({ x: -3, y: 4 });
    expect(() => normalizePair('x', 'y', '0x10,5', undefined)).toThrow(/not a decimal number/);
  });
  it('a point or region off every monitor is refused, not clamped (zoom x=1e308 included)', () => {
    expect(() => assertInLayout('x,y', { x: 1e308, y: 10 }, monitors)).toThrow(/outside every monitor/);
    expect(() => assertInLayout('x,y', { x: -1, y: 10 }, monitors)).toThrow(/outside every monitor/);
    expect(() => assertInLayout('x,y', { x: 10, y: 10 }, monitors)).not.toThrow();
    expect(() => assertRegionInLayout('region', { x: 1e9, y: 0, width: 10, height: 10 }, monitors)).toThrow(/outside every monitor/);
    expect(() => assertRegionInLayout('region', { x: 0, y: 0, width: Infinity, height: 10 }, monitors)).toThrow(/too large/);
    expect(() => assertRegionInLayout('region', { x: -5, y: -5, width: 20, height: 20 }, monitors)).not.toThrow();
  });
});

describe('control characters are escaped where text is drawn or written out', () => {
  it('escapes C0, DEL, C1, bidi overrides and line separators; keeps what is asked', () => {
    expect(escapeControlChars('a\u0000b\u001b[31mc\u007f\u0085\u202e\u2028')).toBe('a\\u0000b\\u001b[31mc\\u007f\\u0085\\u202e\\u2028');
    expect(escapeControlChars('x\ny\tz\r', '\n\t')).toBe('x\ny\tz\\r');
    expect(escapeControlChars('plain é 日本')).toBe('plain é 日本');
  });
  it('a label holding NUL and ESC renders on the indicator (the SVG stays well-formed XML)', async () => {
    const svg = labelSvg('agent · typing into "\u0000\u001b[2J<b>"', 600);
    // eslint-disable-next-line no-control-regex
    expect(svg).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    const { info } = await sharp(Buffer.from(svg)).raw().toBuffer({ resolveWithObject: true });
    expect(info.width).toBeGreaterThan(0);
  });
});

describe('confinement: the compositor modifier and bare moves', () => {
  const mine = win('0xa', 'zenity', 0, 0, 400, 300);
  const other = win('0xb', 'firefox', 500, 0, 400, 300);
  const keys = (k: string, mods: string[]): Intent => ({ summary: `press ${k} in 0xa`, input: 'keyboard', windows: ['0xa'], keys: k, modifiers: mods });
  const confined = (intent: Intent, over: Record<string, unknown> = {}, binds: Array<{ combo: string }> = []) => {
    const comp = fakeCompositor(desktop([mine, other]), ['binds']);
    comp.binds = async () => binds.map((b) => ({ ...b, keys: swayBindKeys(b.combo), action: 'exec', arg: 'x' }));
    const c = fakeCall({ compositor: comp, intent, config: { confine: ['launched'], ...over } });
    c.session.launched.add('0xa');
    return c;
  };

  it('refuses super (and the modifier most bindings use) on a window in scope, unless the person allowed it', async () => {
    const e = await refusal(run(confineLayer, confined(keys('super+Return', ['logo'])), fakeNext()));
    expect(e.code).toBe('refused.modifier');
    expect(e.hint).toMatch(/HYPRUSE_ALLOW_MODIFIER_KEYS/);
    const altBinds = [{ combo: 'Mod1+Return' }, { combo: 'Mod1+q' }, { combo: 'Ctrl+Print' }];
    expect((await refusal(run(confineLayer, confined(keys('alt+F4', ['alt']), {}, altBinds), fakeNext()))).code).toBe('refused.modifier');
    const next = fakeNext();
    await run(confineLayer, confined(keys('ctrl+s', ['ctrl']), {}, altBinds), next);
    await run(confineLayer, confined(keys('super+Return', ['logo']), { allowModifierKeys: true }), next);
    expect(next.calls).toBe(2);
  });

  it('a bare pointer move over a window outside the scope is refused like a click; over its own window it passes', async () => {
    const move = (x: number, y: number): Intent => ({ summary: `move the cursor to (${x}, ${y})`, input: 'none', hover: true, points: [{ x, y }] });
    const e = await refusal(run(confineLayer, confined(move(600, 100)), fakeNext()));
    expect(e.code).toBe('refused.confine');
    expect(e.message).toMatch(/0xb \(firefox/);
    const next = fakeNext();
    await run(confineLayer, confined(move(100, 100)), next);
    await run(confineLayer, confined(move(1500, 900)), next); // empty space
    expect(next.calls).toBe(2);
  });
});
