// The person stays in charge, on the real headless sway desktop: a second,
// independent virtual pointer (the "person", its own Wayland client) moves
// and the agent's typing is refused with `paused` while nothing reaches the
// field; a plan is interrupted mid-way; the stop chord, pressed as a real key
// event by a separate virtual keyboard (wtype), stops a plan and every later
// acting call until resume, and is gone from sway when the server exits.
// Effects are read back from zenity's own output (it prints the entry's text
// on Return) and from sway's binding events (swaymsg -t subscribe).
import { execFile } from 'node:child_process';
import net from 'node:net';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { IDLE_GRANULARITY_MS, IDLE_SLACK_MS } from '@hypruse/trust';
import { WaylandInput } from '@hypruse/wayland';
import { killFixture, requireDesktop, swaymsg, waitFor } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';
import { interruptiblePlan, launchFocusedEntry, zenityAnswer } from '../support/tools.js';

const desk = await requireDesktop();

const dir = mkdtempSync(join(tmpdir(), 'hypruse-presence-e2e-'));
const JOURNAL = join(dir, 'journal.ndjson');
const CONFIG = join(dir, 'hypruse.json');
writeFileSync(CONFIG, JSON.stringify({ a11y: { timeoutMs: 10000 }, journal: { path: JOURNAL } }));

const controlState = (): string | null => {
  const p = join(desk!.env.XDG_RUNTIME_DIR, 'hypruse', 'control.json');
  return existsSync(p) ? String(JSON.parse(readFileSync(p, 'utf8')).state) : null;
};

const records = (): Array<Record<string, any>> =>
  existsSync(JOURNAL) ? readFileSync(JOURNAL, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];

/** Resolves once the journal holds a finished nested keyboard call (a plan's step) after `since` records. */
async function stepDone(since: number): Promise<void> {
  await waitFor(() => records().slice(since).some((r) => r.tool === 'keyboard' && r.parent !== undefined && r.outcome), 20000, 'the plan\'s first step in the journal');
}

function wtype(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('wtype', args, { env: { ...process.env, ...desk!.env }, timeout: 10000 }, (err, _o, stderr) => (err ? reject(new Error(`wtype ${args.join(' ')}: ${stderr || err.message}`)) : resolve()));
  });
}

/** sway's binding events over its own IPC (a raw i3-ipc SUBSCRIBE), ready once sway confirmed the subscription. */
async function bindingEvents(): Promise<{ commands: string[]; stop(): void }> {
  const sock = net.createConnection(desk!.env.SWAYSOCK);
  const commands: string[] = [];
  let buf = Buffer.alloc(0);
  const frame = (type: number, payload: string) => {
    const body = Buffer.from(payload, 'utf8');
    const head = Buffer.alloc(14);
    head.write('i3-ipc', 0, 'ascii');
    head.writeUInt32LE(body.length, 6);
    head.writeUInt32LE(type, 10);
    return Buffer.concat([head, body]);
  };
  await new Promise<void>((resolve, reject) => {
    sock.once('error', reject);
    sock.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 14) {
        const len = buf.readUInt32LE(6);
        if (buf.length < 14 + len) break;
        const type = buf.readUInt32LE(10);
        const body = JSON.parse(buf.subarray(14, 14 + len).toString('utf8'));
        buf = buf.subarray(14 + len);
        if (type === 2) {
          if (body.success) resolve();
          else reject(new Error('sway refused the subscription'));
        } else if (type === 0x80000005) commands.push(String(body.binding?.command ?? ''));
      }
    });
    sock.write(frame(2, '["binding"]'));
  });
  return { commands, stop: () => sock.destroy() };
}


/** Retry a call while it is refused as a takeover pause (the person has left the seat; the retry time comes from the refusal). */
async function whenUnpaused(server: Server, tool: string, args: Record<string, unknown>) {
  for (let i = 0; i < 20; i++) {
    const r = await server.call(tool, args);
    if (!r.isError || !/^refused: paused/.test(r.text[0] ?? '')) return r;
    const after = Number(/"retry_after_ms":(\d+)/.exec(r.text.join('\n'))?.[1] ?? 200);
    await new Promise((res) => setTimeout(res, after + 50));
  }
  throw new Error(`${tool} stayed paused`);
}

