import { constants as osConstants } from 'node:os';
import type { EventSubscription } from '../contracts/compositor.js';
import { CancelledError } from '../errors.js';
import type { LaunchMatcher } from './launch-match.js';
import type { SpawnedProcess } from './spawn.js';
import { procfsTable, type ProcessTable } from './proc.js';
import { realpathSync } from 'node:fs';
import { basename, dirname } from 'node:path';

/** Folders many programs share: two programs found there are not one app. */
const SHARED_BIN = /^\/(usr\/(local\/)?)?s?bin$|^\/opt\/bin$|\/\.local\/bin$|^\/snap\/bin$/;

/** A window as the launch wait needs it: its address and the pid the compositor reports (class and title where known). */
export interface LaunchWindowRef {
  address: string;
  pid: number | null;
  class?: string;
  title?: string;
}

/** A window an app shows only while it starts (a splash): its class and/or title, as a regular expression source each. */
export interface SplashSpec {
  class?: string;
  title?: string;
}

/** What a compositor plugin gives the shared launch wait. */
export interface LaunchSteps {
  /** Subscribe to events before anything starts; null (or a throw) when the stream is unavailable: the wait then polls. */
  subscribe(): Promise<EventSubscription | null>;
  /** The windows listed now. */
  windows(signal?: AbortSignal): Promise<LaunchWindowRef[]>;
  /** Start the command. `child` is null when the compositor starts the process itself (the token alone decides then). */
  start(): Promise<{ child: SpawnedProcess | null; matcher: LaunchMatcher }>;
}

/** How to tell the window that stays, and a hand-off, from the rest (LaunchOptions carries these from the app-family table). */
export interface LaunchWaitOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /**
   * After the first window of the launch appears, the windows of the launch
   * must stay unchanged this long before one is taken: a first window the app
   * replaces, or a splash that closes, is not the answer. 0: take the first.
   */
  stayMs?: number;
  /** Windows that are splashes (never the answer while another window of the launch is open or coming). */
  splash?: SplashSpec[];
  /** The file the command runs (absolute): a window opened meanwhile by an instance of it that was running before is a hand-off. */
  program?: string;
  /** Default: `/proc`. */
  table?: ProcessTable;
}

export interface LaunchWait {
  /** The launched process's own window, or null. */
  window: LaunchWindowRef | null;
  /** Pid of the started process (null when the compositor started it). */
  pid: number | null;
  /** Why no window was found, in one sentence (set when `window` is null). */
  note?: string;
  /** Windows that opened meanwhile and belong to someone else (never taken). */
  strangers: string[];
  /** Set when the started command ended (with a failure) before any window of it appeared. */
  exited?: LaunchExit;
  /** Other windows of the launch still open over the answer (first-start dialogs, tips), in the order they opened. */
  dialogs?: LaunchWindowRef[];
  /** Windows of the launch that closed before the answer was taken (a splash, a first window replaced). */
  replaced?: LaunchWindowRef[];
  /**
   * The launched process handed its request to an instance running before it:
   * the instance's pid, and whether it opened a new window for it (`window`)
   * or showed it in one it already had (`existing`: its title changed).
   */
  handoff?: { pid: number; to: 'window' | 'existing' };
  /** Set instead of `window` when two windows could each be the answer (a hand-off beside another window of the same instance): both. */
  candidates?: LaunchWindowRef[];
}

/** How a launched command ended before opening a window. */
export interface LaunchExit {
  /** Its exit status, or null when a signal ended it. */
  code: number | null;
  /** The signal that ended it ('SIGSEGV'), or null. */
  signal: string | null;
  /** The last lines of its error output ('' when it wrote none). */
  errorTail: string;
}

/** "exit status 1", "killed by SIGSEGV", "exit status 134 (the shell's report of SIGABRT)". */
export function describeExit(e: Pick<LaunchExit, 'code' | 'signal'>): string {
  if (e.signal) return `killed by ${e.signal}`;
  if (typeof e.code === 'number' && e.code > 128 && e.code < 128 + 65) {
    const name = Object.entries(osConstants.signals).find(([, n]) => n === e.code! - 128)?.[0];
    if (name) return `exit status ${e.code} (${name})`;
  }
  return `exit status ${e.code}`;
}

const POLL_MS = 150;
const EVENT_SLICE_MS = 200;

