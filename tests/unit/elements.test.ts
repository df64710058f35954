// Element ids, label attachment and element resolution (common/elements.ts) over the in-memory
// backends: what the fake app's tree holds is the independent truth, the fake input records clicks.
import { afterEach, describe, expect, it } from 'vitest';
import { closestNames, HypruseError, matchNames, newSession, type A11yElement, type ToolContext } from '@hypruse/core';
import { assignIds, attachLabels, elementIds, matchable, readElements, resolveElement } from '../../packages/tools/src/common/elements.js';
import type { UiItem } from '../../packages/tools/src/common/ui-read.js';
import { fakeSession, type FakeSession } from '../support/fake-session.js';

let session: FakeSession | null = null;
afterEach(async () => {
  await session?.dispose();
  session = null;
});

function el(path: string, role: string, name: string, x: number, y: number, w = 80, h = 30, extra: Partial<A11yElement> = {}): A11yElement {
  return { ref: { bus: ':1.1', path }, role, roleId: 0, name, states: ['enabled', 'showing', 'visible', 'sensitive'], extents: { x, y, width: w, height: h }, actions: [], clickable: true, actionable: true, depth: 3, ...extra };
}

function item(id: number, role: string, name: string, x: number, y: number, w: number, h: number, actionable = true): UiItem {
  return { id, role, name, x: x + w / 2, y: y + h / 2, clickable: actionable, ref: { bus: ':1', path: `/${id}/${role}/${name}/${x},${y}` }, extents: { x, y, width: w, height: h }, depth: 2, actionable, states: [] };
}

/** A ToolContext over a fake session's services, for calling the module directly. */
async function ctxOf(s: FakeSession): Promise<ToolContext> {
  // the pipeline builds contexts; the module only needs services, session, config, env and signal
  return { services: s.services, session: s.state, config: s.config, env: s.env, signal: new AbortController().signal, invoke: (t: string, a: Record<string, unknown>) => s.pipeline.call(t, a) } as unknown as ToolContext;
}

async function err(p: Promise<unknown>): Promise<HypruseError> {
  try {
    await p;
  } catch (e) {
    return e as HypruseError;
  }
  throw new Error('expected a failure');
}

describe('name matching', () => {
  const els = [{ name: 'Save as…' }, { name: 'Save' }, { name: 'Show _hidden files' }, { name: 'Files hidden: show' }, { name: 'Cancel' }];
  it('matches exact, then contained, then all words in any order; mnemonics and accents do not matter', () => {
    expect(matchNames(els, 'SAVE')).toEqual({ pool: [{ name: 'Save' }], kind: 'exact' });
    expect(matchNames(els, 'sav').kind).toBe('substring');
    expect(matchNames(els, 'show hidden files').pool.map((e) => e.name)).toEqual(['Show _hidden files']);
    expect(matchNames(els, 'hidden show').pool.map((e) => e.name)).toEqual(['Show _hidden files', 'Files hidden: show']);
    expect(matchNames(els, 'hidden show').kind).toBe('words');
    expect(matchNames([{ name: 'Paramètres avancés' }], 'parametres AVANCES').kind).toBe('exact');
    expect(matchNames(els, 'delete')).toEqual({ pool: [], kind: 'none' });
  });
  it('names the closest names on a miss, most similar first, at most five', () => {
    const many = ['Cancel', 'Cancelled', 'Clear', 'OK', 'Open file', 'Open folder', 'Options', 'Opacity', 'Zoom'].map((name) => ({ name }));
    expect(closestNames(many, 'Cancle').map((e) => e.name)).toEqual(['Cancel', 'Cancelled']);
    expect(closestNames(many, 'zom').map((e) => e.name)).toEqual(['Zoom']);
    expect(closestNames(many, 'open').length).toBeLessThanOrEqual(5);
    expect(closestNames(many, 'open').map((e) => e.name)).toEqual(['Open file', 'Open folder']);
    expect(closestNames(many, 'folder open').map((e) => e.name)[0]).toBe('Open folder');
    expect(closestNames(many, 'qqqq')).toEqual([]);
  });
});

