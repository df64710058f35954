// Concurrency over the built server (stdio): observations run concurrently
// (while one observation is still pending, others complete: shown by order of
// completion, not by timing), input is serialized (parallel `keyboard type`
// calls of distinct strings into one field land intact, not interleaved; read
// back from zenity's own output).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchFixture, requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import { startServer, type Server, type TextBlock } from '../support/server.js';

const desk = await requireDesktop();

describe.skipIf(!desk)('parallel MCP calls', () => {
  let srv: Server;
  beforeAll(async () => {
    srv = await startServer(desk!.env);
  });
  afterAll(async () => {
    await srv?.close();
  });

  it('observations do not wait for each other: while a wait_for is pending, parallel desktop, ui and screenshot calls all complete', async () => {
    const app = await launchFixture('zenity-entry', { workspace: '8' });
    const addr = String((await swayNodes()).find((n) => n.pid === app.pid)!.id);
    const ac = new AbortController();
    let waitSettled = false;
    const pending = srv.client
      .callTool({ name: 'wait_for', arguments: { event: 'window_open', match: 'never-opens-concurrency', timeout_s: 600 } }, undefined, { signal: ac.signal, timeout: 700000 })
      .then(
        (r) => ({ ok: true as const, r }),
        (e: unknown) => ({ ok: false as const, e }),
      )
      .finally(() => {
        waitSettled = true;
      });
    try {
      const calls = [
        ...Array.from({ length: 20 }, () => srv.call('desktop')),
        ...Array.from({ length: 4 }, () => srv.call('ui', { window: addr })),
        ...Array.from({ length: 6 }, () => srv.call('screenshot', { region: '0,0,640x400' })),
      ];
      const results = await Promise.all(calls);
      for (const r of results) expect(r.isError, r.text.join('\n')).toBe(false);
      // Had observations been serialized, none of these could finish before the 600 s wait.
      expect(waitSettled).toBe(false);
    } finally {
      ac.abort();
      const end = await pending;
      // The wait ended by the cancellation, not by an answer of its own.
      if (end.ok) expect((end.r.content as TextBlock[]).map((c) => c.text).join('\n')).toMatch(/cancel/i);
    }
    // The server still answers after the cancelled wait.
    const after = await srv.call('desktop');
    expect(after.isError, after.text.join('\n')).toBe(false);
  }, 120000);

  it('parallel keyboard type calls into one field are serialized: every string intact, none interleaved', async () => {
    const app = await launchFixture('zenity-entry', { workspace: '9' });
    const addr = String((await swayNodes()).find((n) => n.pid === app.pid)!.id);
    const words = ['AAAAAAAAAA', 'BBBBBBBBBB', 'CCCCCCCCCC', 'DDDDDDDDDD', 'EEEEEEEEEE'];
    const results = await Promise.all(words.map((w) => srv.call('keyboard', { action: 'type', text: w, window: addr })));
    for (const r of results) expect(r.isError, r.text.join('\n')).toBe(false);
    const enter = await srv.call('keyboard', { action: 'key', keys: 'Return', window: addr });
    expect(enter.isError, enter.text.join('\n')).toBe(false);
    // zenity prints the field's text on OK: read independently of our AT-SPI reader
    const out = await waitFor(() => readFileSync(app.stdout, 'utf8').trim(), 5000, 'zenity to print the field');
    expect(out).toHaveLength(words.join('').length);
    expect(out).toMatch(new RegExp(`^(${words.join('|')}){${words.length}}$`));
    for (const w of words) expect(out.split(w).length - 1, `${w} in ${out}`).toBe(1);
  }, 60000);
});
