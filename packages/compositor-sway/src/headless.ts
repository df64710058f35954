import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { HeadlessSpec } from '@hypruse/core';

const isSocket = (p: string) => {
  try {
    return statSync(p).isSocket();
  } catch {
    return false;
  }
};

/**
 * sway as a private desk: the wlroots headless backend with the pixman
 * renderer (no GPU, no input devices), one output of the asked size, no bar
 * and no Xwayland. Its IPC socket is `sway-ipc.<uid>.<pid>.sock` and its
 * Wayland socket the first `wayland-N` in the desk's runtime dir.
 */
export const swayHeadless: HeadlessSpec = {
  program: 'sway',
  debianPackage: 'sway',
  refusesRoot: 'sway refuses to run as root',
  prepare({ dir, width, height }) {
    const config = [
      '# written by hypruse desk: a private headless desk',
      `output HEADLESS-1 resolution ${width}x${height} position 0 0`,
      'xwayland disable',
      '',
    ].join('\n');
    const file = path.join(dir, 'sway.config');
    return {
      args: ['--config', file],
      files: { [file]: config },
      env: { WLR_BACKENDS: 'headless', WLR_RENDERER: 'pixman', WLR_LIBINPUT_NO_DEVICES: '1', XDG_CURRENT_DESKTOP: 'sway' },
    };
  },
  ready({ runtimeDir, pid, uid }) {
    const sock = path.join(runtimeDir, `sway-ipc.${uid}.${pid}.sock`);
    if (!existsSync(sock) || !isSocket(sock)) return null;
    const wl = readdirSync(runtimeDir).filter((n) => /^wayland-\d+$/.test(n) && isSocket(path.join(runtimeDir, n))).sort()[0];
    return wl ? { SWAYSOCK: sock, WAYLAND_DISPLAY: wl, XDG_CURRENT_DESKTOP: 'sway' } : null;
  },
};