describe('labels attached to the fields they label', () => {
  it('a nameless entry takes the label on its row to the left; a field under a label takes that label', () => {
    const items = [
      item(1, 'label', 'First', 10, 10, 60, 20, false),
      item(2, 'text', '', 80, 8, 200, 24),
      item(3, 'label', 'Second', 10, 40, 60, 20, false),
      item(4, 'text', '', 80, 38, 200, 24),
      item(5, 'label', 'Notes', 10, 80, 60, 18, false),
      item(6, 'text', '', 10, 100, 270, 24),
      item(7, 'push button', '', 10, 140, 60, 24),
      item(8, 'text', 'Named', 80, 140, 60, 24),
      // a frame's title far above a big text view names nothing
      item(9, 'label', 'Ridge', 10, 200, 60, 18, false),
      item(10, 'text', '', 10, 260, 270, 200),
    ];
    attachLabels(items);
    expect(items.map((i) => `${i.role} "${i.name}"`)).toEqual([
      'label "First"', 'text "First"', 'label "Second"', 'text "Second"', 'label "Notes"', 'text "Notes"', 'push button ""', 'text "Named"', 'label "Ridge"', 'text ""',
    ]);
  });
  it('a label in another container names nothing', () => {
    const box = item(20, 'panel', 'Box', 0, 0, 300, 100, false);
    const label = item(21, 'label', 'Name', 10, 10, 60, 20, false);
    const field = item(22, 'text', '', 80, 8, 200, 24);
    label.up = box;
    attachLabels([box, label, field]);
    expect(field.name).toBe('');
  });
});

describe('element ids', () => {
  it('keep one id per object across reads and per window, and give each the id of its listed parent', () => {
    const s = newSession();
    const a = [item(0, 'panel', 'P', 0, 0, 100, 100), item(0, 'push button', 'OK', 0, 0, 10, 10)];
    a[1].up = a[0];
    assignIds(s, 'w1', a);
    expect(a.map((i) => i.id)).toEqual([1, 2]);
    expect(a[1].parent).toBe(1);
    const b = [item(0, 'push button', 'OK', 0, 0, 10, 10), item(0, 'check box', 'New', 0, 0, 10, 10)];
    b[0].ref = a[1].ref;
    assignIds(s, 'w1', b);
    expect(b.map((i) => i.id)).toEqual([2, 3]);
    // the same object path in another window is another element
    const c = [item(0, 'push button', 'OK', 0, 0, 10, 10)];
    c[0].ref = a[1].ref;
    assignIds(s, 'w2', c);
    expect(c[0].id).toBe(4);
    expect(elementIds(s).ids['2']).toEqual({ w: 'w1', b: ':1', p: a[1].ref.path, r: 'push button', n: 'OK' });
  });
});

