import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireDesktop } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';

const run = promisify(execFile);
const desk = await requireDesktop();

describe.skipIf(!desk)('clipboard tool on the real desktop (opt-in)', () => {
  let server: Server;
  beforeAll(async () => {
    server = await startServer(desk!.env, { HYPRUSE_CLIPBOARD: '1' });
  });
  afterAll(async () => server?.close());

  it('writes text that wl-paste reads back, and reads what wl-copy put there', async () => {
    const text = `hypruse clipboard ✓ ${Date.now()}`;
    const w = await server.call('clipboard', { action: 'write', text });
    expect(w.isError, w.text.join('\n')).toBe(false);
    const pasted = await run('wl-paste', ['--no-newline'], { env: { ...process.env, ...desk!.env }, encoding: 'utf8', timeout: 5000 });
    expect(pasted.stdout).toBe(text);
    const other = `from wl-copy ${Date.now()}`;
    await new Promise<void>((resolve, reject) => {
      // wl-copy forks a daemon that keeps inherited pipes open: give it none but stdin
      const child = spawn('wl-copy', [], { env: { ...process.env, ...desk!.env }, stdio: ['pipe', 'ignore', 'ignore'] });
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`wl-copy exited ${code}`))));
      child.stdin!.end(other);
    });
    const r = await server.call('clipboard', { action: 'read' });
    expect(r.isError, r.text.join('\n')).toBe(false);
    expect(r.data).toMatchObject({ kind: 'text', text: other });
  });

  it('is not offered in read-only mode even when enabled', async () => {
    const ro = await startServer(desk!.env, { HYPRUSE_CLIPBOARD: '1', HYPRUSE_READONLY: '1' });
    try {
      const names = (await ro.client.listTools()).tools.map((t) => t.name);
      expect(names).not.toContain('clipboard');
      const r = await ro.call('clipboard', { action: 'write', text: 'x' });
      expect(r.isError).toBe(true);
      expect(r.text[0]).toMatch(/^refused: /);
    } finally {
      await ro.close();
    }
  });
});
