// A web window read while its engine is still building the page: Chromium 156 (a window that
// opened while accessibility was already on, read as it appeared) gave its document ROLE_INVALID,
// holding the page's controls, for a moment. Such a read is made again (atspi-accessibility.ts);
// this is the judgement of when.
import { describe, expect, it } from 'vitest';
import { unbuiltDocument } from '../../packages/a11y/src/atspi-accessibility.js';
import { Role } from '../../packages/a11y/src/atspi-constants.js';
import type { RawNode } from '../../packages/a11y/src/tree-reader.js';

let paths = 0;
function node(roleId: number, children: RawNode[] = []): RawNode {
  return { ref: { bus: ':1.1', path: `/n${++paths}` }, depth: 0, name: '', roleId, roleName: '', states: [], interfaces: [], childRefs: [], children, extents: null, actions: [] };
}

describe('a web document still being built', () => {
  it('a frame whose document reads ROLE_INVALID while it holds the page is unbuilt', () => {
    const page = node(Role.INVALID, [node(Role.PUSH_BUTTON), node(Role.COMBO_BOX)]);
    expect(unbuiltDocument(node(Role.FRAME, [page]))).toBe(true);
    // one level down (Chromium's frame > panel > document)
    expect(unbuiltDocument(node(Role.FRAME, [node(Role.PANEL, [page])]))).toBe(true);
  });

  it('a built document, an empty object with no role, or one deep in the page is not', () => {
    expect(unbuiltDocument(node(Role.FRAME, [node(Role.DOCUMENT_WEB, [node(Role.PUSH_BUTTON)])]))).toBe(false);
    expect(unbuiltDocument(node(Role.FRAME, [node(Role.INVALID)]))).toBe(false);
    const deep = node(Role.FRAME, [node(Role.PANEL, [node(Role.PANEL, [node(Role.PANEL, [node(Role.INVALID, [node(Role.PUSH_BUTTON)])])])])]);
    expect(unbuiltDocument(deep)).toBe(false);
  });
});
