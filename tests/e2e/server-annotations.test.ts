// What a host sees: the built server over stdio, listed through the SDK's
// own Client, carries the whole annotation table (derived from each tool's
// effect) and a real output schema per tool; structured results of acting
// and observing tools validate against them (the Client checks every
// structuredContent against the listed outputSchema).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireDesktop } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';
import { ANNOTATIONS, hints } from '../support/annotations.js';

const desk = await requireDesktop();

describe.skipIf(!desk)('tool annotations and output schemas over stdio (the built server)', () => {
  let server: Server;
  beforeAll(async () => {
    server = await startServer(desk!.env, { HYPRUSE_CLIPBOARD: '1' });
  });
  afterAll(async () => server?.close());

  it('lists the whole annotation table, and an output schema for every tool', async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(ANNOTATIONS).filter((n) => n !== 'hypr').sort());
    const table = Object.fromEntries(tools.map((t) => [t.name, hints(t.annotations)]));
    expect(table).toEqual(Object.fromEntries(Object.entries(ANNOTATIONS).filter(([n]) => n !== 'hypr')));
    for (const t of tools) {
      expect(t.outputSchema?.type, t.name).toBe('object');
      expect(JSON.stringify(t.outputSchema), t.name).toMatch(/"additionalProperties":(false|\{"type":\[)/);
      expect(JSON.stringify(t.outputSchema), t.name).not.toContain('"additionalProperties":true');
    }
  });

  it('structured results validate against the listed schemas (desktop, pointer with then, wm)', async () => {
    const d = await server.call('desktop');
    expect(d.isError, d.text.join('\n')).toBe(false);
    expect(Array.isArray(d.data.windows)).toBe(true);
    const p = await server.call('pointer', { action: 'move', x: 100, y: 100, then: 'desktop' });
    expect(p.isError, p.text.join('\n')).toBe(false);
    expect(p.data).toMatchObject({ action: 'move', cursor: [100, 100] });
    expect((p.data.then as { windows: unknown[] }).windows).toBeDefined();
    const w = await server.call('wm', { action: 'workspace', workspace: '1' });
    expect(w.isError, w.text.join('\n')).toBe(false);
    expect(w.data).toEqual({ action: 'workspace', workspace: '1' });
  });
});
