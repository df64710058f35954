import { constants as osConstants } from 'node:os';
import type { EventSubscription } from '../contracts/compositor.js';
import { CancelledError } from '../errors.js';
import type { LaunchMatcher } from './launch-match.js';
import type { SpawnedProcess } from './spawn.js';

/** A window as the launch wait needs it: its address and the pid the compositor reports. */
export interface LaunchWindowRef {
  address: string;
  pid: number | null;
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

/**
 * Start a launch and wait for *its* window, the one policy of every
 * compositor plugin: a window counts only if the launch matcher owns its pid
 * (the launched process or a descendant, its session or process group, or a
 * process carrying the launch token). A window of the same class opened by
 * someone else meanwhile is a stranger and is never taken. Events are the
 * fast path; a `resync` event, or a window_open without a pid, triggers a
 * look at the window list; when the stream dies the wait polls the list.
 * Without a window, the result says whether the command exited first, or the
 * timeout passed (and which strangers opened meanwhile).
 */
export async function awaitLaunchedWindow(steps: LaunchSteps, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<LaunchWait> {
  const { signal } = opts;
  let sub: EventSubscription | null = null;
  let started: Awaited<ReturnType<LaunchSteps['start']>> | null = null;
  try {
    sub = await steps.subscribe();
  } catch {
    sub = null;
  }
  try {
    const baseline = new Set((await steps.windows(signal)).map((w) => w.address));
    if (signal?.aborted) throw new CancelledError();
    started = await steps.start();
    const { child, matcher } = started;
    const pid = child?.pid ?? null;
    const deadline = Date.now() + Math.max(0, opts.timeoutMs);
    const strangers: string[] = [];
    const judge = (w: LaunchWindowRef): LaunchWindowRef | null => {
      if (baseline.has(w.address)) return null;
      if (matcher.owns(w.pid)) return w;
      // a pid not yet known may be a fresh descendant: look at the table once more before calling it a stranger
      matcher.refresh();
      if (matcher.owns(w.pid)) return w;
      if (!strangers.includes(w.address)) strangers.push(w.address);
      return null;
    };
    // opened by an event but not listed yet (an event can precede the window list by a moment)
    const pending = new Set<string>();
    const scan = async (): Promise<LaunchWindowRef | null> => {
      const listed = await steps.windows(signal);
      for (const w of listed) pending.delete(w.address);
      for (const w of listed) {
        const mine = judge(w);
        if (mine) return mine;
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
      if (code !== undefined && (code !== 0 || sig) && !matcher.alive()) {
        // the command failed; a window it opened just before exiting still counts
        const last = await scan();
        if (last) return { window: last, pid, strangers };
        const exited: LaunchExit = { code: code ?? null, signal: sig, errorTail: child?.errorTail?.() ?? '' };
        return { window: null, pid, strangers, exited, note: `the command ended (${describeExit(exited)}) before opening a window` };
      }
      if (sub) {
        let ev;
        try {
          ev = await sub.next(Math.min(left, pending.size ? POLL_MS : EVENT_SLICE_MS), signal);
        } catch {
          sub = null; // the stream died for good: poll from here on
          continue;
        }
        if (!ev) {
          if (pending.size) {
            const mine = await scan();
            if (mine) return { window: mine, pid, strangers };
          }
          continue;
        }
        if (ev.type === 'window_open') {
          if (typeof ev.pid === 'number') {
            const mine = judge({ address: ev.address, pid: ev.pid });
            if (mine) return { window: mine, pid, strangers };
          } else {
            pending.add(ev.address);
            const mine = await scan();
            if (mine) return { window: mine, pid, strangers };
          }
        } else if (ev.type === 'resync') {
          const mine = await scan();
          if (mine) return { window: mine, pid, strangers };
        }
      } else {
        const mine = await scan();
        if (mine) return { window: mine, pid, strangers };
        await new Promise((r) => setTimeout(r, Math.min(POLL_MS, Math.max(0, deadline - Date.now()))));
      }
    }
    if (signal?.aborted) throw new CancelledError();
    // one last look: the window may have been listed just as the time ran out
    const last = await scan();
    if (last) return { window: last, pid, strangers };
    const secs = Math.round(opts.timeoutMs / 100) / 10;
    const who = pid !== null ? `launched (pid ${pid}), but` : 'launched, but';
    const others = strangers.length
      ? `; ${strangers.length} other window${strangers.length === 1 ? '' : 's'} opened meanwhile (${strangers.join(', ')}), none started by this launch`
      : '';
    const handoff = !matcher.alive() ? ' The launched process has exited: a single-instance app may have handed over to an already running instance; call desktop() to look.' : '';
    return { window: null, pid, strangers, note: `${who} no window of that process appeared within ${secs}s${others}.${handoff}` };
  } finally {
    sub?.close();
    started?.child?.release?.();
  }
}
