import { describe, expect, it } from 'vitest';
import { engineOfClass, evenInset } from '../src/web-engines.js';

describe('web engines: the surface inset', () => {
  it('splits the frame surplus over the window evenly (Chromium 156 on sway: 1296x791 frame, 1276x771 window)', () => {
    expect(evenInset({ width: 1296, height: 791 }, { width: 1276, height: 771 })).toEqual({ x: 10, y: 10 });
  });
  it('has none when the frame is not larger (maximized, fullscreen) or larger by more than a shadow', () => {
    expect(evenInset({ width: 1276, height: 771 }, { width: 1276, height: 771 })).toBeNull();
    expect(evenInset({ width: 1276, height: 800 }, { width: 1276, height: 771 })).toBeNull();
    expect(evenInset({ width: 1920, height: 1080 }, { width: 1276, height: 771 })).toBeNull();
  });
  it('is data of the Chromium engine only', () => {
    expect(engineOfClass('chromium')?.surfaceInset).toBe('even');
    expect(engineOfClass('firefox-esr')?.surfaceInset).toBeUndefined();
  });
});

describe('web engines: which window classes are a browser', () => {
  it('Zen Browser is Gecko, zenity (a GTK dialog tool) is no browser at all', () => {
    for (const c of ['zen', 'zen-browser', 'zen-alpha', 'firefox-esr', 'thunderbird']) expect(engineOfClass(c)?.id, c).toBe('gecko');
    for (const c of ['zenity', 'Zenity', 'zenmap']) expect(engineOfClass(c), c).toBeUndefined();
  });
});
