import { existsSync, statSync } from 'node:fs';

/** XDG_RUNTIME_DIR, or /run/user/<uid> when the host stripped it. */
export function runtimeDir(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.XDG_RUNTIME_DIR) return env.XDG_RUNTIME_DIR;
  const uid = typeof process.getuid === 'function' ? process.getuid() : null;
  if (uid !== null) {
    const guess = `/run/user/${uid}`;
    if (existsSync(guess)) return guess;
  }
  return null;
}

/**
 * The session environment: the host's variables, with what compositor
 * discovery found on top (display, compositor socket, runtime dir), the
 * runtime dir resolved, and the session bus at `$XDG_RUNTIME_DIR/bus` named
 * when the host did not pass one (launched apps find the accessibility bus
 * through it). Every backend, trust layer and launched command starts from it.
 */
export function sessionEnvironment(host: NodeJS.ProcessEnv, discovered: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...host, ...discovered };
  const rt = runtimeDir(env);
  if (rt && !env.XDG_RUNTIME_DIR) env.XDG_RUNTIME_DIR = rt;
  if (rt && !env.DBUS_SESSION_BUS_ADDRESS) {
    try {
      if (statSync(`${rt}/bus`).isSocket()) env.DBUS_SESSION_BUS_ADDRESS = `unix:path=${rt}/bus`;
    } catch {
      /* no session bus there */
    }
  }
  return env;
}

/** The session variables a launched app inherits as they are, when the session has them. */
const PASSED_TO_APPS = ['WAYLAND_DISPLAY', 'XDG_RUNTIME_DIR', 'DBUS_SESSION_BUS_ADDRESS', 'AT_SPI_BUS_ADDRESS', 'DISPLAY'] as const;

/**
 * The environment every launched application gets on top of the session's,
 * whatever the host stripped from hypruse's own: a Wayland session
 * (`XDG_SESSION_TYPE=wayland`, without which Qt 5 and Chromium pick X11,
 * find no display and exit), the desktop's name (`XDG_CURRENT_DESKTOP`, from
 * the compositor when the host named none), the display, runtime dir and
 * session bus (through which apps find the accessibility bus). Toolkit
 * switches come from the application-family table, not from here.
 */
export function launchEnvironment(session: NodeJS.ProcessEnv, desktopName: string | null): Record<string, string> {
  const out: Record<string, string> = { XDG_SESSION_TYPE: 'wayland' };
  const desktop = session.XDG_CURRENT_DESKTOP || desktopName;
  if (desktop) out.XDG_CURRENT_DESKTOP = desktop;
  if (!session.XDG_SESSION_DESKTOP && desktop) out.XDG_SESSION_DESKTOP = desktop;
  for (const k of PASSED_TO_APPS) {
    const v = session[k];
    if (v) out[k] = v;
  }
  return out;
}
