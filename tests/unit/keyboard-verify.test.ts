// keyboard type reads the focused field back until it shows the typed text: an app under load handles
// the keys (and even its focus change) after they were sent, so a first read finding no focused field,
// or the field still empty, is not yet an answer. The fake app shows the text only on its third read.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { A11yElement } from '@hypruse/core';
import { fakeSession, type FakeSession } from '../support/fake-session.js';

process.env.XDG_RUNTIME_DIR ??= mkdtempSync(join(tmpdir(), 'hypruse-kbd-'));

let session: FakeSession | null = null;
afterEach(async () => {
  await session?.dispose();
  session = null;
});

const field: A11yElement = { ref: { bus: ':1.1', path: '/entry' }, role: 'text', roleId: 61, name: 'First', states: ['enabled', 'focused', 'editable'], extents: { x: 120, y: 120, width: 200, height: 30 }, actions: [], clickable: true, depth: 3 };

/** The app's field as successive reads see it (the last one repeats); undefined: no focused field. */
function appShows(s: FakeSession, reads: Array<string | undefined>): { reads: number } {
  const seen = { reads: 0 };
  s.fake.a11y.focusedText = async () => {
    const t = reads[Math.min(seen.reads++, reads.length - 1)];
    return t === undefined ? null : { element: { ...field, password: false }, text: t };
  };
  return seen;
}

describe('keyboard type verification', () => {
  it('waits for a field the app focuses late and fills late: verified', async () => {
    session = await fakeSession();
    const seen = appShows(session, [undefined, undefined, undefined, '', 'hel', 'hello']);
    const r = await session.pipeline.call('keyboard', { action: 'type', text: 'hello', window: '11' });
    expect(r.text[0]).toBe('typed 5 characters into 11 (verified)');
    expect(r.data).toMatchObject({ verified: true });
    expect(seen.reads).toBeGreaterThanOrEqual(6);
    expect(session.fake.input.delivered).toEqual(['type hello']);
  });

  it('a field that keeps other text is reported with what it holds, after the wait', async () => {
    session = await fakeSession();
    appShows(session, ['', 'x', 'xy']);
    const r = await session.pipeline.call('keyboard', { action: 'type', text: 'x\tCANARY', window: '11' });
    expect(r.data).toMatchObject({ verified: false, field: 'xy' });
    expect(r.text[0]).toContain('WARNING: the field now holds "xy"');
  });

  it('no focused field at all: not verified, said so', async () => {
    session = await fakeSession();
    appShows(session, [undefined]);
    const r = await session.pipeline.call('keyboard', { action: 'type', text: 'abc', window: '11' });
    expect(r.text[0]).toBe('typed 3 characters into 11 (not verified: no focused text field is readable)');
    expect(r.data).toMatchObject({ verified: null });
  });

  it('a spreadsheet cell (it takes the text on commit) is not verified and never typed into twice', async () => {
    session = await fakeSession();
    session.fake.a11y.focusedText = async () => ({ element: { ...field, role: 'table cell', roleId: 56, name: 'B2', password: false }, text: '' });
    const r = await session.pipeline.call('keyboard', { action: 'type', text: 'Apples\t42\n', window: '11' });
    expect(r.text[0]).toMatch(/not verified: a cell takes the text when it is committed/);
    expect(r.data).toMatchObject({ verified: null });
    expect(session.fake.input.delivered).toEqual(['type Apples\t42\n']);
  });
});