describe.skipIf(!desk)('takeover pause and the stop chord on the real desktop', () => {
  let server: Server;
  const asked: string[] = [];
  let person: WaylandInput;
  const apps: number[] = [];
  const layout = { x: 0, y: 0, width: 1280, height: 800 };

  beforeAll(async () => {
    server = await startServer(desk!.env, { HYPRUSE_CONFIG: CONFIG }, { answer: () => true, asked }); // the host shows the person resume's question; they agree
    // the server builds its session, and starts listening to the seat, on the first request that needs it
    expect((await server.call('desktop')).isError).toBe(false);
    person = new WaylandInput({ env: { ...process.env, ...desk!.env }, keyboard: 'auto' });
  });

  afterAll(async () => {
    await server?.call('resume', {}).catch(() => undefined);
    await server?.close();
    await person?.dispose();
    for (const pid of apps) await killFixture(pid).catch(() => undefined);
    // never leave the desktop stopped for the files after this one
    const control = join(desk!.env.XDG_RUNTIME_DIR, 'hypruse', 'control.json');
    if (existsSync(control) && JSON.parse(readFileSync(control, 'utf8')).state !== 'running') writeFileSync(control, JSON.stringify({ v: 1, state: 'running', by: 'test', at: Date.now() }));
  });

  /**
   * The person takes the pointer (a separate Wayland client) and moves it over
   * the zenity window for longer than the detector's blind spot after the
   * agent's own input (idle granularity + slack), as a hand on a mouse does;
   * resolves once sway got the last motion.
   */
  async function personMoves(): Promise<void> {
    const until = performance.now() + scaledMs(2 * (IDLE_GRANULARITY_MS + IDLE_SLACK_MS));
    for (let i = 0; performance.now() < until; i++) {
      await person.moveAbsolute({ x: 300 + (i % 40) * 5, y: 300 + (i % 20) * 3 }, layout);
      await new Promise((r) => setTimeout(r, 16));
    }
  }

  it('refuses typing while the person moves the pointer (paused, retryable, nothing sent), then types once they stop', async () => {
    const app = await launchFocusedEntry();
    apps.push(app.pid);
    await personMoves();
    const r = await server.call('keyboard', { action: 'type', text: 'intruder', window: app.address });
    expect(r.isError).toBe(true);
    expect(r.text[0]).toMatch(/^refused: paused: the person is using the seat/);
    expect(r.text.join('\n')).toMatch(/"retryable":true/);
    // the person leaves the seat: after takeover_ms the agent may type, and only that text is in the field
    const typed = await whenUnpaused(server, 'keyboard', { action: 'type', text: 'mine', window: app.address });
    expect(typed.isError, typed.text.join('\n')).toBe(false);
    const ret = await server.call('keyboard', { action: 'key', keys: 'Return', window: app.address });
    expect(ret.isError, ret.text.join('\n')).toBe(false);
    expect(await zenityAnswer(app)).toBe('mine\n');
  });

  it('interrupts a running plan mid-way when the person takes the pointer back', async () => {
    const app = await launchFocusedEntry();
    apps.push(app.pid);
    const since = records().length;
    const plan = server.call('sequence', interruptiblePlan(app.address));
    await stepDone(since);
    await personMoves();
    // end the plan's wait (step 2) now that the person has moved: step 3 then meets the person
    await swaymsg('workspace', 'number', '3');
    const r = await plan;
    expect(r.isError).toBe(true);
    expect(r.text[0]).toMatch(/^refused: interrupted: the sequence stopped after 2\/3 steps/);
    expect(r.text.join('\n')).toMatch(/paused: the person is using the seat/);
    const ret = await whenUnpaused(server, 'keyboard', { action: 'key', keys: 'Return', window: app.address });
    expect(ret.isError, ret.text.join('\n')).toBe(false);
    expect(await zenityAnswer(app)).toBe('one\n');
  });

  it('the stop chord, pressed on a separate virtual keyboard, stops a plan and every later acting call until resume', async () => {
    const app = await launchFocusedEntry();
    apps.push(app.pid);
    const events = await bindingEvents();
    try {
      const since = records().length;
      const plan = server.call('sequence', interruptiblePlan(app.address));
      await stepDone(since);
      await wtype(['-M', 'logo', '-M', 'alt', '-k', 'Escape', '-m', 'alt', '-m', 'logo']);
      await waitFor(() => events.commands.includes('nop hypruse-stop'), 5000, 'sway\'s binding event for the chord');
      await waitFor(() => controlState() === 'stopped', 5000, 'the stop to reach the shared control file');
      await swaymsg('workspace', 'number', '3');
      const r = await plan;
      expect(r.isError).toBe(true);
      expect(r.text[0]).toMatch(/^refused: interrupted: the sequence stopped after 2\/3 steps/);
      expect(r.text.join('\n')).toMatch(/stopped by the person/);
      // later acting calls are refused until resume, however long the person waits
      const later = await server.call('keyboard', { action: 'type', text: 'later', window: app.address });
      expect(later.text[0]).toMatch(/^refused: stopped by the person: the stop chord \(super\+alt\+Escape\)/);
      const wm = await server.call('wm', { action: 'workspace', workspace: '1' });
      expect(wm.text[0]).toMatch(/^refused: stopped by the person/);
      const resumed = await server.call('resume', {});
      expect(resumed.isError, resumed.text.join('\n')).toBe(false);
      expect(resumed.text[0]).toMatch(/^resumed: hypruse was stopped by the stop chord/);
      expect(asked.at(-1)).toMatch(/^hypruse was stopped by the stop chord \(super\+alt\+Escape\)\. Let the agent act again\?/); // only after the person confirmed
      const ret = await whenUnpaused(server, 'keyboard', { action: 'key', keys: 'Return', window: app.address });
      expect(ret.isError, ret.text.join('\n')).toBe(false);
      expect(await zenityAnswer(app)).toBe('one\n');
    } finally {
      events.stop();
    }
  });

  it('removes the chord from sway when the server exits', async () => {
    await server.close();
    const gone = server.pid;
    await waitFor(() => {
      try {
        process.kill(gone!, 0);
        return false;
      } catch {
        return true;
      }
    }, 10000, 'the server to exit');
    const events = await bindingEvents();
    try {
      // Mod4+1 (a binding of the test desktop) after the chord: once sway reports it, it would have reported the chord before
      await wtype(['-M', 'logo', '-M', 'alt', '-k', 'Escape', '-m', 'alt', '-m', 'logo']);
      await wtype(['-M', 'logo', '-k', '1', '-m', 'logo']);
      await waitFor(() => events.commands.some((c) => /workspace/.test(c)), 5000, 'sway\'s binding event for Mod4+1');
      expect(events.commands).not.toContain('nop hypruse-stop');
    } finally {
      events.stop();
    }
    server = await startServer(desk!.env, { HYPRUSE_CONFIG: CONFIG });
    expect((await server.call('desktop')).isError).toBe(false);
  });
});
