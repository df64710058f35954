import { existsSync } from 'node:fs';

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
