import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_FAMILIES, AppFamilyTable, isWidgetClassName, planLaunch, programOf, recognise } from '../src/app-families.js';

/** A PATH folder holding fake programs: name -> file content. */
function bin(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'hypruse-families-'));
  for (const [name, text] of Object.entries(files)) {
    const p = join(dir, name);
    mkdirSync(join(p, '..'), { recursive: true });
    writeFileSync(p, text);
    chmodSync(p, 0o755);
  }
  return dir;
}

describe('programOf: the program word of a simple command line', () => {
  it('skips assignments, env and exec, and takes quoted words', () => {
    expect(programOf('chromium http://x')).toMatchObject({ program: 'chromium', start: 0, end: 8 });
    expect(programOf('  FOO=1 BAR=x chromium')).toMatchObject({ program: 'chromium' });
    expect(programOf('env -u X A=1 code .')).toMatchObject({ program: 'code' });
    expect(programOf('exec "/opt/my app/slack" --x')).toMatchObject({ program: '/opt/my app/slack' });
  });
  it('gives up on lines it cannot read safely', () => {
    expect(programOf('$BROWSER http://x')).toBeNull();
    expect(programOf('(chromium)')).toBeNull();
    expect(programOf('')).toBeNull();
  });
});

describe('planLaunch: the family table applied to a command', () => {
  const env = { PATH: bin({ chromium: '#!/bin/sh\n', 'myapp/electronapp': '\x7fELF', 'myapp/resources/app.asar': '', 'qtapp': '\x7fELF...libQt5Core.so.5...' }) };

  it('adds the Chromium accessibility switch after the program word, once', () => {
    const p = planLaunch('chromium --user-data-dir=/tmp/p http://x/', env);
    expect(p.command).toBe('chromium --force-renderer-accessibility --user-data-dir=/tmp/p http://x/');
    expect(p.families).toEqual(['chromium']);
    expect(p.added).toEqual(['--force-renderer-accessibility (chromium accessibility)']);
    expect(planLaunch('chromium --force-renderer-accessibility', env).command).toBe('chromium --force-renderer-accessibility');
    expect(planLaunch('A=1 google-chrome-stable x', env).command).toBe('A=1 google-chrome-stable --force-renderer-accessibility x');
  });

  it('adds the background switches only to a launch no output may draw, as one quoted word, once', () => {
    const prefix = '--renderer-cmd-prefix=/proc/self/exe --disable-frame-rate-limit';
    const p = planLaunch('chromium http://x/', env, undefined, { unseen: true, livePages: true });
    expect(p.command).toBe(`chromium --force-renderer-accessibility '${prefix}' http://x/`);
    expect(p.added[0]).toBe('--force-renderer-accessibility (chromium accessibility)');
    expect(p.added[1]).toMatch(/^--renderer-cmd-prefix=\/proc\/self\/exe --disable-frame-rate-limit \(chromium: .*follows.*namespace sandbox\)$/);
    // a launch the person sees gets none, nor an unseen one the person did not allow the cost of; a
    // command that names a renderer prefix of its own keeps it
    expect(planLaunch('chromium http://x/', env).command).toBe('chromium --force-renderer-accessibility http://x/');
    expect(planLaunch('chromium http://x/', env, undefined, { unseen: true }).command).toBe('chromium --force-renderer-accessibility http://x/');
    expect(planLaunch('chromium http://x/', env, undefined, { unseen: true, livePages: false }).command).toBe('chromium --force-renderer-accessibility http://x/');
    expect(planLaunch('chromium --renderer-cmd-prefix=gdb http://x/', env, undefined, { unseen: true, livePages: true }).command).toBe('chromium --force-renderer-accessibility --renderer-cmd-prefix=gdb http://x/');
    // the switch is for Chromium itself: Electron apps (not measured) and other programs get none
    expect(planLaunch(`${env.PATH}/myapp/electronapp --x`, env, undefined, { unseen: true, livePages: true }).command).toBe(`${env.PATH}/myapp/electronapp --force-renderer-accessibility --x`);
    expect(planLaunch('qtapp', env, undefined, { unseen: true, livePages: true }).command).toBe('qtapp');
    expect(new AppFamilyTable().planLaunch('chromium', env, { unseen: true, livePages: true }).command).toBe(`chromium --force-renderer-accessibility '${prefix}'`);
  });

  it('recognises an Electron app by the app.asar beside it, and Electron binaries by name', () => {
    const p = planLaunch(`${env.PATH}/myapp/electronapp --x`, env);
    expect(p.families).toEqual(['electron']);
    expect(p.command).toBe(`${env.PATH}/myapp/electronapp --force-renderer-accessibility --x`);
    expect(planLaunch('code /tmp/x', env).families).toEqual(['electron']);
    expect(planLaunch('electron25 main.js', env).families).toEqual(['electron']);
  });

  it('recognises a Qt program by the library it links, and gives every launch the toolkits\' variables', () => {
    expect(recognise('qtapp', env).map((f) => f.id)).toEqual(['qt']);
    const p = planLaunch('qtapp', env);
    expect(p.command).toBe('qtapp');
    expect(p.env).toMatchObject({ QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1' });
    expect(planLaunch('foot', env).env).toMatchObject({ QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1' });
  });

  it('undoes a host\'s accessibility switch-off only where the host set one', () => {
    expect(planLaunch('foot', env).env.NO_AT_BRIDGE).toBeUndefined();
    expect(planLaunch('foot', { ...env, NO_AT_BRIDGE: '1', GTK_A11Y: 'none' }).env).toMatchObject({ NO_AT_BRIDGE: '0', GTK_A11Y: 'atspi' });
  });

  it('leaves a command it cannot read as it is', () => {
    expect(planLaunch('sh -c "chromium x" | cat', env).command).toBe('sh -c "chromium x" | cat');
    expect(planLaunch('$B chromium', env)).toMatchObject({ command: '$B chromium', families: [] });
  });

  it('every family has an id and a way to be recognised', () => {
    const ids = APP_FAMILIES.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const f of APP_FAMILIES) expect(Boolean(f.binaries?.length || f.libraries?.length || f.markerFiles?.length), f.id).toBe(true);
  });
});

describe('isWidgetClassName: names a toolkit made from a widget type', () => {
  it('recognises GTK 4 type names and leaves names people use', () => {
    for (const n of ['GtkMenuButton', 'AdwTabBar', 'EditorSourceView', 'EditorPage']) expect(isWidgetClassName(n), n).toBe(true);
    for (const n of ['Open', 'JavaScript', 'GitHub', 'Save As', 'New tab (Ctrl+T)', 'Overview', '']) expect(isWidgetClassName(n), n).toBe(false);
  });
});
