// The real compositor session of the guest (tests/real/guest/lib.sh starts
// it): which compositor runs, its environment, independent readers
// (Hyprland's request socket as hyprctl uses it, swaymsg; for labwc, which has
// no IPC, wlrctl and wlr-randr) and the time scale
// of this machine.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { until as pollUntil } from '@hypruse/contract-kit';

const run = promisify(execFile);

export type RealCompositor = 'hyprland' | 'sway' | 'labwc';

/** Which real compositor this process runs against, or null (not in the guest). */
export function realCompositor(): RealCompositor | null {
  const c = process.env.HYPRUSE_REAL_COMPOSITOR;
  return c === 'hyprland' || c === 'sway' || c === 'labwc' ? c : null;
}

/**
 * How much slower this machine is than the one the nominal timeouts were set
 * on (HYPRUSE_TIME_SCALE; the guest sets it from the measured boot time).
 */
export const TIME_SCALE = Math.max(1, Number(process.env.HYPRUSE_TIME_SCALE) || 1);
export const scaled = (ms: number) => Math.round(ms * TIME_SCALE);

/** The session environment (the guest writes it; the test process already has it in process.env). */
export function sessionEnv(): Record<string, string> {
  const keys = ['WAYLAND_DISPLAY', 'XDG_RUNTIME_DIR', 'DBUS_SESSION_BUS_ADDRESS', 'HYPRLAND_INSTANCE_SIGNATURE', 'SWAYSOCK', 'XDG_CURRENT_DESKTOP', 'GSK_RENDERER', 'GDK_BACKEND', 'GTK_A11Y', 'HOME', 'PATH', 'LANG'];
  const env: Record<string, string> = {};
  for (const k of keys) if (process.env[k]) env[k] = process.env[k]!;
  return env;
}

/**
 * One request on Hyprland's request socket, as hyprctl sends it (hyprctl
 * itself gives up after a fixed 5 s, which a loaded TCG guest exceeds).
 */
export function hyprRequest(command: string, timeoutMs = scaled(10000)): Promise<string> {
  const path = join(process.env.XDG_RUNTIME_DIR ?? '', 'hypr', process.env.HYPRLAND_INSTANCE_SIGNATURE ?? '', '.socket.sock');
  return new Promise((resolve, reject) => {
    const sock = net.createConnection({ path });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`Hyprland did not answer ${JSON.stringify(command)} within ${timeoutMs} ms`));
    }, timeoutMs);
    sock.on('connect', () => sock.end(command));
    sock.on('data', (d: Buffer) => chunks.push(d));
    sock.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    sock.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

/** `hyprctl -j WHAT`, parsed. */
export async function hyprctlJson<T = unknown>(what: string): Promise<T> {
  return JSON.parse((await hyprRequest(`j/${what}`)).trim()) as T;
}

/** `hyprctl ARGS...` (the reply text, trimmed). */
export async function hyprctl(...args: string[]): Promise<string> {
  return (await hyprRequest(args.join(' '))).trim();
}

export async function swaymsg<T = unknown>(type: string, payload?: string): Promise<T> {
  const args = ['-r', '-t', type];
  if (payload !== undefined) args.push(payload);
  const { stdout } = await run('swaymsg', args, { timeout: scaled(5000), maxBuffer: 16 << 20 });
  return JSON.parse(stdout) as T;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The contract kit's wait loop, polling every 100 ms (a guest's round trips are slow). */
export const until = <T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs: number): Promise<NonNullable<T>> => pollUntil(what, fn, timeoutMs, 100);

export interface HyprClient {
  address: string;
  pid: number;
  class: string;
  title: string;
  at: [number, number];
  size: [number, number];
  workspace: { id: number; name: string };
  floating: boolean;
  fullscreen: number;
  mapped: boolean;
  monitor: number;
}

export interface SwayNode {
  id: number;
  name: string | null;
  type: string;
  pid?: number;
  app_id?: string | null;
  focused: boolean;
  rect: { x: number; y: number; width: number; height: number };
  nodes: SwayNode[];
  floating_nodes: SwayNode[];
}

