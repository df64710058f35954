import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive } from '../process/proc.js';

export function isSocket(path: string): boolean {
  try {
    return statSync(path).isSocket();
  } catch {
    return false;
  }
}

function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

export interface LiveSocket {
  path: string;
  /** The file name's match against the pattern. */
  match: RegExpExecArray;
  pid: number;
}

/**
 * Sockets in `dir` whose name matches `pattern` and whose owner (the pid in
 * capture group `pidGroup`) is alive, newest first: a crashed compositor
 * leaves its socket behind, and it is skipped (named in `skipped`).
 */
export function liveSockets(dir: string, pattern: RegExp, pidGroup: number, skipped: string[] = []): LiveSocket[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    skipped.push(`${dir} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    return [];
  }
  const out: Array<LiveSocket & { t: number }> = [];
  for (const n of names) {
    const match = pattern.exec(n);
    if (!match) continue;
    const path = join(dir, n);
    const pid = Number(match[pidGroup]);
    if (!isSocket(path)) continue;
    if (!pidAlive(pid)) {
      skipped.push(`${n}: its process ${pid} is not running`);
      continue;
    }
    out.push({ path, match, pid, t: mtime(path) });
  }
  return out.sort((a, b) => b.t - a.t || b.pid - a.pid).map(({ t: _t, ...s }) => s);
}

/**
 * The Wayland display: WAYLAND_DISPLAY when the session gave it (it may name
 * a socket anywhere, as an absolute path), else what the compositor itself
 * says (a lock file) when that socket exists in the runtime dir, else the
 * first live `wayland-N` socket there. Null when none is known. The session's
 * own variable comes first: a host that strips the environment drops it, and
 * only then is the compositor's word needed.
 */
export function waylandDisplay(env: NodeJS.ProcessEnv, runtimeDir: string | null, fromCompositor?: string | null): string | null {
  if (env.WAYLAND_DISPLAY) return env.WAYLAND_DISPLAY;
  if (fromCompositor && (!runtimeDir || fromCompositor.startsWith('/') || isSocket(join(runtimeDir, fromCompositor)))) return fromCompositor;
  if (!runtimeDir) return null;
  try {
    return readdirSync(runtimeDir).filter((n) => /^wayland-\d+$/.test(n) && isSocket(join(runtimeDir, n))).sort()[0] ?? null;
  } catch {
    return null;
  }
}

/**
 * The session environment discovery found, for hosts that strip it: the
 * compositor's own variables, WAYLAND_DISPLAY and XDG_RUNTIME_DIR. Input,
 * capture and launched apps start from it.
 */
export function discoveredEnv(env: NodeJS.ProcessEnv, runtimeDir: string | null, own: Record<string, string>, display?: string | null): Record<string, string> {
  const out: Record<string, string> = { ...own };
  const wl = waylandDisplay(env, runtimeDir, display);
  if (wl) out.WAYLAND_DISPLAY = wl;
  if (runtimeDir) out.XDG_RUNTIME_DIR = runtimeDir;
  return out;
}
