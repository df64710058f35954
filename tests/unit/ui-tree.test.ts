// The compact tree `ui` prints (common/ui-tree.ts): hierarchy by indent, named containers as
// headers, nameless wrappers lifted, sibling leaves of one role on one line, the character cap
// and its after= continuation.
import { describe, expect, it } from 'vitest';
import { renderFlat, renderTree } from '../../packages/tools/src/common/ui-tree.js';
import type { UiItem } from '../../packages/tools/src/common/ui-read.js';

let next = 1;
function el(role: string, name: string, up?: UiItem, extra: Partial<UiItem> = {}): UiItem {
  const id = next++;
  return { id, role, name, x: id, y: id, clickable: true, actionable: true, ref: { bus: ':1', path: `/${id}` }, extents: { x: 0, y: 0, width: 1, height: 1 }, depth: 0, states: [], ...(up ? { up } : {}), ...extra };
}

function sample() {
  next = 1;
  const frame = el('frame', 'Settings', undefined, { actionable: false, clickable: false });
  const wrapper = el('panel', '', frame, { actionable: false, clickable: false });
  const tabs = el('page tab list', '', wrapper, { actionable: false });
  const t1 = el('page tab', 'General', tabs, { checked: undefined });
  const t2 = el('page tab', 'Advanced', tabs);
  const group = el('panel', 'Options', wrapper, { actionable: false, clickable: false });
  const c1 = el('check box', 'Bold', group, { checked: true });
  const c2 = el('check box', 'Italic', group, { checked: false });
  const c3 = el('check box', 'Italic', group, { checked: false, clickable: false });
  const field = el('text', 'Name', group, { value: 'Ada', states: ['editable'] });
  const pw = el('password text', 'Secret', group, { password: true });
  const ok = el('push button', 'OK', frame, { focused: true });
  return { frame, wrapper, tabs, t1, t2, group, c1, c2, c3, field, pw, ok };
}

describe('renderTree', () => {
  it('indents by listed level, heads with named containers, lifts nameless wrappers and groups sibling leaves of one role', () => {
    const s = sample();
    const listed = [s.t1, s.t2, s.c1, s.c2, s.c3, s.field, s.pw, s.ok];
    const t = renderTree(listed);
    expect(t.lines).toEqual([
      '[1] frame "Settings":',
      ' tab ×2: [4] "General" [5] "Advanced"',
      ' [6] panel "Options":',
      '  checkbox ×3: [7] "Bold" checked [8] "Italic" [9] "Italic" disabled',
      '  [10] entry "Name" = "Ada"',
      '  [11] password "Secret"',
      ' [12] button "OK" focused',
    ]);
    expect(t).toMatchObject({ shown: 8, left: 0, next: 0 });
  });

  it('a shared name is said once for its group; long values are cut', () => {
    next = 1;
    const p = el('panel', '', undefined, { actionable: false });
    const a = el('radio button', 'radiobutton', p, { checked: true });
    const b = el('radio button', 'radiobutton', p, { checked: false });
    expect(renderTree([a, b]).lines).toEqual(['radio "radiobutton" ×2: [2] checked [3]']);
    // a long or multi-line value shows its start; a multi-line text stays text
    const view = el('text', '', p, { value: 'first line\nsecond', states: ['editable', 'multi-line'] });
    const long = el('text', '', undefined, { value: 'x'.repeat(50), states: ['editable'] });
    expect(renderTree([view, long]).lines).toEqual(['[4] text = "first line"…', `[5] entry = "${'x'.repeat(40)}"…`]);
  });

  it('caps the text at max_chars and continues after the last id shown, with the headers above it', () => {
    const s = sample();
    const listed = [s.t1, s.t2, s.c1, s.c2, s.c3, s.field, s.pw, s.ok];
    const full = renderTree(listed).lines;
    const first = renderTree(listed, { maxChars: full[0].length + full[1].length + full[2].length + 3 });
    expect(first.lines).toEqual([...full.slice(0, 3), '… 6 more element(s): call ui again with after=6']);
    expect(first).toMatchObject({ shown: 2, left: 6, next: 6 });
    const rest = renderTree(listed, { after: first.next });
    // the continuation repeats the header its first line sits under
    expect(rest.lines).toEqual([full[0], full[2], ...full.slice(3)]);
    expect(rest.left).toBe(0);
    const again = renderTree(listed, { after: 10, maxChars: 10 });
    // the first line is given even when it alone passes the cap
    expect(again.lines.slice(0, 3)).toEqual([full[0], full[2], full[5]]);
    expect(again.next).toBe(11);
  });

  it('under a cap, a long run of one role is cut into lines that fit', () => {
    next = 1;
    const p = el('panel', '', undefined, { actionable: false });
    const keys = Array.from({ length: 12 }, (_, k) => el('push button', `key ${k}`, p));
    const t = renderTree(keys, { maxChars: 60 });
    expect(t.lines.every((l) => l.length <= 60 || l.startsWith('…')), t.lines.join('\n')).toBe(true);
    expect(t.lines[0]).toMatch(/^button ×\d: \[2\] "key 0"/);
    const all: number[] = [];
    let after = 0;
    for (let n = 0; n < 20; n++) {
      const page = renderTree(keys, { maxChars: 60, after });
      all.push(...page.lines.join(' ').match(/\[(\d+)\]/g)!.map((m) => Number(m.slice(1, -1))));
      if (!page.next) break;
      after = page.next;
    }
    expect(all).toEqual(keys.map((k) => k.id));
  });

  it('flat lines follow the same cap', () => {
    const s = sample();
    const f = renderFlat([s.c1, s.c2, s.ok], (i) => `${i.role} ${i.name}`, { maxChars: 32 });
    expect(f.lines).toEqual(['check box Bold', 'check box Italic', '… 1 more element(s): call ui again with after=8']);
    expect(renderFlat([s.c1, s.c2, s.ok], (i) => i.name, { after: 8 }).lines).toEqual(['OK']);
  });
});
