import { describe, expect, it } from 'vitest';
import type { Desktop, Window } from '../src/contracts/desktop.js';
import { DesktopModel } from '../src/events/desktop-model.js';
import { awaitDesktopEvent, eventMatches } from '../src/events/desktop-wait.js';
import { EventQueue } from '../src/events/event-queue.js';

const w = (address: string, cls: string, title: string): Window => ({
  address, class: cls, title, pid: 1, geometry: { x: 0, y: 0, width: 10, height: 10 }, workspace: '1', floating: false, fullscreen: false, visible: true, focused: false,
});

function desk(windows: Window[], ws = '1'): Desktop {
  return {
    compositor: 'test', monitors: [], activeWindow: null, activeWorkspace: ws, cursor: null, layers: [],
    workspaces: [{ id: '1', name: '1', monitor: null, windows: 0, visible: ws === '1', focused: ws === '1' }, { id: '2', name: 'two', monitor: null, windows: 0, visible: ws === '2', focused: ws === '2' }],
    windows,
  };
}

describe('DesktopModel: events filled in from what the windows were', () => {
  it('a close carries the class and title the window had; a title change its class', () => {
    const m = new DesktopModel(desk([w('7', 'zenity', 'Question')]));
    expect(m.apply({ type: 'title_change', address: '7', title: 'Answer' })).toEqual({ type: 'title_change', address: '7', title: 'Answer', class: 'zenity' });
    expect(m.apply({ type: 'window_close', address: '7' })).toEqual({ type: 'window_close', address: '7', class: 'zenity', title: 'Answer' });
    expect(m.apply({ type: 'window_close', address: '99' })).toEqual({ type: 'window_close', address: '99' });
  });

  it('resync: the differences of a fresh snapshot become events, and the model follows', () => {
    const m = new DesktopModel(desk([w('1', 'a', 'one'), w('2', 'b', 'two')]));
    const evs = m.resync(desk([w('2', 'b', 'deux'), w('3', 'c', 'three')], '2'));
    expect(evs).toEqual([
      { type: 'window_close', address: '1', class: 'a', title: 'one' },
      { type: 'title_change', address: '2', title: 'deux', class: 'b' },
      expect.objectContaining({ type: 'window_open', address: '3', class: 'c', title: 'three' }),
      { type: 'workspace', name: 'two', id: '2' },
    ]);
    expect(m.resync(desk([w('2', 'b', 'deux'), w('3', 'c', 'three')], '2'))).toEqual([]);
  });
});

describe('waits that match the window, not the raw event', () => {
  it('window_close match=<title> fires on a close event that has only an address', async () => {
    const q = new EventQueue(() => {});
    const m = new DesktopModel(desk([w('5', 'foot', 'Build log'), w('6', 'foot', 'other')]));
    setTimeout(() => {
      q.push({ type: 'window_close', address: '6' });
      q.push({ type: 'window_close', address: '5' });
    }, 20);
    const hit = await awaitDesktopEvent(q, m, async () => desk([]), { event: 'window_close', match: 'build log', timeoutMs: 2000 });
    expect(hit).toEqual({ event: 'window_close', address: '5', class: 'foot', title: 'Build log' });
  });

  it('window_open match=<title> fires when the title arrives after the window opened (untitled open)', async () => {
    const q = new EventQueue(() => {});
    const m = new DesktopModel(desk([w('1', 'gedit', 'notes')]));
    setTimeout(() => {
      q.push({ type: 'window_open', address: '9', class: 'gedit' });
      q.push({ type: 'title_change', address: '1', title: 'Save As' }); // an old window renamed: not an open
      q.push({ type: 'title_change', address: '9', title: 'Save As' });
    }, 20);
    const hit = await awaitDesktopEvent(q, m, async () => desk([]), { event: 'window_open', match: 'save as', timeoutMs: 2000 });
    expect(hit).toEqual({ event: 'window_open', address: '9', class: 'gedit', title: 'Save As', titled_later: true });
  });

  it('a title change of a window that was open before the wait is not a window_open', () => {
    const m = new DesktopModel(desk([w('1', 'gedit', 'notes')]));
    const e = m.apply({ type: 'title_change', address: '1', title: 'Save As' });
    expect(eventMatches('window_open', e, 'save as', m)).toBe(false);
  });

  it('on resync the wait re-checks a fresh snapshot: a close lost in the gap ends a window_close wait', async () => {
    const q = new EventQueue(() => {});
    const m = new DesktopModel(desk([w('5', 'foot', 'Build log')]));
    let snapshots = 0;
    setTimeout(() => q.push({ type: 'resync', reason: 'reconnected' }), 20);
    const t0 = Date.now();
    const hit = await awaitDesktopEvent(q, m, async () => (snapshots++, desk([])), { event: 'window_close', match: 'build log', timeoutMs: 3000 });
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(snapshots).toBe(1);
    expect(hit).toEqual({ event: 'window_close', address: '5', class: 'foot', title: 'Build log', resynced: true });
  });

  it('on resync an open lost in the gap ends a window_open wait; nothing matching keeps waiting until the timeout', async () => {
    const q = new EventQueue(() => {});
    const m = new DesktopModel(desk([]));
    setTimeout(() => q.push({ type: 'resync', reason: 'reconnected' }), 20);
    const hit = await awaitDesktopEvent(q, m, async () => desk([w('4', 'zenity', 'Save As')]), { event: 'window_open', match: 'save', timeoutMs: 3000 });
    expect(hit).toMatchObject({ event: 'window_open', address: '4', title: 'Save As', resynced: true });
    const q2 = new EventQueue(() => {});
    setTimeout(() => q2.push({ type: 'resync', reason: 'reconnected' }), 20);
    expect(await awaitDesktopEvent(q2, new DesktopModel(desk([])), async () => desk([]), { event: 'window_open', match: 'save', timeoutMs: 300 })).toBeNull();
  });
});
