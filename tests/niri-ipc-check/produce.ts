/**
 * Produces the JSON lines that the niri-ipc checker deserializes with niri's
 * own types: every request the real niri plugin sends, and every reply and
 * event the niri simulator produces, in a scripted scenario.
 *
 *   node --conditions=@hypruse/source --import tsx tests/niri-ipc-check/produce.ts [--version 25.08] > lines.jsonl
 *
 * The plugin talks to the simulator through a recording relay, so what is
 * checked is exactly what crossed the socket. Each output line is
 * `{"kind":"request"|"reply"|"event","label":…,"json":"<wire line>"}`.
 * The simulator-only `SimClient` request (a stand-in app announcing itself)
 * is not niri's and is left out.
 */
import { readFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scaledMs } from '@hypruse/core';
import { NiriCompositor } from '@hypruse/compositor-niri';
import { NiriSimulator, type NiriSimVersion } from '../simulators/niri/niri-simulator.js';

type Kind = 'request' | 'reply' | 'event' | 'state';
export interface WireLine {
  kind: Kind;
  label: string;
  json: string;
  /** Events of one stream, in order, and `state` checkpoints against it (see main.rs). */
  stream?: string;
}

const FAKE_CLIENT = fileURLToPath(new URL('../simulators/niri/fake-client.mjs', import.meta.url));
/** The plugin's unit-test fixture of a niri state: its replies must follow niri's types too. */
const STATE_FIXTURE = new URL('../../packages/compositor-niri/test/fixtures/niri-26-state.json', import.meta.url);

/** The fixture's contents as the replies niri would send. */
export function fixtureReplies(): WireLine[] {
  const fx = JSON.parse(readFileSync(STATE_FIXTURE, 'utf8')) as Record<string, unknown>;
  const reply = (variant: string, value: unknown): WireLine => ({ kind: 'reply', label: `fixture niri-26-state.json ${variant}`, json: JSON.stringify({ Ok: { [variant]: value } }) });
  return [reply('Outputs', fx.outputs), reply('Workspaces', fx.workspaces), reply('Windows', fx.windows), reply('Layers', fx.layers)];
}

/** A Unix-socket relay in front of the simulator that records every line in both directions. */
class Relay {
  readonly lines: WireLine[] = [];
  private server: Server | null = null;
  private readonly conns = new Set<Socket>();
  constructor(
    private readonly upstream: string,
    readonly path: string,
  ) {}

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      const server = createServer((client) => this.onClient(client));
      server.once('error', reject);
      server.listen(this.path, () => {
        this.server = server;
        resolve();
      });
    });
  }

  private onClient(client: Socket): void {
    const up = createConnection(this.upstream);
    this.conns.add(client);
    this.conns.add(up);
    let streaming = false;
    let pendingNames: string[] = [];
    let sim = false;
    let upBuf = '';
    let downBuf = '';
    client.on('data', (chunk) => {
      downBuf += chunk.toString('utf8');
      let nl: number;
      while ((nl = downBuf.indexOf('\n')) !== -1) {
        const line = downBuf.slice(0, nl);
        downBuf = downBuf.slice(nl + 1);
        const name = requestName(line);
        if (name === 'SimClient') sim = true;
        else this.lines.push({ kind: 'request', label: `plugin ${name}`, json: line });
        pendingNames.push(name);
      }
      up.write(chunk);
    });
    up.on('data', (chunk) => {
      upBuf += chunk.toString('utf8');
      let nl: number;
      while ((nl = upBuf.indexOf('\n')) !== -1) {
        const line = upBuf.slice(0, nl);
        upBuf = upBuf.slice(nl + 1);
        if (streaming) {
          this.lines.push({ kind: 'event', label: `simulator event ${requestName(line)}`, json: line });
          continue;
        }
        const name = pendingNames.shift() ?? '?';
        if (!sim) this.lines.push({ kind: 'reply', label: `simulator reply to ${name}`, json: line });
        if (name === 'EventStream') streaming = true;
      }
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      up.destroy();
      this.conns.delete(client);
      this.conns.delete(up);
      pendingNames = [];
    };
    client.on('close', end);
    up.on('close', end);
    client.on('error', () => undefined);
    up.on('error', () => undefined);
  }

  async close(): Promise<void> {
    for (const c of this.conns) c.destroy();
    const s = this.server;
    this.server = null;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }
}

