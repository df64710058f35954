#!/usr/bin/env node
// Records, from the real compositor of the guest session, the raw reply to
// every request the hypruse plugin sends and the raw event stream of a short
// scripted scenario (open, title change, move to workspace, float toggle,
// fullscreen, close, workspace switch, a screencopy). Talks to the sockets
// directly, so the files hold exactly the bytes the compositor wrote.
//
//   node tests/real/guest/record.mjs hyprland|sway OUTDIR
//
// Writes OUTDIR/transcript.jsonl (one JSON object a line, in time order:
// {"request": ..., "reply": ...} or {"event": ...}), OUTDIR/requests/NN-name.txt
// (each reply verbatim), OUTDIR/events.txt (the event stream verbatim) and
// OUTDIR/versions.json.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync, appendFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';

const [comp, outDir] = process.argv.slice(2);
if (!['hyprland', 'sway'].includes(comp) || !outDir) {
  process.stderr.write('usage: record.mjs hyprland|sway OUTDIR\n');
  process.exit(2);
}
const SCALE = Math.max(1, Number(process.env.HYPRUSE_TIME_SCALE) || 1);
mkdirSync(join(outDir, 'requests'), { recursive: true });
const transcript = join(outDir, 'transcript.jsonl');
writeFileSync(transcript, '');
writeFileSync(join(outDir, 'events.txt'), '');
const log = (o) => appendFileSync(transcript, `${JSON.stringify(o)}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let n = 0;
const fileName = (name) => `${String(++n).padStart(2, '0')}-${name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60)}.txt`;
const children = [];

// ------------------------------------------------------------------ Hyprland
const RUN = process.env.XDG_RUNTIME_DIR;
const SIG = process.env.HYPRLAND_INSTANCE_SIGNATURE;
const hyprSock = (s) => join(RUN, 'hypr', SIG ?? '', s);

function hyprRequest(cmd) {
  return new Promise((resolve, reject) => {
    const sock = net.createConnection({ path: hyprSock('.socket.sock') });
    const chunks = [];
    const t = setTimeout(() => {
      sock.destroy();
      reject(new Error(`no reply to ${cmd} within ${10 * SCALE} s`));
    }, 10000 * SCALE);
    sock.on('connect', () => sock.write(cmd));
    sock.on('data', (d) => chunks.push(d));
    sock.on('error', (e) => {
      clearTimeout(t);
      reject(e);
    });
    sock.on('close', () => {
      clearTimeout(t);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

async function hyprStep(name, cmd) {
  const reply = await hyprRequest(cmd);
  const file = fileName(name);
  writeFileSync(join(outDir, 'requests', file), reply);
  log({ request: cmd, reply, file });
  return reply;
}

function hyprEvents() {
  const sock = net.createConnection({ path: hyprSock('.socket2.sock') });
  let buf = '';
  sock.on('data', (d) => {
    appendFileSync(join(outDir, 'events.txt'), d);
    buf += d.toString('utf8');
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      log({ event: buf.slice(0, i) });
      buf = buf.slice(i + 1);
    }
  });
  return sock;
}

async function waitFor(what, fn, ms = 20000) {
  const deadline = Date.now() + ms * SCALE;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

const luaStr = (s) => JSON.stringify(s);
const SNAPSHOT = ['monitors', 'workspaces', 'clients', 'activewindow', 'cursorpos', 'layers'];
const batch = (cmds) => `[[BATCH]]${cmds.map((c) => c.replace(/\\/g, '\\\\').replace(/;/g, '\\;')).join(';')}`;

async function recordHyprland() {
  const ev = hyprEvents();
  await sleep(500);
  for (const q of ['version', 'status', 'monitors', 'workspaces', 'clients', 'activewindow', 'layers', 'binds', 'cursorpos', 'devices', 'locked']) await hyprStep(`j-${q}`, `j/${q}`);
  await hyprStep('version', 'version');
  await hyprStep('locked', 'locked');
  await hyprStep('j-monitors-all', 'j/monitors all');
  await hyprStep('batch-snapshot', batch(SNAPSHOT.map((q) => `j/${q}`)));
  await hyprStep('dispatch-legacy-exec', 'dispatch exec foot');
  await hyprStep('dispatch-legacy-workspace', 'dispatch workspace 2');
  await hyprStep('keyword-windowrule', 'keyword windowrule border_color rgb(ff0000), tag hypruse-mark');
  await hyprStep('eval-window-rule', `eval hl.window_rule({ match = { tag = "hypruse-mark" }, border_color = "rgb(ff0000)" })`);
  await hyprStep('notify', 'notify -1 2000 rgb(ff0000) hypruse recording');
  // the scenario: a foot whose title changes after 3 s
  const title = 'hypruse record';
  const cmd = `foot -a hypruse.record -T ${luaStr(title).replace(/"/g, "'")} sh -c 'sleep 5; printf "\\033]2;hypruse renamed\\007"; sleep 600'`;
  await hyprStep('dispatch-exec', `dispatch hl.dsp.exec_cmd(${luaStr(cmd)})`);
  const client = await waitFor('the foot window', async () => JSON.parse(await hyprRequest('j/clients')).find((c) => c.class === 'hypruse.record'));
  const sel = luaStr(`address:${client.address}`);
  await hyprStep('j-clients-open', 'j/clients');
  await hyprStep('j-activewindow-open', 'j/activewindow');
  await hyprStep('batch-snapshot-open', batch(SNAPSHOT.map((q) => `j/${q}`)));
  await waitFor('the title change', async () => JSON.parse(await hyprRequest('j/clients')).find((c) => c.address === client.address && c.title === 'hypruse renamed'));
  await hyprStep('dispatch-focus-window', `dispatch hl.dsp.focus({ window = ${sel} })`);
  await hyprStep('dispatch-move-silent', `dispatch hl.dsp.window.move({ workspace = "2", follow = false, window = ${sel} })`);
  await sleep(1000);
  await hyprStep('dispatch-move-follow', `dispatch hl.dsp.window.move({ workspace = "3", follow = true, window = ${sel} })`);
  await sleep(1000);
  await hyprStep('dispatch-float-toggle', `dispatch hl.dsp.window.float({ action = "toggle", window = ${sel} })`);
  await sleep(1000);
  await hyprStep('j-clients-floating', 'j/clients');
  await hyprStep('dispatch-fullscreen-toggle', `dispatch hl.dsp.window.fullscreen({ mode = "fullscreen", action = "toggle", window = ${sel} })`);
  await sleep(1000);
  await hyprStep('j-clients-fullscreen', 'j/clients');
  await hyprStep('dispatch-tag', `dispatch hl.dsp.window.tag({ tag = "+hypruse-mark", window = ${sel} })`);
  await hyprStep('dispatch-cursor-move', 'dispatch hl.dsp.cursor.move({ x = 300, y = 200 })');
  await hyprStep('j-cursorpos-moved', 'j/cursorpos');
  // a screencopy by another client
  execFileSync('grim', ['/tmp/hypruse-record-screencopy.png'], { timeout: 30000 * SCALE });
  await sleep(1000);
  await hyprStep('dispatch-close', `dispatch hl.dsp.window.close({ window = ${sel} })`);
  await waitFor('the close', async () => !JSON.parse(await hyprRequest('j/clients')).some((c) => c.address === client.address));
  await hyprStep('dispatch-workspace', 'dispatch hl.dsp.focus({ workspace = "1" })');
  await sleep(1000);
  await hyprStep('dispatch-bad-address', 'dispatch hl.dsp.focus({ window = "address:0x1" })');
  await hyprStep('j-workspaces-end', 'j/workspaces');
  await hyprStep('j-clients-end', 'j/clients');
  await sleep(1000);
  ev.destroy();
}

// ------------------------------------------------------------------ sway
const MAGIC = Buffer.from('i3-ipc');
const frame = (type, payload = '') => {
  const p = Buffer.from(payload, 'utf8');
  const h = Buffer.alloc(14);
  MAGIC.copy(h, 0);
  h.writeUInt32LE(p.length, 6);
  h.writeUInt32LE(type, 10);
  return Buffer.concat([h, p]);
};
function frames(onFrame) {
  let buf = Buffer.alloc(0);
  return (d) => {
    buf = Buffer.concat([buf, d]);
    while (buf.length >= 14) {
      const len = buf.readUInt32LE(6);
      if (buf.length < 14 + len) break;
      onFrame(buf.readUInt32LE(10), buf.subarray(14, 14 + len).toString('utf8'));
      buf = buf.subarray(14 + len);
    }
  };
}

let swayReq = null;
async function swayConnect() {
  const sock = net.createConnection({ path: process.env.SWAYSOCK });
  const queue = [];
  sock.on('data', frames((type, payload) => queue.shift()?.({ type, payload })));
  await new Promise((res, rej) => sock.once('connect', res).once('error', rej));
  swayReq = (type, payload) => new Promise((res) => {
    queue.push(res);
    sock.write(frame(type, payload));
  });
  return sock;
}

async function swayStep(name, type, payload = '') {
  const r = await swayReq(type, payload);
  const file = fileName(name);
  writeFileSync(join(outDir, 'requests', file), r.payload);
  log({ request: { type, payload }, reply: { type: r.type, payload: r.payload }, file });
  return r.payload;
}

async function swayEvents() {
  const sock = net.createConnection({ path: process.env.SWAYSOCK });
  await new Promise((res, rej) => sock.once('connect', res).once('error', rej));
  sock.on('data', frames((type, payload) => {
    const e = { type: type >>> 0, event: (type & 0x7fffffff) >>> 0, payload };
    appendFileSync(join(outDir, 'events.txt'), `${JSON.stringify(e)}\n`);
    log({ event: e });
  }));
  const sub = JSON.stringify(['window', 'workspace', 'binding', 'shutdown']);
  log({ request: { type: 2, payload: sub }, on: 'event connection' });
  sock.write(frame(2, sub));
  return sock;
}

const findCon = (tree, pred) => {
  const walk = (n) => {
    if (pred(n)) return n;
    for (const c of [...(n.nodes ?? []), ...(n.floating_nodes ?? [])]) {
      const f = walk(c);
      if (f) return f;
    }
    return null;
  };
  return walk(tree);
};

async function recordSway() {
  const req = await swayConnect();
  const ev = await swayEvents();
  await sleep(500);
  const names = { 1: 'get_workspaces', 3: 'get_outputs', 4: 'get_tree', 5: 'get_marks', 7: 'get_version', 8: 'get_binding_modes', 9: 'get_config', 12: 'get_binding_state', 100: 'get_inputs', 101: 'get_seats' };
  for (const [t, name] of Object.entries(names)) await swayStep(name, Number(t));
  await swayStep('get_bar_config', 6);
  const title = 'hypruse record';
  await swayStep('command-exec', 0, `exec foot -a hypruse.record -T '${title}' sh -c 'sleep 5; printf "\\033]2;hypruse renamed\\007"; sleep 600'`);
  const con = await waitFor('the foot window', async () => findCon(JSON.parse((await swayReq(4)).payload), (x) => x.app_id === 'hypruse.record'));
  const id = con.id;
  await swayStep('get_tree-open', 4);
  await waitFor('the title change', async () => findCon(JSON.parse((await swayReq(4)).payload), (x) => x.id === id && x.name === 'hypruse renamed'));
  await swayStep('command-focus', 0, `[con_id=${id}] focus`);
  await swayStep('command-move-silent', 0, `[con_id=${id}] move container to workspace 2`);
  await sleep(1000);
  await swayStep('command-move-follow', 0, `[con_id=${id}] move container to workspace 3; [con_id=${id}] focus`);
  await sleep(1000);
  await swayStep('command-floating-toggle', 0, `[con_id=${id}] floating toggle`);
  await sleep(1000);
  await swayStep('get_tree-floating', 4);
  await swayStep('command-fullscreen-toggle', 0, `[con_id=${id}] fullscreen toggle`);
  await sleep(1000);
  await swayStep('get_tree-fullscreen', 4);
  await swayStep('command-mark', 0, `[con_id=${id}] mark --add hypruse-mark`);
  await swayStep('command-cursor-set', 0, 'seat seat0 cursor set 300 200');
  await swayStep('get_seats-moved', 101);
  execFileSync('grim', ['/tmp/hypruse-record-screencopy.png'], { timeout: 30000 * SCALE });
  await swayStep('command-workspace-quoted', 0, 'workspace "hypruse record"');
  await swayStep('command-bad', 0, '[con_id=1] focus');
  await swayStep('command-kill', 0, `[con_id=${id}] kill`);
  await waitFor('the close', async () => !findCon(JSON.parse((await swayReq(4)).payload), (x) => x.id === id));
  await swayStep('command-workspace', 0, 'workspace 1');
  await sleep(1000);
  await swayStep('get_workspaces-end', 1);
  await sleep(1000);
  ev.destroy();
  req.destroy();
}

try {
  if (comp === 'hyprland') await recordHyprland();
  else await recordSway();
  const versions = {};
  for (const [k, cmd] of Object.entries({ hyprland: ['Hyprland', '--version'], sway: ['sway', '--version'], grim: ['dpkg-query', '-W', 'grim'], foot: ['foot', '--version'] })) {
    try {
      versions[k] = execFileSync(cmd[0], cmd.slice(1), { encoding: 'utf8', timeout: 20000 * SCALE }).trim();
    } catch (e) {
      versions[k] = `unavailable: ${e.message.split('\n')[0]}`;
    }
  }
  writeFileSync(join(outDir, 'versions.json'), `${JSON.stringify(versions, null, 2)}\n`);
  process.stderr.write(`recorded ${n} requests into ${outDir}\n`);
} catch (e) {
  process.stderr.write(`record: ${e.stack ?? e}\n`);
  process.exitCode = 1;
} finally {
  for (const c of children) c.kill('SIGTERM');
  void spawn;
}
