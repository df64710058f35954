// Background mode (HYPRUSE_BACKGROUND=1) on the test desktop: the person's
// window keeps the keyboard focus while the agent fills, checks, selects and
// submits a GTK 3 form in another window through accessibility alone; what
// needs the seat is refused with refused.background before anything is sent.
// Judged from outside hypruse: sway's window events (no focus change), the
// form's own output, the person's field read over AT-SPI.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killFixture, launchFixture, requireDesktop, swaymsg, swayNodes, waitFor, type LaunchedFixture } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';

const desk = await requireDesktop();

interface SwayEvent {
  change: string;
  container?: { id: number; pid?: number; name?: string };
}

describe.skipIf(!desk)('background mode beside a person at the seat', () => {
  let server: Server;
  let form: LaunchedFixture;
  let person: LaunchedFixture;
  let personCon = 0;
  let events: SwayEvent[] = [];
  let watcher: ChildProcess | null = null;

  beforeAll(async () => {
    form = await launchFixture('gtk3-form');
    person = await launchFixture('zenity-entry');
    personCon = (await swayNodes()).find((n) => n.pid === person.pid)!.id;
    await swaymsg(`[con_id=${personCon}]`, 'focus');
    await waitFor(async () => (await swayNodes()).find((n) => n.focused)?.id === personCon, 3000, "the person's window to hold the focus");
    // every window event from here on (focus changes above all), as sway reports them
    watcher = spawn('swaymsg', ['-s', desk!.env.SWAYSOCK, '-r', '-m', '-t', 'subscribe', '["window","workspace"]'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let buf = '';
    watcher.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      // swaymsg -r -m prints one JSON object per line, one per event
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line) events.push(JSON.parse(line) as SwayEvent);
      }
    });
    await new Promise((r) => setTimeout(r, 300)); // the subscription is in place
    events = [];
    server = await startServer(desk!.env, { HYPRUSE_BACKGROUND: '1', HYPRUSE_TAKEOVER_MS: '1500' });
  });

  afterAll(async () => {
    watcher?.kill('SIGTERM');
    await server?.close();
    for (const f of [form, person]) if (f) await killFixture(f.pid).catch(() => undefined);
  });

  const formAddr = async () => String((await swayNodes()).find((n) => n.pid === form.pid)!.id);

  it('fills, checks, selects and submits the form through AT-SPI; the focus never leaves the person\'s window', async () => {
    const w = await formAddr();
    const steps: Array<[string, Record<string, unknown>]> = [
      ['act', { action: 'set_text', name: 'Name', text: 'Ada Lovelace', window: w }],
      ['act', { action: 'check', name: 'Subscribe', window: w }],
      ['act', { action: 'select', name: 'Color', option: 'Blue', window: w }],
      ['click_ui', { name: 'OK', role: 'push button', window: w }],
    ];
    for (const [tool, args] of steps) {
      const r = await server.call(tool, args);
      expect(r.isError, `${tool} ${JSON.stringify(args)}: ${r.text.join('\n')}`).toBe(false);
    }
    await waitFor(() => readFileSync(form.stdout, 'utf8').includes('\nok ') || readFileSync(form.stdout, 'utf8').startsWith('ok '), 5000, 'the form to print its state on OK');
    const ok = readFileSync(form.stdout, 'utf8').split('\n').find((l) => l.startsWith('ok '))!;
    expect(ok).toMatch(/^ok name=Ada Lovelace subscribe=True details=False color=Blue /);
    const nodes = await swayNodes();
    expect(nodes.find((n) => n.focused)?.id).toBe(personCon);
    expect(events.filter((e) => e.change === 'focus').map((e) => e.container?.name)).toEqual([]);
  });

  it('refuses what needs the seat before anything is sent, naming the element-level way', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['pointer', { action: 'click', x: 100, y: 100 }, /click_ui clicks a control through its AT-SPI action/],
      ['keyboard', { action: 'type', text: 'x' }, /act set_text/],
      ['keyboard', { action: 'key', keys: 'ctrl+s' }, /act set_text/],
      ['launch', { command: 'zenity --info --text=never' }, /private desk/],
      ['wm', { action: 'workspace', workspace: '3' }, /the person brings windows into view/],
      ['act', { action: 'focus', name: 'Name', window: String(personCon) }, /act set_text fills a field without focusing it/],
      ['click_ui', { name: 'OK', window: String(personCon), button: 'right' }, /needs the pointer/],
    ];
    const before = (await swayNodes()).filter((n) => n.type === 'con').length;
    for (const [tool, args, hint] of cases) {
      const r = await server.call(tool, args);
      expect(r.isError, `${tool} ${JSON.stringify(args)} was not refused: ${r.text.join('\n')}`).toBe(true);
      const err = (r.raw as { _meta?: Record<string, { code: string }> })._meta?.['hypruse/error'];
      expect(err?.code, `${tool}: ${r.text.join('\n')}`).toBe('refused.background');
      expect(r.text.join('\n')).toMatch(hint);
    }
    expect((await swayNodes()).filter((n) => n.type === 'con').length).toBe(before);
    expect((await swayNodes()).find((n) => n.focused)?.id).toBe(personCon);
    expect(events.filter((e) => e.change === 'focus' || e.change === 'new')).toEqual([]);
    // the person's field is untouched
    const text = await server.call('get_text', { window: String(personCon) });
    expect(text.isError, text.text.join('\n')).toBe(false);
    expect(text.text.join('\n')).not.toContain('x');
  });

  it('tool descriptions and the server instructions say what works in background mode', async () => {
    const { tools } = await server.client.listTools();
    const d = (n: string) => tools.find((t) => t.name === n)!.description!;
    expect(d('click_ui')).toContain('Background mode (on): works through accessibility alone');
    expect(d('pointer')).toContain('Background mode (on): refused');
    expect(d('ui')).toContain('Works in background mode');
    expect(server.client.getInstructions()).toContain('BACKGROUND MODE');
  });

  it('the focus watcher itself sees a focus change (the checks above can fail)', async () => {
    // a window the person opens takes the focus: the watcher must report it
    const other = await launchFixture('zenity-question');
    try {
      await waitFor(() => events.some((e) => e.change === 'focus' && e.container?.pid === other.pid), 3000, 'the watcher to report the new window taking the focus');
    } finally {
      await killFixture(other.pid);
    }
  });
});
