// Background mode beside a person at the seat, on real Hyprland 0.57 in the
// real-compositor guest. A test "person" with one virtual keyboard and pointer
// of their own types a known text steadily into their focused window, with
// their pointer parked on it, while an MCP server in background mode launches
// a GTK 4 dialog, fills it and presses its OK through AT-SPI. Judged outside
// hypruse: Hyprland's own event socket (no window other than the person's ever
// becomes active, no workspace or monitor focus changes, the special workspace
// is never shown), the person's window's own output (every character, in
// order, then the Enter the person pressed; no pointer motion at the probe),
// the dialog's answer on disk and Hyprland's client list (where the window was).
import { readFileSync } from 'node:fs';
import { chmodSync, mkdtempSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WaylandInput } from '@hypruse/wayland';
import { parseCombo } from '@hypruse/core';
import { startServer, type Server } from '../support/server.js';
import { hyprctl, hyprctlJson, readOr, realCompositor, scaled, sessionEnv, sleep, startApp, until, windowOfPid, type HyprClient } from './support/session.js';

const comp = realCompositor();
if (!comp) throw new Error('tests/real/background.test.ts runs only inside the real-compositor guest (node tests/real/run.mjs)');
const PROBE = join(import.meta.dirname, 'fixtures/gtk3-probe.py');
const RUN = Date.now().toString(36);

interface HyprMonitor {
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
  scale: number;
  transform: number;
  specialWorkspace: { id: number; name: string };
}

