import { isSocket, pidAlive } from '@hypruse/core';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The two sockets of one Hyprland instance. */
export interface HyprlandSockets {
  signature: string;
  instanceDir: string;
  /** `.socket.sock`: one request per connection. */
  request: string;
  /** `.socket2.sock`: the event stream. */
  events: string;
  /** The instance's Wayland display, from line 2 of `hyprland.lock` (null when unknown). */
  wayland?: string | null;
}

export function socketsFor(runtimeDir: string, signature: string): HyprlandSockets {
  const instanceDir = join(runtimeDir, 'hypr', signature);
  return { signature, instanceDir, request: join(instanceDir, '.socket.sock'), events: join(instanceDir, '.socket2.sock') };
}

/**
 * What `hyprland.lock` says about an instance: Hyprland writes its pid on
 * line 1 (and the Wayland socket name on line 2) at start and removes only
 * this file on exit; a crash leaves everything behind. `hyprctl` drops
 * instances whose lock is missing or whose pid is dead, and so do we.
 */
export function instanceLiveness(instanceDir: string): { alive: true; pid: number; wayland: string | null } | { alive: false; why: string } {
  let text: string;
  try {
    text = readFileSync(join(instanceDir, 'hyprland.lock'), 'utf8');
  } catch {
    return { alive: false, why: `${join(instanceDir, 'hyprland.lock')} is missing (the instance exited)` };
  }
  const [first, second] = text.split('\n');
  const pid = Number(first?.trim());
  if (!Number.isInteger(pid) || pid <= 0) return { alive: false, why: `${join(instanceDir, 'hyprland.lock')} names no pid` };
  if (!pidAlive(pid)) return { alive: false, why: `its Hyprland (pid ${pid}, from hyprland.lock) is not running` };
  return { alive: true, pid, wayland: second?.trim() || null };
}

/**
 * Session discovery for hosts that strip the environment: the most recently
 * modified `$XDG_RUNTIME_DIR/hypr/<signature>/` holding a `.socket.sock`
 * whose Hyprland is alive (see instanceLiveness). Returns null with nothing
 * found (never throws); `skipped` collects the dead instances passed over.
 */
export function discoverSignature(runtimeDir: string, skipped: string[] = []): string | null {
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
    const live = instanceLiveness(dir);
    if (!live.alive) {
      skipped.push(`${sig}: ${live.why}`);
      continue;
    }
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

function displayOf(runtimeDir: string, signature: string): string | null {
  const live = instanceLiveness(join(runtimeDir, 'hypr', signature));
  return live.alive ? live.wayland : null;
}

/**
 * Resolve the instance to talk to: the signature from the environment if its
 * socket exists and its Hyprland is not known dead, else discovery of a live
 * instance. `discovered` is false only for the instance the variable names.
 */
export function resolveSockets(runtimeDir: string | null, env: NodeJS.ProcessEnv): { sockets: HyprlandSockets; discovered: boolean } | { reason: string } {
  if (!runtimeDir) return { reason: 'no runtime dir: XDG_RUNTIME_DIR is unset and /run/user/<uid> does not exist' };
  const sig = env.HYPRLAND_INSTANCE_SIGNATURE;
  const skipped: string[] = [];
  const dead = () => (skipped.length ? ` (skipped dead instances: ${skipped.join('; ')})` : '');
  if (sig) {
    if (sig.includes('/') || sig.includes('\0')) return { reason: `HYPRLAND_INSTANCE_SIGNATURE '${sig}' is not a valid instance signature` };
    const sockets = socketsFor(runtimeDir, sig);
    let why = `${sockets.request} is not a socket (Hyprland not running, or another runtime dir)`;
    if (isSocket(sockets.request)) {
      const live = instanceLiveness(sockets.instanceDir);
      if (live.alive) return { sockets: { ...sockets, wayland: live.wayland }, discovered: false };
      why = `the instance is dead: ${live.why}`;
    }
    const found = discoverSignature(runtimeDir, skipped);
    if (found) return { sockets: { ...socketsFor(runtimeDir, found), wayland: displayOf(runtimeDir, found) }, discovered: true };
    return { reason: `HYPRLAND_INSTANCE_SIGNATURE is set but ${why}${dead()}` };
  }
  const found = discoverSignature(runtimeDir, skipped);
  if (found) return { sockets: { ...socketsFor(runtimeDir, found), wayland: displayOf(runtimeDir, found) }, discovered: true };
  return { reason: `HYPRLAND_INSTANCE_SIGNATURE is unset and no live Hyprland instance (${join(runtimeDir, 'hypr', '*', '.socket.sock')} with a running pid in hyprland.lock) was found${dead()}` };
}
