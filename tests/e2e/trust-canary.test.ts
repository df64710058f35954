// Nothing the agent typed, copied or read reaches the journal unless
// journal.text is on. A canary string goes through every tool that can carry
// text, on the real sway desktop through the built MCP server: typed into a
// two-field zenity form so the read-back differs (the keyboard result then
// holds the field's text), read back by ui, written to and read from the
// clipboard, typed inside a sequence whose last step fails (the error's report
// carries the read-back). The journal file is then grepped: the canary is
// nowhere with journal.text off, and present with it on. Every effect is
// checked through an independent reader (wl-paste, zenity's own output).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { requireDesktop, waitFor } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';
import { alive, settled } from '../support/tools.js';

const run = promisify(execFile);
const desk = await requireDesktop();
const RUN = Math.random().toString(36).slice(2, 8);

describe.skipIf(!desk)('the journal keeps what the agent typed, copied and read out unless journal.text is on', () => {
  const servers: Server[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'hypruse-canary-'));
  afterAll(async () => {
    for (const s of servers) await s.close().catch(() => undefined);
  });

  async function throughEveryTool(text: boolean): Promise<{ journal: string; canary: string }> {
    const canary = `CANARY${text ? 'on' : 'off'}${RUN}`;
    const journal = join(dir, `journal-${text ? 'on' : 'off'}.ndjson`);
    const s = await startServer(desk!.env, { HYPRUSE_JOURNAL: journal, HYPRUSE_JOURNAL_TEXT: text ? '1' : '0', HYPRUSE_CLIPBOARD: '1' });
    servers.push(s);
    const ok = async (name: string, args: Record<string, unknown>) => {
      const r = await s.call(name, args);
      expect(r.isError, `${name}: ${r.text.join('\n')}`).toBe(false);
      return r;
    };

    const form = async (tag: string) => {
      const out = join(dir, `form-${text ? 'on' : 'off'}-${tag}.out`);
      const l = await ok('launch', { command: `zenity --forms --title="canary ${tag} ${RUN}" --add-entry=First --add-entry=Second > ${out}` });
      const addr = String(l.data.address);
      await settled(s, addr);
      return { addr, out, pid: Number(l.data.pid) };
    };
    const done = async (f: { addr: string; out: string; pid: number }, expected: string) => {
      await ok('click_ui', { name: 'OK', window: f.addr });
      await waitFor(() => !alive(f.pid), 10000, 'zenity to exit');
      expect(readFileSync(f.out, 'utf8').trim()).toBe(expected);
    };

    // "x", Tab, canary: the focused field ends up holding the canary alone, so the read-back differs from the typed text
    const a = await form('a');
    const typed = await ok('keyboard', { action: 'type', text: `x\t${canary}`, window: a.addr });
    expect(typed.data).toMatchObject({ verified: false, field: canary });
    expect(typed.text[0]).toContain(`WARNING: the field now holds "${canary}"`);
    const read = await ok('ui', { window: a.addr });
    expect((read.data.elements as Array<{ value?: string }>).some((e) => e.value === canary)).toBe(true);
    await done(a, `x|${canary}`);

    await ok('clipboard', { action: 'write', text: `${canary}clip` });
    const pasted = await run('wl-paste', ['--no-newline'], { env: { PATH: process.env.PATH, ...desk!.env }, encoding: 'utf8', timeout: 5000 });
    expect(pasted.stdout).toBe(`${canary}clip`);
    const clip = await ok('clipboard', { action: 'read' });
    expect(clip.data).toMatchObject({ kind: 'text', text: `${canary}clip` });

    // a sequence whose typing step reads back the canary, and whose last step fails: the error's report carries the read-back
    const b = await form('b');
    const seq = await s.call('sequence', {
      steps: [
        { op: 'keyboard', action: 'type', text: `y\t${canary}seq`, window: b.addr },
        { op: 'wm', action: 'focus_window', target: '999999' },
      ],
      then: 'none',
    });
    expect(seq.isError).toBe(true);
    expect(seq.text[0]).toMatch(/^not_found: sequence: stopped after 2\/2 steps, step 2 failed/);
    expect(seq.text[0]).toContain(`WARNING: the field now holds "${canary}seq"`);
    await done(b, `y|${canary}seq`);
    await s.close();
    await waitFor(() => existsSync(journal) && readFileSync(journal, 'utf8').includes('"tool":"click_ui"'), 5000, 'the journal to hold the last call');
    return { journal, canary };
  }

  it('journal.text off: the canary is nowhere in the journal, and the records still say what happened', async () => {
    const { journal, canary } = await throughEveryTool(false);
    const raw = readFileSync(journal, 'utf8');
    expect(raw).not.toContain(canary);
    expect(raw).not.toContain(canary.toLowerCase());
    const rs = raw.trim().split('\n').map((line) => JSON.parse(line) as Record<string, any>);
    const tools = rs.map((r) => `${r.tool}:${r.outcome}`);
    expect(tools).toEqual(expect.arrayContaining(['launch:ok', 'keyboard:ok', 'ui:ok', 'clipboard:ok', 'sequence:error', 'wm:error', 'click_ui:ok', 'pointer:ok']));
    const kb = rs.find((r) => r.tool === 'keyboard' && r.args.action === 'type' && r.parent === undefined)!;
    expect(kb.args.text).toMatchObject({ redacted: true, chars: canary.length + 2 });
    expect(kb.facts).toMatchObject({ action: 'type', verified: false, field: { redacted: true, chars: canary.length } });
    expect(kb.result).toBeUndefined();
    const read = rs.find((r) => r.tool === 'clipboard' && r.args.action === 'read')!;
    expect(read.facts).toMatchObject({ action: 'read', kind: 'text', text: { redacted: true, chars: canary.length + 4 } });
    const seq = rs.find((r) => r.tool === 'sequence')!;
    expect(seq).toMatchObject({ outcome: 'error', code: 'not_found.sequence' });
    expect(seq.error).toMatch(/^NotFoundError: sequence: stopped after 2\/2 steps/);
    expect(seq.args.steps[0].text).toMatchObject({ redacted: true });
  });

  it('journal.text on: the canary is recorded (typed text, clipboard, read-back)', async () => {
    const { journal, canary } = await throughEveryTool(true);
    const raw = readFileSync(journal, 'utf8');
    expect(raw).toContain(`x\\t${canary}`);
    expect(raw).toContain(`${canary}clip`);
    expect(raw).toContain(`WARNING: the field now holds \\"${canary}\\"`);
    expect(raw).toContain(`${canary}seq`);
  });
});