describe('background mode beside a person at the seat on real Hyprland', () => {
  const work = mkdtempSync(join(tmpdir(), 'hypruse-real-bg-'));
  chmodSync(work, 0o777);
  const typed = 'the quick brown fox 0123456789';
  let person: ReturnType<typeof startApp>;
  let personOut = '';
  let personAddr = '';
  let input: WaylandInput;
  let server: Server;
  let events: string[] = [];
  let sock: net.Socket | null = null;
  const motions = () => personOut.split('\n').filter((l) => l.startsWith('motion ')).length;
  /** The person types `text` steadily, one key every 40 ms, on their own virtual keyboard. */
  const personType = async (text: string) => {
    for (const ch of text) {
      await input.type(ch);
      await sleep(40);
    }
  };
  /** Hyprland's events since `events` was cleared: no other window ever active, no workspace, monitor or special workspace shown or focused; the person's window still active, their pointer still. */
  const expectPersonUndisturbed = async (motionBefore: number) => {
    const focusChanges = events.filter((e) => e.startsWith('activewindowv2>>') && `0x${e.slice('activewindowv2>>'.length)}` !== personAddr);
    expect(focusChanges, events.join('\n')).toEqual([]);
    expect(events.filter((e) => /^(workspace|workspacev2|focusedmon|focusedmonv2|activespecial|activespecialv2)>>/.test(e)), events.join('\n')).toEqual([]);
    expect((await hyprctlJson<{ address?: string }>('activewindow')).address).toBe(personAddr);
    expect(motions(), personOut).toBe(motionBefore);
  };

  beforeAll(async () => {
    // the person's window: the GTK 3 probe, its entry focused, reporting pointer motion
    person = startApp('python3', [PROBE, `person ${RUN}`, '#808080', 'motion'], {}, 'pipe');
    person.stdout!.on('data', (d: Buffer) => (personOut += d.toString()));
    const w = await until("the person's window mapped", () => windowOfPid('hyprland', person.pid!), scaled(20000));
    personAddr = w.address;
    await hyprctl('dispatch', `hl.dsp.focus({ window = "address:${personAddr}" })`);
    await until("the person's window active", async () => (await hyprctlJson<{ address?: string }>('activewindow')).address === personAddr, scaled(5000));
    // the person parks their pointer on the lower, empty part of their window; the probe must see it arrive
    input = new WaylandInput({ env: { ...process.env }, keyboard: 'wire' });
    const mons = await hyprctlJson<HyprMonitor[]>('monitors');
    const logical = mons.map((m) => {
      const [w0, h0] = m.transform % 2 === 1 ? [m.height, m.width] : [m.width, m.height];
      return { x: m.x, y: m.y, r: m.x + Math.round(w0 / m.scale), b: m.y + Math.round(h0 / m.scale) };
    });
    const bounds = { x: Math.min(...logical.map((l) => l.x)), y: Math.min(...logical.map((l) => l.y)) };
    const layout = { ...bounds, width: Math.max(...logical.map((l) => l.r)) - bounds.x, height: Math.max(...logical.map((l) => l.b)) - bounds.y };
    const c = (await hyprctlJson<HyprClient[]>('clients')).find((x) => x.address === personAddr)!;
    await input.moveAbsolute({ x: c.at[0] + Math.round(c.size[0] / 2), y: c.at[1] + Math.round(c.size[1] * 0.8) }, layout);
    await until('the probe to see the pointer arrive', async () => motions() > 0, scaled(8000));
    await input.key(parseCombo('shift')); // the keyboard exists (its keymap applied) before the person types; a lone Shift types nothing
    // every Hyprland event from here on, read from its own event socket
    const path = join(process.env.XDG_RUNTIME_DIR ?? '', 'hypr', process.env.HYPRLAND_INSTANCE_SIGNATURE ?? '', '.socket2.sock');
    sock = net.createConnection({ path });
    let buf = '';
    sock.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        events.push(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
      }
    });
    await new Promise<void>((resolve, reject) => sock!.once('connect', () => resolve()).once('error', reject));
    // HYPRUSE_INDICATOR=0 as for the other servers in the guest (its fades cost llvmpipe frames under TCG)
    server = await startServer(sessionEnv(), { HYPRUSE_BACKGROUND: '1', HYPRUSE_TAKEOVER_MS: '1500', HYPRUSE_INDICATOR: '0' });
    const d = await server.call('desktop');
    expect(d.isError, d.text.join('\n')).toBe(false);
  });

  afterAll(async () => {
    sock?.destroy();
    await server?.close();
    await input?.dispose();
    if (person && person.exitCode === null) person.kill('SIGTERM');
  });

  it("the agent launches a dialog out of the person's sight, fills it and presses OK through AT-SPI while the person types: no focus change, no pointer motion, the person's text intact, the answer on disk", async () => {
    const out = join(work, `agent-${RUN}.out`);
    await sleep(scaled(300));
    const motionBefore = motions();
    events = [];
    const personTypes = personType(typed);
    let place = '';
    const agentWorks = (async () => {
      const l = await server.call('launch', { command: `zenity --entry --title='agent ${RUN}' --text='Name?' > ${out}`, wait_s: 60 });
      expect(l.isError, l.text.join('\n')).toBe(false);
      expect(l.text.join('\n')).toMatch(/out of the person's sight/);
      expect(l.text.join('\n')).not.toMatch(/may have seen it/);
      const addr = String(l.data.address);
      // Hyprland's own client list: the window is on the agent's special workspace, which no monitor shows
      const c = (await hyprctlJson<HyprClient[]>('clients')).find((x) => x.address === addr);
      expect(c, `the launched window ${addr} in hyprctl clients`).toBeDefined();
      place = c!.workspace.name;
      expect(place).toBe(`special:hypruse-agent-${server.pid}`);
      expect((await hyprctlJson<HyprMonitor[]>('monitors')).map((m) => m.specialWorkspace.name)).not.toContain(place);
      // GTK 4 names its entry's role "text box"
      const set = await server.call('act', { action: 'set_text', role: 'text box', window: addr, text: 'agent wrote this' });
      expect(set.isError, set.text.join('\n')).toBe(false);
      const ok = await server.call('click_ui', { name: 'OK', window: addr });
      expect(ok.isError, ok.text.join('\n')).toBe(false);
    })();
    await Promise.all([personTypes, agentWorks]);
    await input.key(parseCombo('Return'));
    // the agent's effect on disk; the person's text, every character in order, from their own window
    await until('zenity wrote its answer', async () => readOr(out) !== '', scaled(10000));
    expect(readOr(out)).toBe('agent wrote this\n');
    await until("the person's Enter", async () => personOut.includes('activate '), scaled(8000));
    expect(personOut.split('\n').filter((l) => l.startsWith('activate '))).toEqual([`activate ${typed}`]);
    await expectPersonUndisturbed(motionBefore);
    // the agent's special workspace ended with its window
    await until(`${place} gone`, async () => !(await hyprctlJson<Array<{ name: string }>>('workspaces')).some((w) => w.name === place), scaled(8000));
    expect(readFileSync(out, 'utf8')).toBe('agent wrote this\n');
  });

  it('the agent fills, checks, selects and submits a form, then types into a document, checks a box, runs two menu items in another app (an item that opens a dialog refused: Hyprland would show the dialog), all out of sight while the person types: judged by the apps\' output and the file on disk', async () => {
    const formOut = join(work, `form-${RUN}.out`);
    const notesOut = join(work, `notes-${RUN}.out`);
    const note = join(work, `note-${RUN}.txt`);
    const more = ' and then some more';
    const activates = () => personOut.split('\n').filter((l) => l.startsWith('activate '));
    const activatesBefore = activates().length;
    await sleep(scaled(300));
    const motionBefore = motions();
    events = [];
    const personTypes = personType(more);
    const step = async (tool: string, args: Record<string, unknown>) => {
      const r = await server.call(tool, args);
      expect(r.isError, `${tool} ${JSON.stringify(args)}: ${r.text.join('\n')}`).toBe(false);
      return r;
    };
    const agentWorks = (async () => {
      const f = await step('launch', { command: `python3 ${join(import.meta.dirname, '../desktop/gtk3-form.py')} > ${formOut}`, wait_s: 60 });
      const form = String(f.data.address);
      await step('act', { action: 'set_text', name: 'Name', text: 'Ada Lovelace', window: form });
      await step('act', { action: 'check', name: 'Subscribe', window: form });
      await step('act', { action: 'select', name: 'Color', option: 'Blue', window: form });
      await step('click_ui', { name: 'OK', role: 'push button', window: form });
      const n = await step('launch', { command: `python3 ${join(import.meta.dirname, 'fixtures/gtk3-notes.py')} ${note} 'agent notes ${RUN}' > ${notesOut}`, wait_s: 60 });
      const notes = String(n.data.address);
      const c = (await hyprctlJson<HyprClient[]>('clients')).find((x) => x.address === notes);
      expect(c?.workspace.name).toBe(`special:hypruse-agent-${server.pid}`);
      await step('keyboard', { action: 'type', role: 'text', text: 'minutes of the meeting', window: notes });
      await step('act', { action: 'check', name: 'Keep backups', window: notes });
      await step('menu', { path: 'Edit > Upper Case', window: notes });
      await step('menu', { path: 'File > Save', window: notes });
      // an item that opens a dialog is refused before anything is sent: Hyprland would map the dialog
      // where the person looks (a launch's exec rule places the first window of the process only)
      const saveAs = await server.call('menu', { path: 'File > Save As…', window: notes });
      expect(saveAs.isError, saveAs.text.join('\n')).toBe(true);
      expect((saveAs.raw as { _meta?: Record<string, { code?: string }> })._meta?.['hypruse/error']?.code, saveAs.text.join('\n')).toBe('refused.background');
      expect(saveAs.text.join('\n')).toMatch(/first window of the launched process only/);
    })();
    await Promise.all([personTypes, agentWorks]);
    await input.key(parseCombo('Return'));
    // the agent's effects, from the apps themselves and the disk
    await until('the form printed its state', async () => readOr(formOut).includes('ok '), scaled(10000));
    expect(readOr(formOut)).toMatch(/^ok name=Ada Lovelace subscribe=True details=False color=Blue /m);
    await until('the note saved', async () => readOr(note) !== '', scaled(10000));
    expect(readOr(note)).toBe('MINUTES OF THE MEETING');
    // the refused Save As… opened nothing: no dialog window of the app, no file
    expect(readOr(notesOut).split('\n').filter(Boolean)).toEqual(['backups 1', 'upper', `saved ${note}`]);
    expect((await hyprctlJson<HyprClient[]>('clients')).filter((x) => x.title === 'Save As')).toEqual([]);
    // the person's field: one more Enter, the field ending in this text, every character in order, in their own window
    await until("the person's Enter", async () => activates().length === activatesBefore + 1, scaled(8000));
    expect(activates().at(-1)!.endsWith(more), activates().at(-1)).toBe(true);
    await expectPersonUndisturbed(motionBefore);
    // the notes app ends by its own pid, as Hyprland reports it (background mode closes no window)
    process.kill((await hyprctlJson<HyprClient[]>('clients')).find((x) => x.title === `agent notes ${RUN}`)!.pid);
    await until('the notes app ended', async () => !(await hyprctlJson<HyprClient[]>('clients')).some((x) => x.title === `agent notes ${RUN}`), scaled(10000));
  });
});