/** Whether a window is one of the splashes described. */
export function isSplash(w: Pick<LaunchWindowRef, 'class' | 'title'>, specs: SplashSpec[] | undefined): boolean {
  return (specs ?? []).some(
    (sp) => (sp.class === undefined || new RegExp(sp.class).test(w.class ?? '')) && (sp.title === undefined || new RegExp(sp.title).test(w.title ?? '')) && (sp.class !== undefined || sp.title !== undefined),
  );
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** Whether process `pid` runs `program` (same executable file, or the same program name). */
function runsProgram(table: ProcessTable, pid: number, program: string): boolean {
  const p = table.program?.(pid);
  if (!p) return false;
  const want = real(program);
  if (p.exe && (p.exe === want || basename(p.exe) === basename(want) || basename(p.exe) === basename(program))) return true;
  // a launcher script beside its binary in the app's own folder (LibreOffice's soffice runs soffice.bin); never a shared bin folder
  if (p.exe && dirname(p.exe) === dirname(want) && !SHARED_BIN.test(dirname(want))) return true;
  return p.argv0 !== null && (basename(p.argv0) === basename(program) || basename(p.argv0) === basename(want));
}

/**
 * Start a launch and wait for *its* window, the one policy of every
 * compositor plugin: a window counts only if the launch matcher owns its pid
 * (the launched process or a descendant, its session or process group, or a
 * process carrying the launch token). A window of the same class opened by
 * someone else meanwhile is a stranger and is never taken. Events are the
 * fast path; a `resync` event, or a window_open without a pid, triggers a
 * look at the window list; when the stream dies the wait polls the list.
 *
 * Once a window of the launch is there, the windows of the launch must stay
 * unchanged for `stayMs`: a splash, or a first window the app replaces with
 * another, is not the answer; the window that stays is, with the other
 * windows of the launch over it (dialogs) listed. When the launched program
 * hands its request to an instance of itself that was running before (it
 * exits, or waits without a window), the window that instance opens meanwhile
 * is the answer, or the window of it whose title changed; two such windows
 * cannot be told apart and come back as candidates. Without a window, the
 * result says whether the command exited first, or the timeout passed (and
 * which strangers opened meanwhile).
 */
export async function awaitLaunchedWindow(steps: LaunchSteps, opts: LaunchWaitOptions): Promise<LaunchWait> {
  const { signal } = opts;
  const table = opts.table ?? procfsTable;
  const stayMs = Math.max(0, opts.stayMs ?? 0);
  let sub: EventSubscription | null = null;
  let started: Awaited<ReturnType<LaunchSteps['start']>> | null = null;
  try {
    sub = await steps.subscribe();
  } catch {
    sub = null;
  }
  try {
    const before = await steps.windows(signal);
    const baseline = new Set(before.map((w) => w.address));
    const titlesBefore = new Map(before.map((w) => [w.address, w.title]));
    // processes running before the launch that run the same program: the instances a hand-off may go to
    const instances = new Set<number>();
    if (opts.program) {
      const pids = new Set(before.map((w) => w.pid).filter((p): p is number => typeof p === 'number'));
      for (const p of pids) if (runsProgram(table, p, opts.program)) instances.add(p);
    }
    if (signal?.aborted) throw new CancelledError();
    started = await steps.start();
    const { child, matcher } = started;
    const pid = child?.pid ?? null;
    const deadline = Date.now() + Math.max(0, opts.timeoutMs);
    const strangers: string[] = [];
    const isInstance = (p: number | null) => typeof p === 'number' && instances.has(p) && !matcher.owns(p);
    const judge = (w: LaunchWindowRef): LaunchWindowRef | null => {
      if (baseline.has(w.address)) return null;
      if (matcher.owns(w.pid)) return w;
      // a pid not yet known may be a fresh descendant: look at the table once more before calling it a stranger
      matcher.refresh();
      if (matcher.owns(w.pid)) return w;
      if (!isInstance(w.pid) && !strangers.includes(w.address)) strangers.push(w.address);
      return null;
    };
    // opened by an event but not listed yet (an event can precede the window list by a moment)
    const pending = new Set<string>();
    // the launch's windows as seen so far, in the order they opened, and those that closed
    const order: LaunchWindowRef[] = [];
    const closed = new Map<string, LaunchWindowRef>();
    let changedAt = 0;
    // a hand-off seen so far: new windows of a running instance, and its windows whose title changed
    const handed = new Map<string, LaunchWindowRef>();
    const retitled = new Map<string, LaunchWindowRef>();
    let handedAt = 0;
    const look = async (): Promise<void> => {
      const listed = await steps.windows(signal);
      const now = Date.now();
      const open = new Set<string>();
      for (const w of listed) {
        pending.delete(w.address);
        open.add(w.address);
        const mine = judge(w);
        if (mine) {
          const known = order.find((o) => o.address === w.address);
          if (!known) {
            order.push({ ...w });
            changedAt = now;
          } else {
            known.title = w.title;
            known.class = w.class;
          }
        } else if (isInstance(w.pid)) {
          if (!baseline.has(w.address) && !handed.has(w.address)) {
            handed.set(w.address, { ...w });
            handedAt = now;
          } else if (baseline.has(w.address) && w.title !== undefined && w.title !== titlesBefore.get(w.address) && !retitled.has(w.address)) {
            retitled.set(w.address, { ...w });
            handedAt = now;
          }
        }
      }
      for (const o of order) {
        if (!open.has(o.address) && !closed.has(o.address)) {
          closed.set(o.address, o);
          changedAt = now;
        }
      }
      for (const a of [...handed.keys()]) if (!open.has(a)) handed.delete(a);
    };
    const live = () => order.filter((o) => !closed.has(o.address));
    /** The answer once the launch's windows are quiet, or null to keep waiting. */
    const decide = (final: boolean): LaunchWait | null => {
      const now = Date.now();
      const open = live();
      if (open.length) {
        const keepers = open.filter((o) => !isSplash(o, opts.splash));
        if (!final && (now - changedAt < stayMs || keepers.length === 0)) return null;
        const main = keepers[0] ?? open[0]!;
        const dialogs = open.filter((o) => o !== main && !isSplash(o, opts.splash));
        const replaced = order.filter((o) => closed.has(o.address));
        return { window: main, pid, strangers, ...(dialogs.length ? { dialogs } : {}), ...(replaced.length ? { replaced } : {}) };
      }
      if (order.length) return null; // its windows closed: one may replace them
      const gone = child?.exitCode() !== undefined || !matcher.alive();
      const cands = [...handed.values()];
      if (cands.length && (final || (now - handedAt >= stayMs && (gone || now - handedAt >= 2 * stayMs)))) {
        if (cands.length > 1) return { window: null, pid, strangers, candidates: cands, note: `the launch was handed to a running instance, and ${cands.length} of its windows opened meanwhile; they cannot be told apart` };
        return { window: cands[0]!, pid, strangers, handoff: { pid: cands[0]!.pid!, to: 'window' } };
      }
      const re = [...retitled.values()];
      if (!cands.length && re.length && gone && (final || now - handedAt >= stayMs)) {
        if (re.length > 1) return { window: null, pid, strangers, candidates: re, note: `the launch was handed to a running instance, and ${re.length} of its windows changed meanwhile; they cannot be told apart` };
        return { window: re[0]!, pid, strangers, handoff: { pid: re[0]!.pid!, to: 'existing' } };
      }
      return null;
    };
    for (;;) {
      if (signal?.aborted) throw new CancelledError();
      matcher.refresh();
      const left = deadline - Date.now();
      if (left <= 0) break;
      const code = child?.exitCode();
      const sig = child?.exitSignal?.() ?? null;
      if (code !== undefined && (code !== 0 || sig) && !matcher.alive() && !handed.size && !retitled.size) {
        // the command failed; a window it opened just before exiting still counts
        await look();
        const last = decide(true);
        if (last) return last;
        const exited: LaunchExit = { code: code ?? null, signal: sig, errorTail: child?.errorTail?.() ?? '' };
        return { window: null, pid, strangers, exited, note: `the command ended (${describeExit(exited)}) before opening a window` };
      }
      const done = decide(false);
      if (done) return done;
      // look often while something is settling (a window of the launch, a hand-off, the process gone), else wait for events
      const busy = order.length > 0 || handed.size > 0 || retitled.size > 0 || pending.size > 0 || (instances.size > 0 && code !== undefined);
      if (sub) {
        let ev;
        try {
          ev = await sub.next(Math.min(left, busy ? POLL_MS : EVENT_SLICE_MS), signal);
        } catch {
          sub = null; // the stream died for good: poll from here on
          continue;
        }
        if (!ev) {
          if (busy) await look();
          continue;
        }
        if (ev.type === 'window_open') {
          if (typeof ev.pid === 'number' && !busy && stayMs === 0) {
            const mine = judge({ address: ev.address, pid: ev.pid });
            if (mine) return { window: mine, pid, strangers };
            if (isInstance(ev.pid)) await look();
          } else {
            if (typeof ev.pid !== 'number') pending.add(ev.address);
            await look();
          }
        } else if (ev.type === 'resync' || ev.type === 'window_close' || ev.type === 'title_change') {
          if (ev.type === 'resync' || busy || instances.size > 0) await look();
        }
      } else {
        await look();
        if (decide(false)) continue;
        await new Promise((r) => setTimeout(r, Math.min(POLL_MS, Math.max(0, deadline - Date.now()))));
      }
    }
    if (signal?.aborted) throw new CancelledError();
    // one last look: the window may have been listed just as the time ran out
    await look();
    const last = decide(true);
    if (last) return last;
    const secs = Math.round(opts.timeoutMs / 100) / 10;
    const who = pid !== null ? `launched (pid ${pid}), but` : 'launched, but';
    const others = strangers.length
      ? `; ${strangers.length} other window${strangers.length === 1 ? '' : 's'} opened meanwhile (${strangers.join(', ')}), none started by this launch`
      : '';
    if (order.length) {
      const gone = order.map((o) => `${o.address}${o.title ? ` "${o.title}"` : ''}`).join(', ');
      return { window: null, pid, strangers, replaced: order, note: `${who} its window${order.length === 1 ? '' : 's'} (${gone}) closed again and none stayed within ${secs}s${others}.` };
    }
    const handoff = !matcher.alive() ? ' The launched process has exited: a single-instance app may have handed over to an already running instance; call desktop() to look.' : '';
    return { window: null, pid, strangers, note: `${who} no window of that process appeared within ${secs}s${others}.${handoff}` };
  } finally {
    sub?.close();
    started?.child?.release?.();
  }
}