describe('resolveElement against a window read', () => {
  it('a window with neither position nor size (a compositor reached through the Wayland protocols alone) is read without points; with points it is refused', async () => {
    session = await fakeSession();
    const w = session.fake.compositor.desktop.windows.find((x) => x.address === '11')!;
    w.geometry = { x: 0, y: 0, width: 0, height: 0 };
    w.positionUnknown = 'the protocol reports no window position or size';
    const ctx = await ctxOf(session);
    const r = await readElements(ctx, '11', { points: false });
    expect(r.items.map((i) => i.name)).toContain('OK');
    expect(r.positionUnknown).toMatch(/no window position/);
    const e = await err(readElements(ctx, '11'));
    expect(e.code).toBe('unsupported.capability');
  });

  it('resolves by id, and refuses a stale id with the current candidates and their ids', async () => {
    session = await fakeSession();
    const ctx = await ctxOf(session);
    const r = await readElements(ctx, '11');
    const ok = r.items.find((i) => i.name === 'OK')!;
    expect(ok.id).toBeGreaterThan(0);
    const got = await resolveElement(ctx, { id: ok.id });
    expect(got).toMatchObject({ id: ok.id, role: 'push button', name: 'OK', x: 440, y: 265, by: 'id' });
    expect(got.window.address).toBe('11');
    // the app renames the button: the id is stale, and the candidates name the current elements
    session.fake.a11y.elements = session.fake.a11y.elements.map((e) => (e.ref.path === '/ok' ? { ...e, name: 'Apply' } : e));
    const e = await err(resolveElement(ctx, { id: ok.id }));
    expect(e.code).toBe('not_found.stale_id');
    expect(e.message).toMatch(new RegExp(`^stale id ${ok.id}: it was push button "OK"; it is push button "Apply" now\\. Current candidates: \\[\\d+\\] push button`));
    // an unknown id says where ids come from
    expect((await err(resolveElement(ctx, { id: 999 }))).message).toMatch(/^no element with id 999/);
    // an id of another window than the one named is a usage error
    expect((await err(resolveElement(ctx, { id: ok.id, window: '22' }))).code).toBe('usage.arguments');
  });

  it('a removed element is stale too; a role filter picks among a shared name; a miss lists up to five closest names with ids', async () => {
    session = await fakeSession();
    const fake = session.fake.a11y;
    fake.elements = [
      el('/c1', 'check box', 'Bold', 10, 10),
      el('/b1', 'push button', 'Bold', 100, 10),
      el('/c2', 'check box', 'Italic', 10, 50),
      el('/t', 'toggle button', 'Bold face', 100, 50),
    ];
    const ctx = await ctxOf(session);
    const amb = await err(resolveElement(ctx, { name: 'bold', window: '11' }));
    expect(amb.code).toBe('not_found.ambiguous');
    expect(amb.message).toMatch(/^'bold' is ambiguous \(2 candidates\).*\[\d+\] check box "Bold", \[\d+\] push button "Bold"$/);
    const box = await resolveElement(ctx, { name: 'bold', role: 'checkbox', window: '11' });
    expect(box).toMatchObject({ role: 'check box', name: 'Bold', by: 'name' });
    const byRoleIndex = await resolveElement(ctx, { role: 'check box', index: 1, window: '11' });
    expect(byRoleIndex.name).toBe('Italic');
    const miss = await err(resolveElement(ctx, { name: 'Itallic', window: '11' }));
    expect(miss.code).toBe('not_found.element');
    expect(miss.message).toMatch(/^no element named 'Itallic' in zenity; closest: \[\d+\] check box "Italic"/);
    const noRole = await err(resolveElement(ctx, { name: 'bold', role: 'slider', window: '11' }));
    expect(noRole.message).toMatch(/^no slider in zenity; roles here: check box, push button, toggle button/);
    // the check box goes away: its id is stale and the same-role elements are offered
    fake.elements = fake.elements.filter((e) => e.ref.path !== '/c1');
    const gone = await err(resolveElement(ctx, { id: box.id }));
    expect(gone.code).toBe('not_found.stale_id');
    expect(gone.message).toMatch(/it is gone from the window\. Current candidates: \[\d+\] check box "Italic"/);
    expect(await err(resolveElement(ctx, { id: box.id, name: 'x' }))).toMatchObject({ code: 'usage.arguments' });
    expect(await err(resolveElement(ctx, {}))).toMatchObject({ code: 'usage.arguments' });
  });

  it('click_ui by id clicks the element at its point, by a role-narrowed shared name in one call, and not a stale id', async () => {
    session = await fakeSession();
    session.fake.a11y.elements = [el('/c1', 'check box', 'Bold', 10, 10), el('/b1', 'push button', 'Bold', 100, 10)];
    const ui = await session.pipeline.call('ui', { window: '11', format: 'flat' });
    const rows = (ui.data as { elements: Array<{ id: number; role: string; name: string }> }).elements;
    expect(ui.text.slice(1)).toEqual([`[${rows[0].id}] check box "Bold" @150,125`, `[${rows[1].id}] push button "Bold" @240,125`]);
    await session.pipeline.call('click_ui', { id: rows[1].id });
    expect(session.fake.input.delivered.at(-1)).toBe('click left x1');
    expect(session.fake.compositor.actions.filter((a) => a.startsWith('cursor')).at(-1)).toBe('cursor 240,125');
    await session.pipeline.call('click_ui', { name: 'Bold', role: 'check box', window: '11' });
    expect(session.fake.compositor.actions.filter((a) => a.startsWith('cursor')).at(-1)).toBe('cursor 150,125');
    session.fake.a11y.elements = [el('/b1', 'push button', 'Bolder', 100, 10)];
    const before = session.fake.input.delivered.length;
    await expect(session.pipeline.call('click_ui', { id: rows[1].id })).rejects.toThrow(/^stale id/);
    expect(session.fake.input.delivered.length).toBe(before);
  });

  it('matchable leaves out the labels that name a field', () => {
    const items = [item(1, 'label', 'First', 10, 10, 60, 20, false), item(2, 'text', '', 80, 8, 200, 24)];
    attachLabels(items);
    items[1].labelledBy = 1;
    expect(matchable(items, false).map((i) => i.id)).toEqual([2]);
  });
});

