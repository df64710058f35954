import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChangeListener, matchRule, type ListenBus } from '../src/change-listener.js';
import { ReadReuse } from '../src/read-reuse.js';

/**
 * A bus that keeps what the daemon and the registry would hold: the match rules (counted, as
 * dbus-daemon counts the same rule added twice) and whether the change events are registered
 * (the registry drops every copy at one DeregisterEvent). Calls are logged in the order sent.
 */
function fakeBus() {
  const rules = new Map<string, number>();
  let registered = 0;
  const log: string[] = [];
  const bus: ListenBus = {
    addMatch: async (rule) => {
      log.push(`add ${rule}`);
      rules.set(rule, (rules.get(rule) ?? 0) + 1);
    },
    removeMatch: async (rule) => {
      log.push(`remove ${rule}`);
      const n = (rules.get(rule) ?? 0) - 1;
      if (n > 0) rules.set(rule, n);
      else rules.delete(rule);
    },
    registerEvents: async () => {
      log.push('register');
      registered++;
    },
    deregisterEvents: async () => {
      log.push('deregister');
      registered = 0;
    },
  };
  return { bus, rules, log, registered: () => registered > 0 };
}

function setup() {
  const fake = fakeBus();
  const reuse = new ReadReuse<string>({ maxAgeMs: 2000, now: () => Date.now() });
  const listener = new ChangeListener(fake.bus, { listening: (a) => reuse.watching(a), unlistened: (a) => reuse.unwatched(a) }, { keepMs: 2000, now: () => Date.now() });
  /** A whole read of `app` as the backend does it: listen, take the counts, read, keep it, end. */
  const read = async (app: string, key: string, during?: () => Promise<void>) => {
    const l = listener.begin(app);
    try {
      await l.ready;
      const t = reuse.begin(app);
      await during?.();
      return reuse.store(key, t, `tree of ${app}`);
    } finally {
      l.end();
    }
  };
  return { ...fake, reuse, listener, read };
}

describe('listening to an application only while its read may be reused', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a read listens (one match rule, the events registered); 2 s later nothing is listened to and the events are deregistered', async () => {
    const { listener, read, rules, registered, reuse, log } = setup();
    expect(await read(':1.5', 'win')).toBe(true);
    expect([...rules.keys()]).toEqual([matchRule(':1.5')]);
    expect(registered()).toBe(true);
    expect(reuse.lookup('win')?.value).toBe('tree of :1.5');

    await vi.advanceTimersByTimeAsync(1900);
    expect(listener.listened).toEqual([':1.5']);
    expect(rules.size).toBe(1);

    await vi.advanceTimersByTimeAsync(200);
    expect(listener.listened).toEqual([]);
    expect(rules.size).toBe(0);
    expect(registered()).toBe(false);
    expect(log).toEqual(['add ' + matchRule(':1.5'), 'register', 'remove ' + matchRule(':1.5'), 'deregister']);
    expect(reuse.lookup('win')).toBeUndefined();

    // the next read listens again, and its read is reused
    expect(await read(':1.5', 'win')).toBe(true);
    expect(rules.size).toBe(1);
    expect(registered()).toBe(true);
    expect(reuse.lookup('win')?.value).toBe('tree of :1.5');
  });

  it('a newer read keeps the listener 2 s after it; the events stay while another application is listened to', async () => {
    const { listener, read, rules, registered } = setup();
    await read(':1.5', 'a');
    await vi.advanceTimersByTimeAsync(1500);
    await read(':1.5', 'a');
    await read(':1.6', 'b');
    await vi.advanceTimersByTimeAsync(1000);
    expect(listener.listened.sort()).toEqual([':1.5', ':1.6']);
    await vi.advanceTimersByTimeAsync(1100);
    expect(listener.listened).toEqual([]);
    expect(rules.size).toBe(0);
    expect(registered()).toBe(false);
  });

  it('one application given back while another is still listened to: its rule goes, the events stay', async () => {
    const { listener, read, rules, registered } = setup();
    await read(':1.5', 'a');
    await vi.advanceTimersByTimeAsync(1500);
    await read(':1.6', 'b');
    await vi.advanceTimersByTimeAsync(600);
    expect(listener.listened).toEqual([':1.6']);
    expect([...rules.keys()]).toEqual([matchRule(':1.6')]);
    expect(registered()).toBe(true);
  });

  it('a read in flight keeps the listener past 2 s; it is given back once that read ends', async () => {
    const { listener, read, rules } = setup();
    let finish!: () => void;
    const slow = read(':1.5', 'win', () => new Promise<void>((r) => (finish = r)));
    await vi.advanceTimersByTimeAsync(5000);
    expect(listener.listened).toEqual([':1.5']);
    finish();
    // older than 2 s when it ends: not kept, and nothing listened to any more
    expect(await slow).toBe(false);
    expect(listener.listened).toEqual([]);
    expect(rules.size).toBe(0);
  });

  it('a read whose listener was torn down while it ran is never reused', async () => {
    const { listener, reuse, rules } = setup();
    // a read aborted halfway ends early; a second read of the same app had taken its counts before
    const first = listener.begin(':1.5');
    await first.ready;
    const t = reuse.begin(':1.5');
    first.end();
    await vi.advanceTimersByTimeAsync(2100);
    expect(rules.size).toBe(0);
    expect(reuse.current(t)).toBe(false);
    expect(reuse.store('win', t, 'stale')).toBe(false);
  });

  it('listening again right after giving back: the registry ends registered (the deregistration is sent first)', async () => {
    const { read, registered, log, rules } = setup();
    await read(':1.5', 'win');
    await vi.advanceTimersByTimeAsync(2100);
    await read(':1.5', 'win');
    expect(log.slice(-2)).toEqual(['add ' + matchRule(':1.5'), 'register']);
    expect(log.indexOf('deregister')).toBeLessThan(log.lastIndexOf('register'));
    expect(registered()).toBe(true);
    expect(rules.get(matchRule(':1.5'))).toBe(1);
  });

  it('a lost connection forgets every listener without calls (its rules are gone with it)', async () => {
    const { listener, read, log, reuse } = setup();
    await read(':1.5', 'win');
    const before = log.length;
    listener.lost();
    expect(listener.listened).toEqual([]);
    expect(listener.registered).toBe(false);
    expect(reuse.lookup('win')).toBeUndefined();
    await vi.advanceTimersByTimeAsync(3000);
    expect(log.length).toBe(before);
  });

  it('a failed match rule leaves the application unlistened (its reads never kept) and the next read tries again', async () => {
    const fake = fakeBus();
    let fail = true;
    const add = fake.bus.addMatch;
    fake.bus.addMatch = async (rule) => {
      if (fail) throw new Error('no');
      return add(rule);
    };
    const reuse = new ReadReuse<string>({ now: () => Date.now() });
    const listener = new ChangeListener(fake.bus, { listening: (a) => reuse.watching(a), unlistened: (a) => reuse.unwatched(a) }, { keepMs: 2000, now: () => Date.now() });
    const l = listener.begin(':1.5');
    await expect(l.ready).rejects.toThrow('no');
    expect(reuse.isWatched(':1.5')).toBe(false);
    l.end();
    expect(listener.listened).toEqual([]);
    fail = false;
    const again = listener.begin(':1.5');
    await again.ready;
    expect(reuse.isWatched(':1.5')).toBe(true);
    again.end();
  });
});
