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

  describe('the window that stays, and hand-offs', () => {
    /** A fake desktop where windows open, close and change title on a schedule; pid 800 is an instance of /usr/bin/pad running before. */
    function desk(opts: { exitAt?: number } = {}) {
      const rows: Record<number, number> = { 700: 1, 800: 1, 950: 1 };
      const listed: LaunchWindowRef[] = [{ address: 'old', pid: 800, class: 'pad', title: 'Untitled 1 - Pad' }];
      const queue = new EventQueue(() => {});
      let exit: number | undefined;
      const tbl: ProcessTable = {
        parent: (pid) => rows[pid] ?? null, envVar: () => null, pids: () => Object.keys(rows).map(Number),
        program: (pid) => (pid === 800 || pid === 950 || pid === 700 ? { exe: '/usr/bin/pad', argv0: 'pad' } : null),
      };
      if (opts.exitAt !== undefined) later(opts.exitAt, () => ((exit = 0), delete rows[700]));
      return {
        steps: {
          subscribe: async () => queue,
          windows: async () => listed.map((w) => ({ ...w })),
          start: async () => ({ child: { pid: 700, exitCode: () => exit }, matcher: new LaunchMatcher({ root: 700, table: tbl }) }),
        },
        table: tbl,
        open(address: string, pid: number, title = '', cls = 'pad') {
          listed.push({ address, pid, class: cls, title });
          queue.push({ type: 'window_open', address, class: cls, pid });
        },
        close(address: string) {
          listed.splice(listed.findIndex((w) => w.address === address), 1);
          queue.push({ type: 'window_close', address });
        },
        retitle(address: string, title: string) {
          listed.find((w) => w.address === address)!.title = title;
          queue.push({ type: 'title_change', address, title });
        },
      };
    }

    it('a first window the app replaces is not the answer: the one that stays is, and the first is named', async () => {
      const d = desk();
      later(20, () => d.open('first', 700, 'Pad'));
      later(120, () => d.close('first'));
      later(200, () => d.open('second', 700, 'Untitled 1 - Pad'));
      const w = await awaitLaunchedWindow(d.steps, { timeoutMs: 4000, stayMs: 300, table: d.table });
      expect(w.window?.address).toBe('second');
      expect(w.replaced?.map((r) => r.address)).toEqual(['first']);
    });

    it('a splash is skipped while the document window comes; dialogs over the document are listed', async () => {
      const d = desk();
      later(20, () => d.open('splash', 700, 'Office 7.4', 'soffice'));
      later(150, () => d.open('doc', 700, 'Untitled 1 - Writer', 'office-writer'));
      later(250, () => d.open('tip', 700, 'Tip of the Day', 'office-writer'));
      later(600, () => d.close('splash'));
      const w = await awaitLaunchedWindow(d.steps, { timeoutMs: 4000, stayMs: 200, splash: [{ class: '^soffice$' }], table: d.table });
      expect(w.window?.address).toBe('doc');
      expect(w.dialogs?.map((x) => x.address)).toEqual(['tip']);
      // a splash that is still open while the document is quiet does not hold the answer back, and is not the answer
      const d2 = desk();
      later(20, () => d2.open('splash', 700, 'Office 7.4', 'soffice'));
      later(60, () => d2.open('doc', 700, 'Untitled 1 - Writer', 'office-writer'));
      const w2 = await awaitLaunchedWindow(d2.steps, { timeoutMs: 4000, stayMs: 200, splash: [{ class: '^soffice$' }], table: d2.table });
      expect(w2.window?.address).toBe('doc');
    });

    it('a hand-off to the running instance returns the window it opened and names its pid', async () => {
      const d = desk({ exitAt: 50 });
      later(120, () => d.open('tab-window', 800, 'Untitled 2 - Pad'));
      const w = await awaitLaunchedWindow(d.steps, { timeoutMs: 4000, stayMs: 150, program: '/usr/bin/pad', table: d.table });
      expect(w).toMatchObject({ window: { address: 'tab-window' }, handoff: { pid: 800, to: 'window' } });
    });

    it('a hand-off shown in an existing window (a new tab) returns that window', async () => {
      const d = desk({ exitAt: 50 });
      later(120, () => d.retitle('old', 'Untitled 2 - Pad'));
      const w = await awaitLaunchedWindow(d.steps, { timeoutMs: 4000, stayMs: 150, program: '/usr/bin/pad', table: d.table });
      expect(w).toMatchObject({ window: { address: 'old' }, handoff: { pid: 800, to: 'existing' } });
    });

    it('a same-app window of a new process (a decoy) is never taken; two windows of the instance come back as candidates', async () => {
      const d = desk({ exitAt: 50 });
      later(30, () => d.open('decoy', 950, 'Pad'));
      const w = await awaitLaunchedWindow(d.steps, { timeoutMs: 700, stayMs: 150, program: '/usr/bin/pad', table: d.table });
      expect(w.window).toBeNull();
      expect(w.strangers).toEqual(['decoy']);
      const d2 = desk({ exitAt: 50 });
      later(100, () => d2.open('a', 800, 'Untitled 2 - Pad'));
      later(110, () => d2.open('b', 800, 'Untitled 3 - Pad'));
      const w2 = await awaitLaunchedWindow(d2.steps, { timeoutMs: 4000, stayMs: 150, program: '/usr/bin/pad', table: d2.table });
      expect(w2.window).toBeNull();
      expect(w2.candidates?.map((c) => c.address)).toEqual(['a', 'b']);
    });
  });
});
