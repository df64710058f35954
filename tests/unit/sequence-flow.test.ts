// sequence control flow over the real pipeline with in-memory backends: observation steps, `$N`
// references, if / optional / on_fail, bounded repeat ... until. What was delivered is read from the
// fakes (cursor moves, clicks), not from the sequence's own report.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeSession, type FakeSession } from '../support/fake-session.js';

process.env.XDG_RUNTIME_DIR ??= mkdtempSync(join(tmpdir(), 'hypruse-flow-'));

let session: FakeSession | null = null;
afterEach(async () => {
  await session?.dispose();
  session = null;
});

const cursor = (s: FakeSession) => s.fake.compositor.actions.filter((a) => a.startsWith('cursor '));
const seq = (s: FakeSession, steps: unknown[]) => s.pipeline.call('sequence', { steps, then: 'none' });

describe('sequence observations and $N references', () => {
  it('a ui step finds an id that a later click_ui uses', async () => {
    session = await fakeSession();
    const r = await seq(session, [
      { op: 'ui', window: '11', name: 'Cancel' },
      { op: 'click_ui', id: '$1.elements.0.id' },
    ]);
    expect(r.text[0]).toBe('sequence: all 2/2 steps ran');
    expect(r.text[1]).toMatch(/^\[1\] ui: 1 control\(s\) in zenity/);
    // Cancel's centre: window 100,100 + extents 200,150 + half of 80x30
    expect(cursor(session)).toEqual(['cursor 340,265']);
    expect(session.fake.input.delivered).toEqual(['click left x1']);
  });

  it('a reference to the same or a later step is refused before anything runs; "$$" is a literal "$"', async () => {
    session = await fakeSession();
    await expect(seq(session, [{ op: 'pointer', action: 'move', x: '$1.cursor.0', y: 5 }])).rejects.toThrow(/refers to step 1, but only the steps before this one \(1\.\.0\) have results/);
    await expect(seq(session, [{ op: 'pointer', action: 'move', x: 110, y: 120 }, { op: 'keyboard', action: 'type', text: '$3', window: '11' }])).rejects.toThrow(/refers to step 3/);
    expect(session.fake.compositor.actions).toEqual([]);
    await seq(session, [{ op: 'keyboard', action: 'type', text: '$$5 off', window: '11' }]);
    expect(session.fake.input.delivered).toEqual(['type $5 off']);
  });

  it('a path the result lacks fails that step with what the result has', async () => {
    session = await fakeSession();
    const err = await seq(session, [
      { op: 'pointer', action: 'move', x: 110, y: 120 },
      { op: 'pointer', action: 'move', x: '$1.where.0', y: 5 },
    ]).catch((e: Error) => e);
    expect(String(err)).toMatch(/stopped after 2\/2 steps, step 2 failed: \$1\.where\.0: step 1's result has no "where" \(it has fields text, action, cursor\)/);
    expect(cursor(session)).toEqual(['cursor 110,120']);
  });

  it('a get_text step is an observation whose result a later step reads', async () => {
    session = await fakeSession();
    const r = await seq(session, [
      { op: 'get_text', window: '11' },
      { op: 'keyboard', action: 'type', text: '$1.class', window: '11' },
    ]);
    expect(r.text[1]).toMatch(/^\[1\] get_text: /);
    expect(session.fake.input.delivered).toEqual(['type zenity']);
  });

  it('a number from an earlier result feeds a coordinate', async () => {
    session = await fakeSession();
    await seq(session, [
      { op: 'pointer', action: 'move', x: 110, y: 120 },
      { op: 'pointer', action: 'move', x: '$1.cursor.0', y: '$1.cursor.1' },
    ]);
    expect(cursor(session)).toEqual(['cursor 110,120', 'cursor 110,120']);
  });
});

describe('sequence if / optional / on_fail', () => {
  it('if present runs the step, if absent of a present element skips it, and the report says why', async () => {
    session = await fakeSession();
    const r = await seq(session, [
      { op: 'pointer', action: 'move', x: 111, y: 120, if: { present: { name: 'OK', window: '11' } } },
      { op: 'pointer', action: 'move', x: 112, y: 120, if: { absent: { name: 'Cancel', window: '11' } } },
      { op: 'pointer', action: 'move', x: 113, y: 120, if: { present: { name: 'Frobnicate', window: '11' } } },
      { op: 'pointer', action: 'move', x: 114, y: 120, if: { text_contains: 'okay THEN', window: '11' } },
    ]);
    expect(cursor(session)).toEqual(['cursor 111,120', 'cursor 114,120']);
    expect(r.text[2]).toMatch(/^\[2\] pointer move: skipped \("Cancel" in 11 is present/);
    expect(r.text[3]).toMatch(/^\[3\] pointer move: skipped \("Frobnicate" in 11 is absent\)/);
  });

  it('an optional step that fails is reported and the plan goes on; a plain one stops it', async () => {
    session = await fakeSession();
    const r = await seq(session, [
      { op: 'click_ui', name: 'Frobnicate', window: '11', optional: true },
      { op: 'pointer', action: 'move', x: 115, y: 120 },
    ]);
    expect(r.text[1]).toMatch(/^\[1\] click_ui: NOT_FOUND no element named 'Frobnicate' .*\(optional: going on\)$/);
    expect(cursor(session)).toEqual(['cursor 115,120']);
    await expect(seq(session, [{ op: 'click_ui', name: 'Frobnicate', window: '11' }, { op: 'pointer', action: 'move', x: 116, y: 120 }])).rejects.toThrow(/stopped after 1\/2 steps, step 1 failed/);
    expect(cursor(session)).toEqual(['cursor 115,120']);
  });

  it('on_fail runs its recovery steps, then the plan goes on; a failing recovery stops it', async () => {
    session = await fakeSession();
    const r = await seq(session, [
      { op: 'click_ui', name: 'Frobnicate', window: '11', on_fail: [{ op: 'click_ui', name: 'Cancel', window: '11' }] },
      { op: 'pointer', action: 'move', x: 117, y: 120 },
    ]);
    expect(r.text.some((l) => l === '[1] on_fail: 1 recovery step(s)')).toBe(true);
    expect(cursor(session)).toEqual(['cursor 340,265', 'cursor 117,120']);
    await expect(seq(session, [
      { op: 'click_ui', name: 'Frobnicate', window: '11', on_fail: [{ op: 'click_ui', name: 'Nothing', window: '11' }] },
      { op: 'pointer', action: 'move', x: 118, y: 120 },
    ])).rejects.toThrow(/step 1 failed \(.*\) and its recovery step 1 failed too/);
    expect(cursor(session).at(-1)).toBe('cursor 117,120');
  });

  it('a refusal is rescued by neither optional nor on_fail: the dangerous-action guard stops the plan', async () => {
    session = await fakeSession();
    await expect(seq(session, [{ op: 'click_ui', name: 'Delete', window: '11', optional: true }, { op: 'pointer', action: 'move', x: 119, y: 120 }])).rejects.toThrow(/stopped after 1\/2 steps, step 1 was refused/);
    await expect(seq(session, [{ op: 'click_ui', name: 'Delete', window: '11', on_fail: [{ op: 'pointer', action: 'move', x: 119, y: 121 }] }])).rejects.toThrow(/step 1 was refused/);
    expect(cursor(session)).toEqual([]);
    expect(session.fake.input.delivered).toEqual([]);
  });
});

describe('sequence repeat ... until', () => {
  it('stops repeating once the condition holds', async () => {
    session = await fakeSession();
    const a11y = session.fake.a11y;
    const cancel = a11y.elements[1];
    a11y.elements = a11y.elements.filter((e) => e !== cancel);
    let moves = 0;
    const comp = session.fake.compositor;
    const move = comp.moveCursor.bind(comp);
    comp.moveCursor = async (p) => {
      await move(p);
      // the third round makes Cancel appear
      if (++moves === 3) a11y.elements.push(cancel);
    };
    const r = await seq(session, [{ op: 'repeat', steps: [{ op: 'pointer', action: 'move', x: 120, y: 120 }], until: { present: { name: 'Cancel', window: '11' } }, max: 6 }]);
    expect(moves).toBe(3);
    expect(r.text.some((l) => /^\[1\] repeat: done after 3 round\(s\) \("Cancel" in 11 is present \(push button "Cancel" \[\d+\]\)\)$/.test(l))).toBe(true);
  });

  it('is bounded: after max rounds the repeat fails (optional lets the plan go on)', async () => {
    session = await fakeSession();
    const r = await seq(session, [
      { op: 'repeat', steps: [{ op: 'pointer', action: 'move', x: 121, y: 120 }], until: { present: { name: 'Never', window: '11' } }, max: 4, optional: true },
      { op: 'pointer', action: 'move', x: 122, y: 120 },
    ]);
    expect(cursor(session)).toEqual([...Array(4).fill('cursor 121,120'), 'cursor 122,120']);
    expect(r.text.some((l) => /^\[1\] repeat: NOT_FOUND the until condition did not hold after 4 round\(s\) \(optional: going on\)$/.test(l))).toBe(true);
  });

  it('refuses a repeat without until, over 20 rounds, or nested too deep', async () => {
    session = await fakeSession();
    const body = [{ op: 'pointer', action: 'move', x: 1, y: 1 }];
    await expect(seq(session, [{ op: 'repeat', steps: body }])).rejects.toThrow(/needs until/);
    await expect(seq(session, [{ op: 'repeat', steps: body, until: { present: { name: 'x' } }, max: 21 }])).rejects.toThrow(/max must be a whole number of rounds from 1 to 20/);
    const deep = (n: number): unknown => (n === 0 ? body[0] : { op: 'repeat', steps: [deep(n - 1)], until: { present: { name: 'x' } } });
    await expect(seq(session, [deep(5)])).rejects.toThrow(/nest at most 3 deep/);
    await expect(seq(session, [{ op: 'pointer', action: 'move', x: 1, y: 1, if: { visible: 'x' } }])).rejects.toThrow(/must be \{present/);
    expect(session.fake.compositor.actions).toEqual([]);
  });
});
