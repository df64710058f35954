import { CancelledError, HypruseError } from '@hypruse/core';
import { describe, expect, it } from 'vitest';
import { Deadline, withDeadline } from '../src/deadline.js';

describe('Deadline', () => {
  it('rejects a hung operation with a typed error naming the party', async () => {
    const t0 = Date.now();
    const err = (await withDeadline(120, 'zenity', undefined, () => new Promise(() => undefined)).catch((e: unknown) => e)) as HypruseError;
    expect(err).toBeInstanceOf(HypruseError);
    expect(err.code).toBe('error.a11y');
    expect(err.message).toBe('zenity did not answer within 0.1 s');
    expect(err.hint).toMatch(/screenshot/);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(100);
    expect(Date.now() - t0).toBeLessThan(1000);
  });
  it('passes results through and uses the current label', async () => {
    expect(await withDeadline(1000, 'x', undefined, async () => 42)).toBe(42);
    const d = new Deadline(50, 'the registry');
    d.what = 'gedit';
    await expect(d.race(new Promise(() => undefined))).rejects.toThrow('gedit did not answer within 0.1 s');
  });
  it('honours an abort signal', async () => {
    const ac = new AbortController();
    const p = withDeadline(5000, 'x', ac.signal, () => new Promise(() => undefined));
    setTimeout(() => ac.abort(), 20);
    await expect(p).rejects.toBeInstanceOf(CancelledError);
    const pre = new AbortController();
    pre.abort();
    await expect(withDeadline(5000, 'x', pre.signal, async () => 1)).rejects.toBeInstanceOf(CancelledError);
  });
});
