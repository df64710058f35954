import type { CompositorEnv, CompositorFactory, DetectResult } from '@hypruse/core';
import { HypruseError, discoveredEnv, isSocket, liveSockets } from '@hypruse/core';
import { SwayCompositor } from './sway-compositor.js';
import { swayHeadless } from './headless.js';
import { SWAY_MANIFEST } from './manifest.js';

/** `sway-ipc.<uid>.<pid>.sock` files in the runtime dir whose sway process is still alive, newest first. */
export function findSwaySockets(runtimeDir: string): string[] {
  return liveSockets(runtimeDir, /^sway-ipc\.(\d+)\.(\d+)\.sock$/, 2).map((s) => s.path);
}

/** Detects sway from SWAYSOCK (or I3SOCK), else a live `sway-ipc.*.sock` in the runtime dir. */
export class SwayCompositorFactory implements CompositorFactory {
  readonly id = 'sway';
  readonly manifest = SWAY_MANIFEST;
  readonly instanceVars = SWAY_MANIFEST.envVars;
  readonly headless = swayHeadless;

  detect(env: CompositorEnv): DetectResult {
    try {
      const fromEnv = env.env.SWAYSOCK ?? env.env.I3SOCK;
      let socket: string | null = null;
      let how = '';
      if (fromEnv) {
        if (!isSocket(fromEnv)) return { ok: false, reason: `SWAYSOCK=${fromEnv} is not a socket (is sway still running?)` };
        socket = fromEnv;
        how = 'SWAYSOCK';
      } else if (env.runtimeDir) {
        socket = findSwaySockets(env.runtimeDir)[0] ?? null;
        how = `found in ${env.runtimeDir}`;
      }
      if (!socket) return { ok: false, reason: env.runtimeDir ? `SWAYSOCK is not set and ${env.runtimeDir} has no live sway-ipc.*.sock` : 'SWAYSOCK is not set and no runtime dir is known' };
      return { ok: true, detail: `sway IPC at ${socket} (${how})`, env: discoveredEnv(env.env, env.runtimeDir, { SWAYSOCK: socket }), explicit: how === 'SWAYSOCK' };
    } catch (err) {
      return { ok: false, reason: `sway detection failed: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  create(env: CompositorEnv): SwayCompositor {
    const d = this.detect(env);
    if (!d.ok) throw new HypruseError('unsupported.compositor', `sway is not available: ${d.reason}`, { hint: 'Start sway or set SWAYSOCK to its IPC socket.' });
    const launchEnv: Record<string, string> = { ...(d.env ?? {}) };
    return new SwayCompositor({ socketPath: launchEnv.SWAYSOCK, baseEnv: env.env, launchEnv });
  }
}