describe('get_text', () => {
  it("reads one element's text in pages, and a window's texts in reading order (rows top to bottom, left to right)", async () => {
    session = await fakeSession();
    const fake = session.fake.a11y;
    const doc = 'line one\nline two\n' + 'x'.repeat(30);
    fake.elements = [
      el('/title', 'label', 'Title', 10, 10, 100, 20, { actionable: false, clickable: false }),
      el('/right', 'label', 'Right', 200, 12, 60, 16, { actionable: false, clickable: false }),
      el('/doc', 'text', '', 10, 60, 300, 100, { value: { text: doc.slice(0, 20) + '…' }, states: ['editable', 'multi-line', 'showing', 'visible', 'sensitive'] }),
      el('/pw', 'password text', 'Secret', 10, 170, 100, 20, { password: true }),
      el('/ok', 'push button', 'OK', 300, 170, 60, 20),
    ];
    fake.texts.set('/doc', doc);
    const ui = await session.pipeline.call('ui', { window: '11' });
    const id = (ui.data!.elements as Array<{ id: number; role: string }>).find((e) => e.role === 'text')!.id;
    const p1 = await session.pipeline.call('get_text', { id, limit: 10 });
    expect(p1.data!).toMatchObject({ text: doc.slice(0, 10), offset: 0, total: doc.length, next_offset: 10 });
    let got = '';
    let offset = 0;
    for (let n = 0; n < 10; n++) {
      const r = await session.pipeline.call('get_text', { id, limit: 16, offset });
      got += r.data!.text as string;
      if (r.data!.next_offset === undefined) break;
      offset = r.data!.next_offset as number;
    }
    expect(got).toBe(doc);
    const win = await session.pipeline.call('get_text', { window: '11' });
    expect(win.data!.text).toBe(`Title  Right\n${doc}\nOK`);
    expect(win.data!.passwords).toBe(1);
    await expect(session.pipeline.call('get_text', { name: 'Secret', window: '11' })).rejects.toThrow(/password field: its text is never read/);
    await expect(session.pipeline.call('get_text', { id, limit: 0 })).rejects.toThrow(/limit/);
  });
});

describe('wait_for on elements', () => {
  it('waits for an element to reach a state, says already when it holds, times out naming what it is, and waits for a quiet tree', async () => {
    session = await fakeSession();
    const fake = session.fake.a11y;
    fake.elements = [el('/c1', 'check box', 'Bold', 10, 10, 80, 30, { checked: false })];
    const ui = await session.pipeline.call('ui', { window: '11' });
    const id = (ui.data!.elements as Array<{ id: number }>)[0].id;
    setTimeout(() => (fake.elements = [el('/c1', 'check box', 'Bold', 10, 10, 80, 30, { checked: true })]), 300);
    const r = await session.pipeline.call('wait_for', { event: 'element', id, state: 'checked', timeout_s: 5 });
    expect(r.data).toMatchObject({ event: 'element', state: 'checked', id, name: 'Bold' });
    expect(r.data!.already).toBeUndefined();
    const again = await session.pipeline.call('wait_for', { event: 'element', name: 'bold', window: '11', state: 'checked' });
    expect(again.data!.already).toBe(true);
    setTimeout(() => (fake.elements = []), 300);
    const gone = await session.pipeline.call('wait_for', { event: 'element', name: 'Bold', window: '11', state: 'gone', timeout_s: 5 });
    expect(gone.data).toMatchObject({ event: 'element', state: 'gone' });
    fake.elements = [el('/c1', 'check box', 'Bold', 10, 10, 80, 30, { checked: true })];
    // a timeout is a result saying what it saw (the CLI exits 4), not an error
    const late = await session.pipeline.call('wait_for', { event: 'element', name: 'Bold', window: '11', state: 'unchecked', timeout_s: 1 });
    expect(late.text[0]).toMatch(/^timeout: the element did not become unchecked within 1s; it is check box "Bold" checked/);
    expect(late.data).toMatchObject({ event: 'element', timed_out: true, state: 'unchecked', now: 'check box "Bold" checked' });
    expect(late.exit).toBe(4);
    await expect(session.pipeline.call('wait_for', { event: 'element', window: '11' })).rejects.toThrow(/needs the element/);
    // idle: a tree that changes for a while, then stays
    let n = 0;
    const t = setInterval(() => (fake.elements = [el('/c1', 'check box', `Bold ${n++}`, 10, 10)]), 50);
    setTimeout(() => clearInterval(t), 600);
    const t0 = Date.now();
    const idle = await session.pipeline.call('wait_for', { event: 'idle', window: '11', quiet_ms: 300, timeout_s: 10 });
    expect(idle.data).toMatchObject({ event: 'idle', window: '11' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(850);
  });
});
