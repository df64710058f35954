import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { CompositorEnv, CompositorFactory, DetectResult } from '@hypruse/core';
import { HypruseError } from '@hypruse/core';
import { SwayCompositor } from './sway-compositor.js';
import { swayHeadless } from './headless.js';

function isSocket(p: string): boolean {
  try {
    return statSync(p).isSocket();
  } catch {
    return false;
  }
}

/** `sway-ipc.<uid>.<pid>.sock` files in the runtime dir whose sway process is still alive, newest first. */
export function findSwaySockets(runtimeDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(runtimeDir);
  } catch {
    return [];
  }
  return names
    .map((n) => ({ n, m: /^sway-ipc\.(\d+)\.(\d+)\.sock$/.exec(n) }))
    .filter((x): x is { n: string; m: RegExpExecArray } => x.m !== null)
    .filter((x) => existsSync(`/proc/${x.m[2]}`) && isSocket(path.join(runtimeDir, x.n)))
    .map((x) => ({ p: path.join(runtimeDir, x.n), t: statSync(path.join(runtimeDir, x.n)).mtimeMs }))
    .sort((a, b) => b.t - a.t)
    .map((x) => x.p);
}

/** The Wayland display: WAYLAND_DISPLAY if set, else the only (or first) `wayland-N` socket in the runtime dir. */
export function findWaylandDisplay(env: CompositorEnv): string | null {
  if (env.env.WAYLAND_DISPLAY) return env.env.WAYLAND_DISPLAY;
  if (!env.runtimeDir) return null;
  try {
    const socks = readdirSync(env.runtimeDir).filter((n) => /^wayland-\d+$/.test(n) && isSocket(path.join(env.runtimeDir!, n))).sort();
    return socks[0] ?? null;
  } catch {
    return null;
  }
}

/** Detects sway from SWAYSOCK (or I3SOCK), else a live `sway-ipc.*.sock` in the runtime dir. */
export class SwayCompositorFactory implements CompositorFactory {
  readonly id = 'sway';
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
      const out: Record<string, string> = { SWAYSOCK: socket };
      const wl = findWaylandDisplay(env);
      if (wl) out.WAYLAND_DISPLAY = wl;
      if (env.runtimeDir) out.XDG_RUNTIME_DIR = env.runtimeDir;
      return { ok: true, detail: `sway IPC at ${socket} (${how})`, env: out, explicit: how === 'SWAYSOCK' };
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
