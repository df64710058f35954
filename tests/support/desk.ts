// Private desks in tests: hypruse runs as the person would run it, as an
// unprivileged user (the test desktop's user when the suite runs as root: sway
// refuses root), with the person's session variables (the test desktop's
// WAYLAND_DISPLAY, SWAYSOCK, session bus) in its environment, and its own
// runtime dir for its state. Everything is checked from outside hypruse:
// the desk's and the person's sway over IPC, /proc by the recorded pids.
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, connect, type Server } from './server.js';
import type { Desktop, SwayNode } from './desktop.js';

export interface DeskUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

export interface DeskStatus {
  name: string;
  instance: string;
  compositor: string;
  healthy: boolean;
  problem: string | null;
  owner: number | null;
  pids: Record<string, { pid: number; start: string }>;
  apps: number[];
  env: Record<string, string>;
  size: [number, number];
}

/** A fresh "person's runtime dir" for hypruse's own state (desks, beacons), owned by the user, mode 0700. */
export function personRuntimeDir(user: DeskUser): string {
  const dir = mkdtempSync(join(tmpdir(), 'hdesk-'));
  if (process.getuid?.() === 0) chownSync(dir, user.uid, user.gid);
  return dir;
}

export const removeDir = (dir: string) => rmSync(dir, { recursive: true, force: true });

/** The environment hypruse gets: the person's session variables (the test desktop's) and `runtimeDir` for its state. */
export function personEnv(desk: Desktop, user: DeskUser, runtimeDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: user.home,
    USER: user.name,
    LOGNAME: user.name,
    LANG: 'C.UTF-8',
    XDG_RUNTIME_DIR: runtimeDir,
    // the person's session: a desk must not reach it
    SWAYSOCK: desk.env.SWAYSOCK,
    WAYLAND_DISPLAY: join(desk.env.XDG_RUNTIME_DIR, desk.env.WAYLAND_DISPLAY),
    DBUS_SESSION_BUS_ADDRESS: desk.env.DBUS_SESSION_BUS_ADDRESS,
    ...(process.env.HYPRUSE_TIME_SCALE ? { HYPRUSE_TIME_SCALE: process.env.HYPRUSE_TIME_SCALE } : {}),
    ...extra,
  };
}

/** argv run as `user` (setpriv execs: the pid is the program's own) with exactly `env`. */
function asUser(user: DeskUser, env: Record<string, string>, argv: string[]): [string, string[]] {
  const envArgs = ['-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...argv];
  if (process.getuid?.() !== 0) return ['/usr/bin/env', envArgs];
  return ['/usr/bin/setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--', '/usr/bin/env', ...envArgs]];
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `hypruse ARGS` as the user; never rejects on a non-zero exit. */
export function hypruse(user: DeskUser, env: Record<string, string>, args: string[], timeoutMs = 60000): Promise<CliResult> {
  const [cmd, argv] = asUser(user, env, [process.execPath, BIN, ...args]);
  return new Promise((resolve, reject) => {
    execFile(cmd, argv, { timeout: timeoutMs, encoding: 'utf8', cwd: '/' }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') reject(new Error(`hypruse ${args.join(' ')} failed: ${err.message}\n${stderr}`));
      else resolve({ code: typeof err?.code === 'number' ? err.code : 0, stdout, stderr });
    });
  });
}

/** `hypruse monitor` as the user with exactly `env`: [command, args] for spawn. */
export function monitorCommand(user: DeskUser, env: Record<string, string>): [string, string[]] {
  return asUser(user, env, [process.execPath, BIN, 'monitor']);
}

/** The MCP server as the user, over stdio, with exactly `env`. */
export async function deskServer(user: DeskUser, env: Record<string, string>): Promise<Server> {
  const [command, args] = asUser(user, env, [process.execPath, BIN]);
  return connect(new StdioClientTransport({ command, args, stderr: 'pipe', cwd: '/' }));
}

export async function deskStatus(user: DeskUser, env: Record<string, string>): Promise<DeskStatus[]> {
  const r = await hypruse(user, env, ['desk', 'status', '--json']);
  if (r.code !== 0) throw new Error(`desk status failed (exit ${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout) as DeskStatus[];
}

/** `swaymsg -r ARGS` against a sway socket (root reaches any user's socket). */
export function swayAt<T>(socket: string, ...args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile('swaymsg', ['-s', socket, '-r', ...args], { timeout: 5000, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`swaymsg ${args.join(' ')} at ${socket} failed: ${stderr.trim() || err.message}`));
      else resolve(JSON.parse(stdout) as T);
    });
  });
}

/** The windows (views with a pid) of a sway tree: con id, pid, title, workspace. */
export async function swayWindows(socket: string): Promise<Array<{ id: number; pid: number; title: string; workspace: string | null }>> {
  const out: Array<{ id: number; pid: number; title: string; workspace: string | null }> = [];
  const walk = (n: SwayNode, ws: string | null) => {
    if (n.type === 'workspace') ws = n.name;
    if ((n.type === 'con' || n.type === 'floating_con') && n.pid) out.push({ id: n.id, pid: n.pid, title: n.name ?? '', workspace: ws });
    for (const c of [...(n.nodes ?? []), ...(n.floating_nodes ?? [])]) walk(c, ws);
  };
  walk(await swayAt<SwayNode>(socket, '-t', 'get_tree'), null);
  return out;
}

/** Is a recorded process still running (not gone, not a zombie, not a reused pid)? */
export function running(rec: { pid: number; start?: string }): boolean {
  try {
    const stat = readFileSync(`/proc/${rec.pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (rest[0] === 'Z' || rest[0] === 'X') return false;
    return rec.start === undefined || rest[19] === rec.start;
  } catch {
    return false;
  }
}

/** Pids whose environment carries this value of a variable (root reads every process). */
export function pidsWithEnv(name: string, value: string): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const env = readFileSync(`/proc/${e}/environ`, 'latin1').split('\0');
      if (env.includes(`${name}=${value}`) && running({ pid: Number(e) })) out.push(Number(e));
    } catch {
      /* gone */
    }
  }
  return out;
}
