// Background mode (HYPRUSE_BACKGROUND=1) on the test desktop: the person's
// window keeps the keyboard focus while the agent fills, checks, selects and
// submits a GTK 3 form in another window through accessibility alone; what
// needs the seat is refused with refused.background before anything is sent.
// Judged from outside hypruse: sway's window events (no focus change), the
// form's own output, the person's field read over AT-SPI.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killFixture, launchFixture, requireDesktop, swaymsg, swayNodes, waitFor, type LaunchedFixture } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';
import { atspi } from '../support/atspi.js';
import { watchSway, type SwayWatcher } from '../support/sway-events.js';
import { WaylandInput } from '@hypruse/wayland';
import { parseCombo } from '@hypruse/core';

const desk = await requireDesktop();

describe.skipIf(!desk)('background mode beside a person at the seat', () => {
  let server: Server;
  let form: LaunchedFixture;
  let form2: LaunchedFixture;
  let pad: LaunchedFixture;
  const dir = mkdtempSync(join(tmpdir(), 'hypruse-bg-'));
  const note = join(dir, 'note.txt');
  let person: LaunchedFixture;
  let probe: LaunchedFixture;
  let personInput: WaylandInput;
  let personCon = 0;
  const typed = 'the quick brown fox jumps over the lazy dog 0123456789';
  let watcher: SwayWatcher | null = null;
  let events: SwayWatcher['events'] = [];

  beforeAll(async () => {
    form = await launchFixture('gtk3-form');
    form2 = await launchFixture('gtk3-form');
    chmodSync(dir, 0o777);
    writeFileSync(note, 'first line\n', { mode: 0o666 });
    chmodSync(note, 0o666);
    pad = await launchFixture('mousepad', { args: [note] });
    // mousepad builds its menu bar a moment after its window maps (and may replace its first window)
    await waitFor(async () => (await atspi(pad.pid)).some((n) => n.role === 'menu' && n.name === 'File'), 30000, "mousepad's File menu");
    probe = await launchFixture('pointer-probe', { args: ['--motion'] });
    person = await launchFixture('zenity-entry');
    personCon = (await swayNodes()).find((n) => n.pid === person.pid)!.id;
    // the person: one virtual keyboard and pointer of their own for the whole file; the pointer parks on the probe
    personInput = new WaylandInput({ env: { ...process.env, ...desk!.env }, keyboard: 'wire' });
    const p = (await swayNodes()).find((n) => n.pid === probe.pid)!.rect;
    await personInput.moveAbsolute({ x: p.x + Math.floor(p.width / 2), y: p.y + Math.floor(p.height / 2) }, { x: 0, y: 0, width: 1280, height: 800 });
    await personInput.key(parseCombo('shift')); // the keyboard exists (its first keymap applied) before the person types; a lone Shift types nothing
    await swaymsg(`[con_id=${personCon}]`, 'focus');
    await waitFor(async () => (await swayNodes()).find((n) => n.focused)?.id === personCon, 3000, "the person's window to hold the focus");
    // every window event from here on (focus changes above all), as sway reports them
    watcher = await watchSway(desk!.env.SWAYSOCK, ['window', 'workspace']);
    events = watcher.events;
    server = await startServer(desk!.env, { HYPRUSE_BACKGROUND: '1', HYPRUSE_TAKEOVER_MS: '1500' });
  });

  afterAll(async () => {
    watcher?.stop();
    await server?.close();
    await personInput?.dispose();
    for (const f of [form, form2, pad, probe, person]) if (f) await killFixture(f.pid).catch(() => undefined);
  });

  const formAddr = async () => String((await swayNodes()).find((n) => n.pid === form.pid)!.id);

  it('the person types steadily into their focused window with their pointer parked on a probe while the agent fills, checks, selects and submits the form through AT-SPI', async () => {
    const w = await formAddr();
    const motionBefore = readFileSync(probe.stdout, 'utf8').split('\n').filter((l) => l.startsWith('motion')).length;
    const personTypes = (async () => {
      for (const ch of typed) {
        await personInput.type(ch);
        await new Promise((r) => setTimeout(r, 40));
      }
    })();
    const steps: Array<[string, Record<string, unknown>]> = [
      ['act', { action: 'set_text', name: 'Name', text: 'Ada Lovelace', window: w }],
      ['act', { action: 'check', name: 'Subscribe', window: w }],
      ['act', { action: 'select', name: 'Color', option: 'Blue', window: w }],
      ['click_ui', { name: 'OK', role: 'push button', window: w }],
    ];
    const agentWorks = (async () => {
      for (const [tool, args] of steps) {
        const r = await server.call(tool, args);
        expect(r.isError, `${tool} ${JSON.stringify(args)}: ${r.text.join('\n')}`).toBe(false);
      }
    })();
    await Promise.all([personTypes, agentWorks]);
    // the agent's effect, in the form's own output
    await waitFor(() => readFileSync(form.stdout, 'utf8').split('\n').some((l) => l.startsWith('ok ')), 5000, 'the form to print its state on OK');
    const ok = readFileSync(form.stdout, 'utf8').split('\n').find((l) => l.startsWith('ok '))!;
    expect(ok).toMatch(/^ok name=Ada Lovelace subscribe=True details=False color=Blue /);
    // every character the person typed, in order, in the person's field (libatspi reads it)
    await waitFor(async () => (await atspi(person.pid)).find((n) => n.role === 'text')?.text === typed, 5000, "the person's text in their field");
    // the person's window kept the focus throughout; the probe saw no motion
    expect((await swayNodes()).find((n) => n.focused)?.id).toBe(personCon);
    expect(events.filter((e) => e.change === 'focus').map((e) => e.container?.name)).toEqual([]);
    expect(readFileSync(probe.stdout, 'utf8').split('\n').filter((l) => l.startsWith('motion')).length).toBe(motionBefore);
  });

  it('keyboard type with a field name inserts at its caret and replaces its text through EditableText while the person types, and key combinations are refused', async () => {
    const w = String((await swayNodes()).find((n) => n.pid === form2.pid)!.id);
    const personText = async () => (await atspi(person.pid)).find((n) => n.role === 'text')?.text ?? '';
    const start = await personText();
    const more = ' and again';
    const personTypes = (async () => {
      for (const ch of more) {
        await personInput.type(ch);
        await new Promise((r) => setTimeout(r, 40));
      }
    })();
    const entry = async () => (await atspi(form2.pid)).find((n) => n.role === 'text')?.text;
    const agentWorks = (async () => {
      const calls: Array<[Record<string, unknown>, string]> = [
        [{ action: 'type', name: 'Name', window: w, text: 'Grace' }, 'Grace'],
        [{ action: 'type', name: 'Name', window: w, text: ' Hopper ✓' }, 'Grace Hopper ✓'],
        [{ action: 'type', name: 'Name', window: w, text: 'Ada', replace: true }, 'Ada'],
      ];
      for (const [args, holds] of calls) {
        const r = await server.call('keyboard', args);
        expect(r.isError, `keyboard ${JSON.stringify(args)}: ${r.text.join('\n')}`).toBe(false);
        // libatspi reads the form's field: exactly the text each call should leave there
        await waitFor(async () => (await entry()) === holds, 3000, `the form's field to hold ${holds}`);
      }
      const key = await server.call('keyboard', { action: 'key', keys: 'ctrl+a', window: w });
      expect((key.raw as { _meta?: Record<string, { code: string }> })._meta?.['hypruse/error']?.code, key.text.join('\n')).toBe('refused.background');
      expect(key.text.join('\n')).toMatch(/click_ui.*menu.*keyboard type and name/);
    })();
    await Promise.all([personTypes, agentWorks]);
    expect(await entry()).toBe('Ada');
    await waitFor(async () => (await personText()) === start + more, 5000, "the person's text in their field");
    expect((await swayNodes()).find((n) => n.focused)?.id).toBe(personCon);
    expect(events.filter((e) => e.change === 'focus').map((e) => e.container?.name)).toEqual([]);
  });

  it('menu runs items through their AT-SPI actions without opening a menu, moving the pointer or the focus: Edit > Duplicate Line and File > Save judged on disk; an item that opens a dialog is refused', async () => {
    const w = String((await swayNodes()).find((n) => n.pid === pad.pid)!.id);
    const conBefore = (await swayNodes()).filter((n) => n.type === 'con').length;
    const motionBefore = readFileSync(probe.stdout, 'utf8').split('\n').filter((l) => l.startsWith('motion')).length;
    const personText = async () => (await atspi(person.pid)).find((n) => n.role === 'text')?.text ?? '';
    const start = await personText();
    const more = ' menus too';
    const personTypes = (async () => {
      for (const ch of more) {
        await personInput.type(ch);
        await new Promise((r) => setTimeout(r, 40));
      }
    })();
    const agentWorks = (async () => {
      const typed = await server.call('keyboard', { action: 'type', role: 'text', window: w, text: 'agent line ' });
      expect(typed.isError, typed.text.join('\n')).toBe(false);
      const dup = await server.call('menu', { path: 'Edit > Duplicate Line / Selection', window: w });
      expect(dup.isError, dup.text.join('\n')).toBe(false);
      const save = await server.call('menu', { path: 'File > Save', window: w });
      expect(save.isError, save.text.join('\n')).toBe(false);
      const saveAs = await server.call('menu', { path: 'File > Save As…', window: w });
      expect((saveAs.raw as { _meta?: Record<string, { code: string }> })._meta?.['hypruse/error']?.code, saveAs.text.join('\n')).toBe('refused.background');
      expect(saveAs.text.join('\n')).toMatch(/opens a dialog/);
    })();
    await Promise.all([personTypes, agentWorks]);
    // File > Save wrote the agent's text and the duplicated line to disk; no window opened
    await waitFor(() => readFileSync(note, 'utf8').includes('agent line '), 5000, 'File > Save to write the file');
    expect(readFileSync(note, 'utf8').split('first line').length - 1, readFileSync(note, 'utf8')).toBe(2);
    expect((await swayNodes()).filter((n) => n.type === 'con').length).toBe(conBefore);
    await waitFor(async () => (await personText()) === start + more, 5000, "the person's text in their field");
    expect((await swayNodes()).find((n) => n.focused)?.id).toBe(personCon);
    expect(events.filter((e) => e.change === 'focus' || e.change === 'new').map((e) => e.container?.name)).toEqual([]);
    expect(readFileSync(probe.stdout, 'utf8').split('\n').filter((l) => l.startsWith('motion')).length).toBe(motionBefore);
  });

  it("launch opens the window out of the person's sight and without the focus: on sway 1.8+ on a headless output of the agent's own (gone when the server stops), on sway 1.7 on a hidden workspace of the person's outputs (1.7 cannot remove an output)", async () => {
    const version = await swaymsg<{ minor: number; major: number }>('-t', 'get_version');
    const ownOutput = version.major > 1 || version.minor >= 8;
    const outputsBefore = (await swaymsg<Array<{ name: string; active: boolean }>>('-t', 'get_outputs')).filter((o) => o.active).map((o) => o.name);
    const activeOutputs = async () => (await swaymsg<Array<{ name: string; active: boolean }>>('-t', 'get_outputs')).filter((o) => o.active).map((o) => o.name).sort();
    const visible = async () => (await swaymsg<Array<{ name: string; output: string; visible: boolean }>>('-t', 'get_workspaces')).filter((ws) => ws.visible && outputsBefore.includes(ws.output)).map((ws) => `${ws.output}:${ws.name}`).sort();
    const visibleBefore = await visible();
    const s2 = await startServer(desk!.env, { HYPRUSE_BACKGROUND: '1' });
    let pid = 0;
    try {
      const personTypes = (async () => {
        for (const ch of ' unseen') {
          await personInput.type(ch);
          await new Promise((r) => setTimeout(r, 40));
        }
      })();
      const r = await s2.call('launch', { command: 'zenity --entry --text=agent-unseen', wait_s: 20 });
      await personTypes;
      expect(r.isError, r.text.join('\n')).toBe(false);
      const data = r.data as { address: string; pid: number; workspace: string };
      pid = data.pid;
      expect(r.text.join('\n')).toMatch(/out of the person's sight/);
      // sway's own view: the window is on the agent's workspace, which the person does not see
      const node = (await swayNodes()).find((n) => String(n.id) === data.address)!;
      expect(node, 'the launched window in sway').toBeDefined();
      expect(node.workspace).toBe(data.workspace);
      expect(data.workspace).toMatch(/^hypruse-agent-\d+$/);
      if (ownOutput) expect(outputsBefore).not.toContain(node.output);
      else {
        expect(await activeOutputs()).toEqual([...outputsBefore].sort());
        expect(await visible()).not.toContain(`${node.output}:${node.workspace}`);
        expect(r.text.join('\n')).toMatch(/cannot remove an output, so instead of an output of its own the agent's workspace is a hidden one/);
      }
      // the person's focus and visible workspaces never changed; no event named the new window's focus
      expect((await swayNodes()).find((n) => n.focused)?.id).toBe(personCon);
      expect(await visible()).toEqual(visibleBefore);
      expect(events.filter((e) => e.change === 'focus').map((e) => e.container?.name)).toEqual([]);
      // the agent reads and fills it over AT-SPI where it is
      const filled = await s2.call('act', { action: 'set_text', role: 'text', window: data.address, text: 'hidden work' });
      expect(filled.isError, filled.text.join('\n')).toBe(false);
      expect((await atspi(pid)).find((n) => n.role === 'text')?.text).toBe('hidden work');
      const rect = (await swayNodes()).find((n) => String(n.id) === data.address)!.rect;
      const shot = await s2.call('screenshot', { window: data.address });
      if (ownOutput) {
        // a screenshot and a zoom of the agent's window capture it where it is (its own output), switching nothing
        expect(shot.isError, shot.text.join('\n')).toBe(false);
        const meta = shot.data as { geometry: number[]; image: number[]; visible?: boolean };
        // the window's content inside sway's rect of it (which adds its border)
        const [gx, gy, gw, gh] = meta.geometry;
        expect(gx >= rect.x && gy >= rect.y && gx + gw <= rect.x + rect.width && gy + gh <= rect.y + rect.height && gw >= rect.width - 8 && gh >= rect.height - 8, `${meta.geometry} in ${JSON.stringify(rect)}`).toBe(true);
        expect(meta.image[0]).toBeGreaterThan(0);
        const zoom = await s2.call('zoom', { x: rect.x + Math.floor(rect.width / 2), y: rect.y + Math.floor(rect.height / 2), window: data.address });
        expect(zoom.isError, zoom.text.join('\n')).toBe(false);
      } else {
        // sway 1.7 has no toplevel capture: a window on a hidden workspace is refused as such, and nothing is switched to show it
        expect(shot.isError, shot.text.join('\n')).toBe(true);
        expect((shot.raw as { _meta?: Record<string, { code: string }> })._meta?.['hypruse/error']?.code).toBe('unsupported.capability');
      }
      expect((await swayNodes()).find((n) => n.focused)?.id).toBe(personCon);
      expect(await visible()).toEqual(visibleBefore);
    } finally {
      if (pid) await killFixture(pid).catch(() => undefined);
      // stopped as a host stops it (SIGTERM), given the time its shutdown takes, not the SDK's 4 s before SIGKILL
      if (s2.pid) {
        process.kill(s2.pid, 'SIGTERM');
        await waitFor(() => {
          try {
            process.kill(s2.pid!, 0);
            return false;
          } catch {
            return true;
          }
        }, 15000, 'the second server to stop');
      }
      await s2.close();
    }
    // no output of the agent's is left (sway 1.8+ unplugs it; on 1.7 none was made); the person's focus stays
    await waitFor(async () => (await activeOutputs()).join() === [...outputsBefore].sort().join(), 5000, "the desktop's outputs as before");
    expect((await swayNodes()).find((n) => n.focused)?.id).toBe(personCon);
    expect(events.filter((e) => e.change === 'focus').map((e) => e.container?.name)).toEqual([]);
  });

  it('refuses what needs the seat before anything is sent, naming the element-level way', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['pointer', { action: 'click', x: 100, y: 100 }, /click_ui clicks a control through its AT-SPI action/],
      ['keyboard', { action: 'type', text: 'x' }, /act set_text/],
      ['keyboard', { action: 'key', keys: 'ctrl+s' }, /act set_text/],
      ['wm', { action: 'workspace', workspace: '3' }, /the person brings windows into view/],
      ['act', { action: 'focus', name: 'Name', window: String(personCon) }, /act set_text fills a field without focusing it/],
      ['click_ui', { name: 'OK', window: String(personCon), button: 'right' }, /needs the pointer/],
    ];
    const before = (await swayNodes()).filter((n) => n.type === 'con').length;
    const personText = (await atspi(person.pid)).find((n) => n.role === 'text')?.text;
    for (const [tool, args, hint] of cases) {
      const r = await server.call(tool, args);
      expect(r.isError, `${tool} ${JSON.stringify(args)} was not refused: ${r.text.join('\n')}`).toBe(true);
      const err = (r.raw as { _meta?: Record<string, { code: string }> })._meta?.['hypruse/error'];
      expect(err?.code, `${tool}: ${r.text.join('\n')}`).toBe('refused.background');
      expect(r.text.join('\n')).toMatch(hint);
    }
    expect((await swayNodes()).filter((n) => n.type === 'con').length).toBe(before);
    expect((await swayNodes()).find((n) => n.focused)?.id).toBe(personCon);
    expect(events.filter((e) => e.change === 'focus')).toEqual([]);
    // the person's field holds what they typed, nothing of the refused calls
    expect((await atspi(person.pid)).find((n) => n.role === 'text')?.text).toBe(personText);
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
