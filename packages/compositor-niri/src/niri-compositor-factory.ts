import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Compositor, CompositorEnv, CompositorFactory, DetectResult } from '@hypruse/core';
import { HypruseError } from '@hypruse/core';
import { NiriCompositor, niriSessionEnv, type NiriCompositorOptions } from './niri-compositor.js';

const SOCKET_NAME = /^niri\.(.+)\.(\d+)\.sock$/;

function isSocket(path: string): boolean {
  try {
    return statSync(path).isSocket();
  } catch {
    return false;
  }
}

function runtimeDirOf(env: CompositorEnv): string | null {
  if (env.runtimeDir) return env.runtimeDir;
  const uid = typeof process.getuid === 'function' ? process.getuid() : null;
  const guess = uid !== null ? `/run/user/${uid}` : null;
  return guess && existsSync(guess) ? guess : null;
}

/** Where niri's socket is, or why none was found. Never throws. */
export function findNiriSocket(env: CompositorEnv): { path: string; how: string } | { reason: string } {
  const fromEnv = env.env.NIRI_SOCKET;
  let staleNote = '';
  if (fromEnv) {
    if (isSocket(fromEnv)) return { path: fromEnv, how: 'NIRI_SOCKET' };
    staleNote = `NIRI_SOCKET=${fromEnv} is not a socket (stale?); `;
  }
  const dir = runtimeDirOf(env);
  if (!dir) return { reason: `${staleNote}NIRI_SOCKET is not set and there is no runtime dir (XDG_RUNTIME_DIR or /run/user/<uid>) to look in` };
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    return { reason: `${staleNote}NIRI_SOCKET is not set and ${dir} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  const candidates = names
    .map((n) => ({ n, m: SOCKET_NAME.exec(n) }))
    .filter((c): c is { n: string; m: RegExpExecArray } => c.m !== null)
    .filter((c) => existsSync(`/proc/${c.m[2]}`) && isSocket(join(dir, c.n)));
  if (candidates.length === 0) return { reason: `${staleNote}NIRI_SOCKET is not set and ${dir} holds no live niri.<display>.<pid>.sock` };
  const display = env.env.WAYLAND_DISPLAY;
  const pick = (display && candidates.find((c) => c.m[1] === display)) || candidates.sort((a, b) => Number(b.m[2]) - Number(a.m[2]))[0];
  const how = candidates.length > 1 ? `found in ${dir} (${candidates.length} niri sockets; chose ${display && pick.m[1] === display ? 'the one of WAYLAND_DISPLAY' : 'the newest'})` : `found in ${dir}`;
  return { path: join(dir, pick.n), how };
}

/** Detects niri from NIRI_SOCKET or its socket in the runtime dir. */
export class NiriCompositorFactory implements CompositorFactory {
  readonly id = 'niri';

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
