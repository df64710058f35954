// What a host that hides MCP tools behind a tool search sees: the built server over stdio, listed
// through the SDK's own Client, marks the core tools `anthropic/alwaysLoad` (configurable), and lists
// its tools in the same order with the same bytes on every start.
import { afterEach, describe, expect, it } from 'vitest';
import { requireDesktop } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';

const desk = await requireDesktop();

const CORE = ['desktop', 'screenshot', 'ui', 'get_text', 'click_ui', 'act', 'keyboard', 'pointer', 'launch', 'wait_for'];
const ALL = ['desktop', 'screenshot', 'zoom', 'ui', 'marks', 'get_text', 'binds', 'wait_for', 'click_ui', 'act', 'menu', 'file_dialog', 'pointer', 'keyboard', 'wm', 'launch', 'use_bind', 'sequence', 'resume'];

describe.skipIf(!desk)('tools/list over stdio (the built server)', () => {
  const started: Server[] = [];
  afterEach(async () => {
    for (const s of started.splice(0)) await s.close();
  });
  const listing = async (extra: Record<string, string> = {}) => {
    const s = await startServer(desk!.env, extra);
    started.push(s);
    return (await s.client.listTools()).tools;
  };
  const loaded = (tools: Array<{ name: string; _meta?: Record<string, unknown> }>) =>
    tools.filter((t) => t._meta?.['anthropic/alwaysLoad'] === true).map((t) => t.name);

  it('marks the core tools alwaysLoad, in the same order with the same bytes on two starts', async () => {
    const first = await listing();
    const second = await listing();
    expect(first.map((t) => t.name)).toEqual(ALL);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    expect(loaded(first)).toEqual(ALL.filter((n) => CORE.includes(n)));
    // nothing else in _meta, and no other tool carries the key at all
    for (const t of first) expect(t._meta, t.name).toEqual(CORE.includes(t.name) ? { 'anthropic/alwaysLoad': true } : undefined);
  });

  it('HYPRUSE_ALWAYS_LOAD chooses the tools: a list, all, none', async () => {
    expect(loaded(await listing({ HYPRUSE_ALWAYS_LOAD: 'desktop,sequence' }))).toEqual(['desktop', 'sequence']);
    expect(loaded(await listing({ HYPRUSE_ALWAYS_LOAD: 'all' }))).toEqual(ALL);
    expect(loaded(await listing({ HYPRUSE_ALWAYS_LOAD: 'none' }))).toEqual([]);
  });
});
