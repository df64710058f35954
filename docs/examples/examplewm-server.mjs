// A stand-in examplewm for tests (docs/plugins.md): the IPC of the made-up
// compositor on a Unix socket, one JSON request per line. Its windows belong
// to real processes (`sleep`), so pids are real and a window goes when its
// process ends. Against your own compositor you open real app windows instead.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function startExamplewm() {
  const socket = join(mkdtempSync(join(tmpdir(), 'examplewm-')), 'ipc.sock');
  const monitor = { name: 'X-1', geometry: { x: 0, y: 0, width: 800, height: 600 }, scale: 1, transform: 0, focused: true, activeWorkspace: '1' };
  const workspaces = new Set(['1']);
  const windows = new Map();
  const children = new Set();
  let active = null;
  let n = 0;

  const desktop = () => ({
    compositor: 'examplewm',
    monitors: [monitor],
    workspaces: [...workspaces].map((w) => ({ id: w, name: w, monitor: 'X-1', windows: [...windows.values()].filter((x) => x.workspace === w).length, visible: w === monitor.activeWorkspace, focused: w === monitor.activeWorkspace })),
    windows: [...windows.values()].map((w) => ({ ...w, visible: w.workspace === monitor.activeWorkspace, focused: w.address === active })),
    activeWindow: active,
    activeWorkspace: monitor.activeWorkspace,
    cursor: null,
    layers: null,
  });

  const answer = (req) => {
    if (req.cmd === 'version') return { ok: true, version: '1.0' };
    if (req.cmd === 'desktop') return { ok: true, desktop: desktop() };
    if (req.cmd === 'focus') {
      const w = windows.get(req.address);
      if (!w) return { ok: false, missing: 'window', error: `no window ${req.address}` };
      monitor.activeWorkspace = w.workspace;
      active = w.address;
      return { ok: true };
    }
    if (req.cmd === 'workspace') {
      workspaces.add(req.name);
      monitor.activeWorkspace = req.name;
      active = null;
      return { ok: true };
    }
    return { ok: false, error: `unknown command ${req.cmd}` };
  };

  const server = createServer((c) => {
    let buf = '';
    c.on('error', () => {});
    c.on('data', (d) => {
      buf += d.toString('utf8');
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      let reply;
      try {
        reply = answer(JSON.parse(buf.slice(0, nl)));
      } catch (e) {
        reply = { ok: false, error: String(e) };
      }
      c.end(`${JSON.stringify(reply)}\n`);
    });
  });
  await new Promise((resolve) => server.listen(socket, resolve));

  return {
    socket,
    /** A window of a new process; it closes when the process ends. */
    openWindow({ title = 'window', appId = 'app', workspace = monitor.activeWorkspace } = {}) {
      const child = spawn('sleep', ['3600'], { stdio: 'ignore' });
      children.add(child);
      const address = `w${++n}`;
      workspaces.add(workspace);
      windows.set(address, { address, class: appId, title, pid: child.pid, geometry: { x: 100, y: 100, width: 400, height: 300 }, workspace, floating: true, fullscreen: false });
      active = address;
      child.once('exit', () => {
        children.delete(child);
        windows.delete(address);
        if (active === address) active = null;
      });
      return { pid: child.pid, address };
    },
    async stop() {
      for (const child of children) child.kill('SIGTERM');
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
