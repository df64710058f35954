// The monitor page in background mode: the person sees what the agent does out
// of their sight. The page's own feed (its event stream, read over HTTP as the
// page reads it) lists the agent's window on the agent's workspace, where sway
// (its own IPC, the independent reader) has it, and drops it when it closes.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireDesktop, swaymsg, swayNodes, waitFor } from '../support/desktop.js';
import { stopLaunched } from '../support/apps.js';
import { startServer, type Server } from '../support/server.js';

const desk = await requireDesktop();

interface AgentView {
  view: string;
  workspace: string;
  window: string;
  title: string;
  class: string;
  note?: string;
}

describe.skipIf(!desk)('the monitor page shows the agent of background mode', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hypruse-bg-monitor-'));
  const config = join(dir, 'hypruse.json');
  writeFileSync(config, JSON.stringify({ monitor: { serve: true, fps: 4 } }));
  let server: Server;
  let stderr = '';
  let feed: ClientRequest | null = null;
  /** Every event of the page's stream: name and parsed data. */
  const events: Array<{ event: string; data: any }> = [];
  let pid = 0;

  beforeAll(async () => {
    server = await startServer(desk!.env, { HYPRUSE_BACKGROUND: '1', HYPRUSE_CONFIG: config, HYPRUSE_TAKEOVER_MS: '0' });
    server.transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const url = (await waitFor(() => /monitor page: (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]+\/)/.exec(stderr)?.[1], 20000, 'the monitor address on stderr'))!;
    // the page's event stream, as its script opens it (same origin, the token in the path)
    const u = new URL(`${url}events`);
    feed = request({ host: u.hostname, port: u.port, path: u.pathname, headers: { Accept: 'text/event-stream' } }, (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        buf += d;
        for (let end = buf.indexOf('\n\n'); end >= 0; end = buf.indexOf('\n\n')) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const name = /^event: (.+)$/m.exec(block)?.[1];
          const data = /^data: (.+)$/m.exec(block)?.[1];
          if (name && data) events.push({ event: name, data: JSON.parse(data) });
        }
      });
    });
    feed.on('error', () => undefined);
    feed.end();
    await waitFor(() => events.some((e) => e.event === 'hello'), 20000, "the page's hello");
  });

  afterAll(async () => {
    feed?.destroy();
    if (pid) await stopLaunched(pid).catch(() => undefined);
    await server?.close();
  });

  /** The agent views the page shows now: the last `agent` event, else the hello's. */
  const views = (): AgentView[] => {
    const last = [...events].reverse().find((e) => e.event === 'agent' || e.event === 'hello');
    return (last?.event === 'agent' ? last.data : (last?.data.agent ?? [])) as AgentView[];
  };
  const outputs = (): string[] => ([...events].reverse().find((e) => e.event === 'outputs' || e.event === 'hello')?.event === 'outputs'
    ? [...events].reverse().find((e) => e.event === 'outputs')!.data
    : [...events].reverse().find((e) => e.event === 'hello')!.data.outputs) as string[];

  it("lists the agent's window where sway has it, out of the person's sight, and drops it when it closes", async () => {
    const r = await server.call('launch', { command: 'zenity --entry --title=agent-on-the-page --text=Name?', wait_s: 20 });
    expect(r.isError, r.text.join('\n')).toBe(false);
    pid = Number(r.data.pid);
    const address = String(r.data.address);
    const node = (await swayNodes()).find((n) => String(n.id) === address)!;
    expect(node.workspace).toMatch(/^hypruse-agent-\d+$/);
    const shownWs = (await swaymsg<Array<{ name: string; output: string; visible: boolean }>>('-t', 'get_workspaces')).find((w) => w.name === node.workspace)!;
    if (shownWs.visible) {
      // sway 1.8+: the agent's workspace is the one shown on an output of the agent's own, which the page lists as an output
      await waitFor(() => outputs().includes(shownWs.output), 10000, `the page to list the agent's output ${shownWs.output}`);
    } else {
      // a workspace none of the person's outputs shows: the window is a view of its own on the page
      const v = await waitFor(() => views().find((x) => x.window === address), 10000, "the page to list the agent's window");
      expect(v).toMatchObject({ workspace: node.workspace, window: address, title: 'agent-on-the-page', class: 'zenity' });
      expect(outputs()).toContain(v!.view);
      const version = (await swaymsg<{ minor: number; major: number }>('-t', 'get_version'));
      if (version.major === 1 && version.minor < 8) expect(v!.note).toMatch(/no image: sway cannot capture a window it does not show/);
    }
    await stopLaunched(pid);
    pid = 0;
    await waitFor(async () => !(await swayNodes()).some((n) => String(n.id) === address), 5000, 'the window to close');
    await waitFor(() => !views().some((x) => x.window === address) && !outputs().some((o) => o.includes(address)), 10000, 'the page to drop the closed window');
  });
});
