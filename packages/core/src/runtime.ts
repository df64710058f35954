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