export function swayWindows(tree: SwayNode): Array<SwayNode & { workspace: string }> {
  const out: Array<SwayNode & { workspace: string }> = [];
  const walk = (n: SwayNode, ws: string) => {
    const w = n.type === 'workspace' ? (n.name ?? ws) : ws;
    if ((n.type === 'con' || n.type === 'floating_con') && n.pid) out.push({ ...n, workspace: w });
    for (const c of [...(n.nodes ?? []), ...(n.floating_nodes ?? [])]) walk(c, w);
  };
  walk(tree, '');
  return out;
}

/** A window of the compositor, found by pid: its address as hypruse spells it. */
export async function windowOfPid(c: RealCompositor, pid: number): Promise<{ address: string; workspace: string; title: string } | null> {
  if (c === 'labwc') throw new Error('labwc tells no client its windows\' pids: find a window there by its title (wlrctlToplevels)');
  if (c === 'hyprland') {
    const w = (await hyprctlJson<HyprClient[]>('clients')).find((x) => x.pid === pid && x.mapped !== false);
    return w ? { address: w.address, workspace: w.workspace.name, title: w.title } : null;
  }
  const w = swayWindows(await swaymsg<SwayNode>('get_tree')).find((x) => x.pid === pid);
  return w ? { address: String(w.id), workspace: w.workspace, title: w.name ?? '' } : null;
}

/** Move a window with the compositor's own command-line client (not through hypruse). */
export async function moveWindowIndependently(c: RealCompositor, address: string, workspace: string): Promise<void> {
  if (c === 'labwc') throw new Error('labwc has no client that moves a window to a workspace');
  if (c === 'hyprland') {
    const r = await hyprctl('dispatch', `hl.dsp.window.move({ workspace = "${workspace}", follow = false, window = "address:${address}" })`);
    if (r.trim() !== 'ok') throw new Error(`hyprctl dispatch (move ${address} to ${workspace}) said: ${r}`);
  } else {
    const r = await swaymsg<Array<{ success: boolean; error?: string }>>('command', `[con_id=${address}] move container to workspace ${workspace}`);
    if (!r[0]?.success) throw new Error(`swaymsg move said: ${JSON.stringify(r)}`);
  }
}

/** Start an app as this (desktop) user, in the session environment. */
export function startApp(cmd: string, args: string[], extraEnv: Record<string, string> = {}, stdio: 'ignore' | 'pipe' = 'ignore'): ChildProcess {
  return spawn(cmd, args, { env: { ...process.env, ...extraEnv }, stdio: ['ignore', stdio, stdio], detached: false });
}

export function readOr(path: string, fallback = ''): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return fallback;
  }
}

/** The toplevels a compositor without IPC lists over wlr-foreign-toplevel, as wlrctl (not hypruse) reads them. */
export async function wlrctlToplevels(): Promise<Array<{ appId: string; title: string }>> {
  const { stdout } = await run('wlrctl', ['toplevel', 'list'], { timeout: scaled(5000) });
  return stdout.split('\n').filter(Boolean).map((line) => {
    const i = line.indexOf(': ');
    return i < 0 ? { appId: line, title: '' } : { appId: line.slice(0, i), title: line.slice(i + 2) };
  });
}

/** Whether wlrctl finds a toplevel of this title (and state: fullscreen, maximized, minimized, active). */
export async function wlrctlFinds(title: string, state?: string): Promise<boolean> {
  const args = ['toplevel', 'find', `title:${title}`, ...(state ? [`state:${state}`] : [])];
  return run('wlrctl', args, { timeout: scaled(5000) }).then(() => true, () => false);
}

/** The enabled outputs as wlr-randr (wlr-output-management) reports them. */
export async function wlrOutputs(): Promise<Array<{ name: string; scale: number; position: { x: number; y: number } }>> {
  const { stdout } = await run('wlr-randr', ['--json'], { timeout: scaled(5000) });
  return (JSON.parse(stdout) as Array<{ name: string; enabled: boolean; scale: number; position: { x: number; y: number } }>).filter((o) => o.enabled);
}
