import { NIRI_MANIFEST } from './manifest.js';
import type { Compositor, CompositorEnv, CompositorFactory, DetectResult } from '@hypruse/core';
import { HypruseError, isSocket, liveSockets, runtimeDir } from '@hypruse/core';
import { NiriCompositor, niriSessionEnv, type NiriCompositorOptions } from './niri-compositor.js';

const SOCKET_NAME = /^niri\.(.+)\.(\d+)\.sock$/;

/** Where niri's socket is, or why none was found. Never throws. */
export function findNiriSocket(env: CompositorEnv): { path: string; how: string } | { reason: string } {
  const fromEnv = env.env.NIRI_SOCKET;
  let staleNote = '';
  if (fromEnv) {
    if (isSocket(fromEnv)) return { path: fromEnv, how: 'NIRI_SOCKET' };
    staleNote = `NIRI_SOCKET=${fromEnv} is not a socket (stale?); `;
  }
  const dir = env.runtimeDir ?? runtimeDir(env.env);
  if (!dir) return { reason: `${staleNote}NIRI_SOCKET is not set and there is no runtime dir (XDG_RUNTIME_DIR or /run/user/<uid>) to look in` };
  const skipped: string[] = [];
  const candidates = liveSockets(dir, SOCKET_NAME, 2, skipped);
  if (candidates.length === 0) return { reason: `${staleNote}NIRI_SOCKET is not set and ${dir} holds no live niri.<display>.<pid>.sock${skipped.length ? ` (skipped: ${skipped.join('; ')})` : ''}` };
  const display = env.env.WAYLAND_DISPLAY;
  const pick = (display && candidates.find((c) => c.match[1] === display)) || candidates[0];
  const how = candidates.length > 1 ? `found in ${dir} (${candidates.length} niri sockets; chose ${display && pick.match[1] === display ? 'the one of WAYLAND_DISPLAY' : 'the newest'})` : `found in ${dir}`;
  return { path: pick.path, how };
}

/** Detects niri from NIRI_SOCKET or its socket in the runtime dir. */
export class NiriCompositorFactory implements CompositorFactory {
  readonly id = 'niri';
  readonly manifest = NIRI_MANIFEST;
  readonly instanceVars = NIRI_MANIFEST.envVars;

  constructor(private readonly options: Omit<NiriCompositorOptions, 'socketPath'> = {}) {}

  detect(env: CompositorEnv): DetectResult {
    const found = findNiriSocket(env);
    if ('reason' in found) return { ok: false, reason: found.reason };
    return { ok: true, detail: `niri socket ${found.path} (${found.how})`, env: niriSessionEnv(found.path), explicit: found.how === 'NIRI_SOCKET' };
  }

  create(env: CompositorEnv): Compositor {
    const found = findNiriSocket(env);
    if ('reason' in found) {
      throw new HypruseError('unsupported.compositor', `niri was not found: ${found.reason}`, {
        hint: 'Run inside a niri session, or set NIRI_SOCKET to its socket path.',
      });
    }
    return new NiriCompositor({ ...this.options, socketPath: found.path, baseEnv: env.env });
  }
}
