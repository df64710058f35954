// Background mode in a browser window the compositor does not draw, and in an app whose fields take
// no EditableText, decided by what the accessibility read says (A11yReadResult.frozen,
// noEditableText): the refusal comes before anything is sent to the app, and a link, whose effect is
// a new page, is still followed.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { A11yElement } from '@hypruse/core';
import { fakeSession, type FakeSession } from '../support/fake-session.js';

process.env.XDG_RUNTIME_DIR ??= mkdtempSync(join(tmpdir(), 'hypruse-bgweb-'));

let session: FakeSession | null = null;
afterEach(async () => {
  await session?.dispose();
  session = null;
});

const entry: A11yElement = { ref: { bus: ':1.1', path: '/name' }, role: 'entry', roleId: 79, name: 'Full name', states: ['enabled', 'sensitive', 'editable'], extents: { x: 20, y: 60, width: 200, height: 30 }, actions: ['activate'], clickable: true, depth: 4, value: { text: '' } };
const link: A11yElement = { ref: { bus: ':1.1', path: '/link' }, role: 'link', roleId: 88, name: 'Next page', states: ['enabled', 'sensitive'], extents: { x: 20, y: 20, width: 80, height: 20 }, actions: ['jump'], clickable: true, depth: 4 };

/** A session in background mode whose reads carry `extra`; the AT-SPI calls sent are recorded. */
async function web(extra: Record<string, unknown>): Promise<{ s: FakeSession; sent: string[] }> {
  const s = await fakeSession({ background: true });
  const sent: string[] = [];
  const a11y = s.fake.a11y;
  a11y.elements = [...a11y.elements, entry, link];
  a11y.read = async () => ({ status: 'ok' as const, app: 'Firefox', windowName: 'Order form', elements: a11y.elements, truncated: false, nodes: 20, ...extra });
  Object.assign(a11y, {
    doAction: async (ref: A11yElement['ref']) => {
      sent.push(`action ${ref.path}`);
      return true;
    },
    setText: async (ref: A11yElement['ref']) => {
      sent.push(`setText ${ref.path}`);
      return true;
    },
  });
  return { s, sent };
}

const code = async (p: Promise<unknown>) => ((await p.then(() => null, (e: unknown) => e)) as { code?: string } | null)?.code;

describe('background mode in browser windows', () => {
  it('a tree its app does not update while undrawn: click_ui and act are refused before sending; a link is followed', async () => {
    const { s, sent } = await web({ frozen: 'the app does not update its tree while its window is not drawn' });
    session = s;
    expect(await code(s.pipeline.call('click_ui', { name: 'OK', window: '11' }))).toBe('refused.background');
    expect(await code(s.pipeline.call('act', { action: 'set_text', name: 'Full name', text: 'Ada', window: '11' }))).toBe('refused.background');
    expect(sent).toEqual([]);
    await s.pipeline.call('click_ui', { name: 'Next page', role: 'link', window: '11' });
    expect(sent).toEqual(['action /link']);
  });

  it('fields that take no EditableText: act set_text and keyboard type are refused without the call', async () => {
    const { s, sent } = await web({ noEditableText: "the app's bridge ignores EditableText" });
    session = s;
    expect(await code(s.pipeline.call('act', { action: 'set_text', name: 'Full name', text: 'Ada', window: '11' }))).toBe('refused.background');
    expect(await code(s.pipeline.call('keyboard', { action: 'type', text: 'Ada', name: 'Full name', window: '11' }))).toBe('refused.background');
    expect(sent).toEqual([]);
  });
});
