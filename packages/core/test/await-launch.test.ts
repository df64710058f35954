import { describe, expect, it } from 'vitest';
import { awaitLaunchedWindow, describeExit, type LaunchWindowRef } from '../src/process/await-launch.js';
import { LaunchMatcher } from '../src/process/launch-match.js';
import type { ProcessTable } from '../src/process/proc.js';
import { EventQueue } from '../src/events/event-queue.js';
import { HypruseError } from '../src/errors.js';

/** Fake /proc: pid -> parent. */
function table(rows: Record<number, number>): ProcessTable {
  return { parent: (pid) => rows[pid] ?? null, envVar: () => null, pids: () => Object.keys(rows).map(Number) };
}

/** A fake compositor: a window list, an event queue, and a launch that opens windows on a schedule. */
function rig(opts: { stream?: 'ok' | 'none'; exitCode?: number } = {}) {
  const rows: Record<number, number> = { 700: 1, 701: 700, 900: 1 };
  const listed: LaunchWindowRef[] = [{ address: 'old', pid: 900 }];
  const queue = new EventQueue(() => {});
  let exit: number | null | undefined;
  let signal: string | null | undefined;
  const steps = {
    subscribe: async () => (opts.stream === 'none' ? null : queue),
    windows: async () => [...listed],
    start: async () => ({ child: { pid: 700, exitCode: () => exit, exitSignal: () => signal, errorTail: () => (exit === undefined ? '' : 'qt.qpa.xcb: could not connect to display') }, matcher: new LaunchMatcher({ root: 700, table: table(rows) }) }),
  };
  return {
    steps, queue, listed, rows,
    open(address: string, pid: number, event: 'with-pid' | 'no-pid' | 'none' = 'with-pid') {
      listed.push({ address, pid });
      if (event !== 'none') queue.push({ type: 'window_open', address, class: 'foot', ...(event === 'with-pid' ? { pid } : {}) });
    },
    exit(code: number | null, sig: string | null = null) {
      exit = code;
      signal = sig;
      delete rows[700];
      delete rows[701];
    },
  };
}

const later = (ms: number, fn: () => void) => setTimeout(fn, ms);

describe('awaitLaunchedWindow: one launch policy for every compositor plugin', () => {
  it('takes the launched process\'s window, never a same-class window opened by someone else first', async () => {
    const r = rig();
    later(30, () => r.open('decoy', 900)); // same class, a stranger's process
    later(80, () => r.open('mine', 701)); // the launched shell's child
    const w = await awaitLaunchedWindow(r.steps, { timeoutMs: 3000 });
    expect(w.window).toEqual({ address: 'mine', pid: 701 });
    expect(w.pid).toBe(700);
    expect(w.strangers).toEqual(['decoy']);
  });

  it('times out with window null and names the strangers, even when only a same-class decoy opened', async () => {
    const r = rig();
    later(20, () => r.open('decoy', 900));
    const t0 = Date.now();
    const w = await awaitLaunchedWindow(r.steps, { timeoutMs: 400 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(380);
    expect(w.window).toBeNull();
    expect(w.note).toMatch(/no window of that process appeared within 0\.4s; 1 other window opened meanwhile \(decoy\), none started by this launch/);
  });

  it('looks at the window list when the open event has no pid, also when the list lags the event', async () => {
    const r = rig();
    later(30, () => {
      r.queue.push({ type: 'window_open', address: 'mine' });
      later(60, () => r.listed.push({ address: 'mine', pid: 701 }));
    });
    const w = await awaitLaunchedWindow(r.steps, { timeoutMs: 3000 });
    expect(w.window?.address).toBe('mine');
  });

  it('re-checks the window list on resync (an open lost in a reconnect gap)', async () => {
    const r = rig();
    later(30, () => {
      r.open('mine', 701, 'none');
      r.queue.push({ type: 'resync', reason: 'reconnected' });
    });
    const t0 = Date.now();
    const w = await awaitLaunchedWindow(r.steps, { timeoutMs: 3000 });
    expect(w.window?.address).toBe('mine');
    expect(Date.now() - t0).toBeLessThan(1500);
  });

  it('polls when there is no stream, or when it dies', async () => {
    const none = rig({ stream: 'none' });
    later(40, () => none.open('mine', 701, 'none'));
    expect((await awaitLaunchedWindow(none.steps, { timeoutMs: 3000 })).window?.address).toBe('mine');
    const dying = rig();
    later(20, () => dying.queue.fail(new HypruseError('error.events', 'gone')));
    later(60, () => dying.open('mine', 701, 'none'));
    expect((await awaitLaunchedWindow(dying.steps, { timeoutMs: 3000 })).window?.address).toBe('mine');
  });

  it('stops early when the command failed before opening a window', async () => {
    const r = rig();
    later(30, () => r.exit(127));
    const t0 = Date.now();
    const w = await awaitLaunchedWindow(r.steps, { timeoutMs: 5000 });
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(w).toMatchObject({
      window: null, pid: 700, note: 'the command ended (exit status 127) before opening a window',
      exited: { code: 127, signal: null, errorTail: 'qt.qpa.xcb: could not connect to display' },
    });
  });

  it('stops early, naming the signal and the error output, when a signal ended the command', async () => {
    const r = rig();
    later(30, () => r.exit(null, 'SIGABRT'));
    const t0 = Date.now();
    const w = await awaitLaunchedWindow(r.steps, { timeoutMs: 5000 });
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(w.exited).toEqual({ code: null, signal: 'SIGABRT', errorTail: 'qt.qpa.xcb: could not connect to display' });
    expect(w.note).toBe('the command ended (killed by SIGABRT) before opening a window');
  });

  it('names the signal behind a shell status above 128', () => {
    expect(describeExit({ code: 134, signal: null })).toBe('exit status 134 (SIGABRT)');
    expect(describeExit({ code: 1, signal: null })).toBe('exit status 1');
    expect(describeExit({ code: null, signal: 'SIGSEGV' })).toBe('killed by SIGSEGV');
  });

  it('a cancelled wait is cancelled', async () => {
    const r = rig();
    const ac = new AbortController();
    later(30, () => ac.abort());
    await expect(awaitLaunchedWindow(r.steps, { timeoutMs: 3000, signal: ac.signal })).rejects.toMatchObject({ category: 'cancelled' });
  });
});
