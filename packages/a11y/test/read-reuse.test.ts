import { describe, expect, it } from 'vitest';
import { ReadReuse } from '../src/read-reuse.js';

/** A reuse table on a hand-driven clock. */
function table(maxAgeMs = 2000) {
  let t = 0;
  const r = new ReadReuse<string>({ maxAgeMs, now: () => t });
  return { r, tick: (ms: number) => (t += ms) };
}

describe('when a tree read is reused', () => {
  it('a read of a watched application is given again while nothing happened', () => {
    const { r, tick } = table();
    r.watching(':1.5');
    const ticket = r.begin(':1.5');
    expect(r.store('win', ticket, 'tree')).toBe(true);
    tick(1999);
    expect(r.lookup('win')?.value).toBe('tree');
    expect(r.lookup('win')?.app).toBe(':1.5');
    expect(r.lookup('other')).toBeUndefined();
  });

  it('never once it is 2 s old', () => {
    const { r, tick } = table();
    r.watching(':1.5');
    r.store('win', r.begin(':1.5'), 'tree');
    tick(2000);
    expect(r.lookup('win')).toBeUndefined();
  });

  it('never after a signal from its application; a signal from another application changes nothing', () => {
    const { r } = table();
    r.watching(':1.5');
    r.watching(':1.6');
    r.store('a', r.begin(':1.5'), 'tree a');
    r.store('b', r.begin(':1.6'), 'tree b');
    r.changed(':1.6');
    expect(r.lookup('a')?.value).toBe('tree a');
    expect(r.lookup('b')).toBeUndefined();
  });

  it('never after input, for any application', () => {
    const { r } = table();
    r.watching(':1.5');
    r.watching(':1.6');
    r.store('a', r.begin(':1.5'), 'tree a');
    r.store('b', r.begin(':1.6'), 'tree b');
    r.input();
    expect(r.lookup('a')).toBeUndefined();
    expect(r.lookup('b')).toBeUndefined();
  });

  it('a read during which the application signalled or input was sent is not kept', () => {
    const { r } = table();
    r.watching(':1.5');
    const t1 = r.begin(':1.5');
    r.changed(':1.5');
    expect(r.store('win', t1, 'tree')).toBe(false);
    expect(r.lookup('win')).toBeUndefined();
    const t2 = r.begin(':1.5');
    r.input();
    expect(r.store('win', t2, 'tree')).toBe(false);
    // a read begun after the signal is kept
    expect(r.store('win', r.begin(':1.5'), 'tree 2')).toBe(true);
    expect(r.lookup('win')?.value).toBe('tree 2');
  });

  it('a kept read is dropped by a later read of the same window that could not be kept', () => {
    const { r } = table();
    r.watching(':1.5');
    r.store('win', r.begin(':1.5'), 'old');
    const t = r.begin(':1.5');
    r.changed(':1.5');
    r.store('win', t, 'new');
    expect(r.lookup('win')).toBeUndefined();
  });

  it('never for an application whose signals did not reach us when the read began', () => {
    const { r } = table();
    const early = r.begin(':1.5');
    r.watching(':1.5');
    expect(r.store('win', early, 'tree')).toBe(false);
    expect(r.lookup('win')).toBeUndefined();
  });

  it('nothing survives a lost connection (its signals may be missed), and applications must be watched again', () => {
    const { r } = table();
    r.watching(':1.5');
    const before = r.begin(':1.5');
    r.store('win', r.begin(':1.5'), 'tree');
    r.lost();
    expect(r.lookup('win')).toBeUndefined();
    expect(r.isWatched(':1.5')).toBe(false);
    // a read begun on the old connection is not kept even once the application is watched again
    r.watching(':1.5');
    expect(r.store('win', before, 'tree')).toBe(false);
    expect(r.store('win', r.begin(':1.5'), 'tree')).toBe(true);
  });
});

describe('when an application stops being watched', () => {
  it('its kept reads and any read begun before are never reused; another application keeps its own', () => {
    let t = 0;
    const r = new ReadReuse<string>({ now: () => t });
    r.watching(':1.5');
    r.watching(':1.6');
    r.store('a', r.begin(':1.5'), 'tree a');
    r.store('b', r.begin(':1.6'), 'tree b');
    const inFlight = r.begin(':1.5');
    r.unwatched(':1.5');
    expect(r.lookup('a')).toBeUndefined();
    expect(r.store('a', inFlight, 'late')).toBe(false);
    expect(r.store('a', r.begin(':1.5'), 'unwatched')).toBe(false);
    expect(r.lookup('b')?.value).toBe('tree b');
    // watched again: a read begun from then on is kept
    r.watching(':1.5');
    expect(r.store('a', r.begin(':1.5'), 'again')).toBe(true);
    t += 1;
    expect(r.lookup('a')?.value).toBe('again');
  });
});
