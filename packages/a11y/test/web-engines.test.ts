import { describe, expect, it } from 'vitest';
import { engineOfClass, evenInset, undrawnOf } from '../src/web-engines.js';
import { planLaunch } from '../src/app-families.js';

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

describe('web engines: an undrawn window, decided by its process', () => {
  const chromium = engineOfClass('chromium')!;
  const firefox = engineOfClass('firefox-esr')!;
  it('Chromium started by a background launch (the renderer prefix of the launch plan) follows its page; one started plainly is frozen', () => {
    const launched = planLaunch('chromium http://x/', { PATH: '/nonexistent' }, undefined, { unseen: true, livePages: true }).command;
    // the word the shell passes: the quoted switch, unquoted
    const word = /'([^']*)'/.exec(launched)![1];
    expect(undrawnOf(chromium, ['/usr/lib/chromium/chromium', '--force-renderer-accessibility', word, 'http://x/'])).toBeUndefined();
    expect(undrawnOf(chromium, ['/usr/lib/chromium/chromium', '--force-renderer-accessibility', 'http://x/'])).toBe('frozen');
    // Chromium rewrites its /proc/PID/cmdline into one string of its arguments joined by spaces
    expect(undrawnOf(chromium, [`/usr/lib/chromium/chromium --force-renderer-accessibility ${word} http://x/`])).toBeUndefined();
    expect(undrawnOf(chromium, null)).toBe('frozen');
    // the flag given to the browser itself reaches its renderers too (and spins its display compositor)
    expect(undrawnOf(chromium, ['chromium', '--disable-frame-rate-limit'])).toBeUndefined();
    expect(undrawnOf(chromium, ['chromium', '--renderer-cmd-prefix=gdb --args'])).toBe('frozen');
    expect(undrawnOf(chromium, ['chromium', '--renderer-cmd-prefix=/proc/self/exe --disable-frame-rate-limits'])).toBe('frozen');
  });
  it('Firefox is unshowing whatever its command line', () => {
    expect(undrawnOf(firefox, ['firefox-esr', '--renderer-cmd-prefix=/proc/self/exe --disable-frame-rate-limit'])).toBe('unshowing');
  });
});