/** `"Windows"` → Windows; `{"Action":{"FocusWindow":…}}` → Action FocusWindow; `{"Ok":…}` → Ok. */
function requestName(line: string): string {
  try {
    const v: unknown = JSON.parse(line);
    if (typeof v === 'string') return v;
    if (v && typeof v === 'object') {
      const [k] = Object.keys(v);
      const inner = (v as Record<string, unknown>)[k];
      if (k === 'Action' && inner && typeof inner === 'object') return `Action ${Object.keys(inner)[0]}`;
      return k ?? '?';
    }
  } catch {
    /* reported by the checker */
  }
  return '<unparsable>';
}

/** Send raw request lines straight to the simulator (one connection each) and record its replies. */
async function probe(sim: NiriSimulator, out: WireLine[], request: unknown): Promise<void> {
  const line = JSON.stringify(request);
  const name = requestName(line);
  out.push({ kind: 'request', label: `probe ${name}`, json: line });
  const reply = await new Promise<string>((resolve, reject) => {
    const sock = createConnection(sim.socketPath, () => sock.write(`${line}\n`));
    let buf = '';
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`the simulator did not answer ${name}`));
    }, scaledMs(5000));
    sock.on('data', (c) => {
      buf += c.toString('utf8');
      const nl = buf.indexOf('\n');
      if (nl !== -1) {
        clearTimeout(timer);
        sock.destroy();
        resolve(buf.slice(0, nl));
      }
    });
    sock.on('error', reject);
  });
  out.push({ kind: 'reply', label: `simulator reply to probe ${name}`, json: reply });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An event stream of our own, straight to the simulator: its events, in
 * order, and checkpoints where the Windows and Workspaces replies read after
 * the stream went quiet must equal what niri's own reducer makes of the events.
 */
async function watchStream(sim: NiriSimulator, out: WireLine[], stream: string): Promise<{ checkpoint(label: string): Promise<void>; close(): void }> {
  const sock = createConnection(sim.socketPath, () => sock.write('"EventStream"\n'));
  let buf = '';
  let first = true;
  let lastAt = Date.now();
  await new Promise<void>((resolve, reject) => {
    sock.on('error', reject);
    sock.on('data', (c) => {
      buf += c.toString('utf8');
      let nl: number;
      while ((nl = buf.indexOf('\n')) !== -1) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        lastAt = Date.now();
        if (first) {
          first = false;
          out.push({ kind: 'reply', label: 'simulator reply to EventStream (watcher)', json: line });
          resolve();
        } else out.push({ kind: 'event', label: `simulator event ${requestName(line)} (watcher)`, json: line, stream });
      }
    });
  });
  const checkpoint = async (label: string): Promise<void> => {
    for (;;) {
      while (Date.now() - lastAt < 150) await sleep(50);
      const replies: WireLine[] = [];
      await probe(sim, replies, 'Windows');
      await probe(sim, replies, 'Workspaces');
      if (Date.now() - lastAt < 150) continue; // something moved meanwhile: read again
      for (const r of replies) if (r.kind === 'reply') out.push({ kind: 'state', label: `${label}: ${r.label.replace('simulator reply to probe ', '')} equals niri's reducer of the events`, json: r.json, stream });
      return;
    }
  };
  return { checkpoint, close: () => sock.destroy() };
}


