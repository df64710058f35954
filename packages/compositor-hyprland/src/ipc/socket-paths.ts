import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The two sockets of one Hyprland instance. */
export interface HyprlandSockets {
  signature: string;
  instanceDir: string;
  /** `.socket.sock`: one request per connection. */
  request: string;
  /** `.socket2.sock`: the event stream. */
  events: string;
}

export function socketsFor(runtimeDir: string, signature: string): HyprlandSockets {
  const instanceDir = join(runtimeDir, 'hypr', signature);
  return { signature, instanceDir, request: join(instanceDir, '.socket.sock'), events: join(instanceDir, '.socket2.sock') };
}

function isSocket(path: string): boolean {
  try {
    return statSync(path).isSocket();
  } catch {
    return false;
  }
}

/**
 * Session discovery for hosts that strip the environment: the most recently
 * modified `$XDG_RUNTIME_DIR/hypr/<signature>/` holding a `.socket.sock`.
 * Returns null with nothing found (never throws).
 */
export function discoverSignature(runtimeDir: string): string | null {
  let entries: string[];
  try {
    entries = readdirSync(join(runtimeDir, 'hypr'));
  } catch {
    return null;
  }
  let best: { sig: string; mtime: number } | null = null;
  for (const sig of entries) {
    const dir = join(runtimeDir, 'hypr', sig);
    if (!isSocket(join(dir, '.socket.sock'))) continue;
    let mtime = 0;
    try {
      mtime = statSync(dir).mtimeMs;
    } catch {
      continue;
    }
    if (!best || mtime > best.mtime) best = { sig, mtime };
  }
  return best?.sig ?? null;
}

/** Resolve the instance to talk to: the signature from the environment if its socket exists, else discovery. */
export function resolveSockets(runtimeDir: string | null, env: NodeJS.ProcessEnv): { sockets: HyprlandSockets; discovered: boolean } | { reason: string } {
  if (!runtimeDir) return { reason: 'no runtime dir: XDG_RUNTIME_DIR is unset and /run/user/<uid> does not exist' };
  const sig = env.HYPRLAND_INSTANCE_SIGNATURE;
  if (sig) {
    if (sig.includes('/') || sig.includes('\0')) return { reason: `HYPRLAND_INSTANCE_SIGNATURE '${sig}' is not a valid instance signature` };
    const sockets = socketsFor(runtimeDir, sig);
    if (isSocket(sockets.request)) return { sockets, discovered: false };
    const found = discoverSignature(runtimeDir);
    if (found) return { sockets: socketsFor(runtimeDir, found), discovered: true };
    return { reason: `HYPRLAND_INSTANCE_SIGNATURE is set but ${sockets.request} is not a socket (Hyprland not running, or another runtime dir)` };
  }
  const found = discoverSignature(runtimeDir);
  if (found) return { sockets: socketsFor(runtimeDir, found), discovered: true };
  return { reason: `HYPRLAND_INSTANCE_SIGNATURE is unset and no ${join(runtimeDir, 'hypr', '*', '.socket.sock')} was found` };
}