/** Run the scripted scenario and return the recorded lines. */
export async function produce(version: NiriSimVersion = '25.08'): Promise<WireLine[]> {
  const sim = await NiriSimulator.start({ version });
  const relay = new Relay(sim.socketPath, join(sim.dir, 'relay.sock'));
  await relay.listen();
  const niri = new NiriCompositor({ socketPath: relay.path, childEnv: { NIRI_SOCKET: relay.path } });
  const direct: WireLine[] = [];
  const watched: WireLine[] = [];
  const watcher = await watchStream(sim, watched, 'watcher');
  try {
    // every request kind the plugin sends, through the plugin's own code
    await niri.version();
    const sub = await niri.subscribe();
    let d = await niri.snapshot();
    const notes = d.windows.find((w) => w.title === 'notes')!;
    const files = d.windows.find((w) => w.title === 'Files')!;
    await niri.focusWindow(files.address);
    await niri.switchWorkspace('1'); // a workspace id
    await niri.switchWorkspace('chat'); // a name
    await niri.switchWorkspace(String(99)); // an index on the focused monitor
    await niri.switchWorkspace('1');
    await niri.moveToWorkspace(notes.address, '3', true);
    await niri.moveToWorkspace(notes.address, '1', false);
    await niri.toggleFloating(notes.address);
    await niri.toggleFloating(null);
    await niri.toggleFullscreen(notes.address);
    await niri.toggleFullscreen(null);
    sim.setUrgent(Number(files.address), true);
    sim.setUrgent(Number(files.address), false);
    sim.setTitle(Number(notes.address), 'notes (edited)');
    const launched = await niri.launch(`${shq(process.execPath)} ${shq(FAKE_CLIENT)} --title launched --app-id hypruse.check`, { timeoutMs: scaledMs(5000), workspace: 'chat' });
    if (!launched.window) throw new Error(`scenario: launch found no window (${launched.note ?? ''})`);
    d = await niri.snapshot();
    const outcome = await niri.closeWindow(launched.window.address, scaledMs(3000));
    if (outcome.status !== 'closed') throw new Error(`scenario: the launched window did not close (${outcome.status})`);
    // a window on a hidden workspace, and one that ignores close
    const stubborn = sim.openWindow({ title: 'unsaved', appId: 'org.example.editor', pid: process.pid, workspace: 5, focus: false, ignoreClose: true });
    await niri.closeWindow(String(stubborn), 200);
    await watcher.checkpoint('after the plugin scenario');
    sim.removeWindow(stubborn);
    await sleep(100);


    // every other reply and event the simulator can produce, asked directly
    for (const r of ['Version', 'Outputs', 'Workspaces', 'Windows', 'Layers', 'KeyboardLayouts', 'FocusedOutput', 'FocusedWindow', 'OverviewState', 'ReturnError']) {
      await probe(sim, direct, r);
    }
    await probe(sim, direct, { Action: { FocusWorkspace: { reference: { Index: 2 } } } });
    await probe(sim, direct, { Action: { FocusWorkspace: { reference: { Name: 'chat' } } } });
    await probe(sim, direct, { Action: { FocusWindow: { id: 424242 } } });
    await probe(sim, direct, { Action: { CloseWindow: { id: null } } });
    await probe(sim, direct, { Action: { FullscreenWindow: {} } });
    await probe(sim, direct, { Action: { ToggleWindowFloating: {} } });
    await probe(sim, direct, { Action: { MoveWindowToWorkspace: { window_id: null, reference: { Id: 4 }, focus: true } } });
    await probe(sim, direct, { Action: { CenterColumn: {} } });
    await probe(sim, direct, { Action: { SpawnSh: { command: 'sleep 0.2' } } });
    await probe(sim, direct, { Action: { Spawn: { command: ['sleep', '0.2'] } } });
    await probe(sim, direct, 'PickColor'); // the simulator answers Err for what it does not implement
    // a focused output/window of null: nothing focused
    for (const w of [...sim.windows.keys()]) sim.removeWindow(w);
    await probe(sim, direct, 'FocusedWindow');
    await sleep(400); // let the spawned processes exit and their windows unmap
    await watcher.checkpoint('at the end');
    sub.close();
  } finally {
    watcher.close();
    await niri.dispose();
    await relay.close();
    await sim.stop();
  }
  return [...relay.lines, ...direct, ...watched, ...fixtureReplies()];
}

function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const i = process.argv.indexOf('--version');
  const version = (i >= 0 ? process.argv[i + 1] : '25.08') as NiriSimVersion;
  const lines = await produce(version);
  process.stdout.write(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  process.exit(0);
}
