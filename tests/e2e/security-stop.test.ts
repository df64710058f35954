// Only the person lifts the person's stop. Stop and Pause are pressed on the
// monitor page (over HTTP, as the page's buttons send them) of a real MCP
// server on the headless sway desktop; the agent's `resume` over MCP, from a
// client that cannot ask the person, is refused (refused.stopped_by_person)
// and acting tools stay refused, read back from the shared state file and
// sway's own workspace list. `hypruse resume` without a terminal is refused
// too; at a terminal (a pty) it asks, and only "y" lifts the stop; the page's
// Resume lifts it.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { requireDesktop, swaymsg, waitFor } from '../support/desktop.js';
import { BIN, startServer, type Server } from '../support/server.js';

const desk = await requireDesktop();

const dir = mkdtempSync(join(tmpdir(), 'hypruse-sec-stop-'));
const CONFIG = join(dir, 'hypruse.json');
writeFileSync(CONFIG, JSON.stringify({ monitor: { serve: true, fps: 1 }, takeoverMs: 0, stopChord: 'off' }));

const controlFile = () => join(desk!.env.XDG_RUNTIME_DIR, 'hypruse', 'control.json');
const control = (): { state: string; by: string } => (existsSync(controlFile()) ? JSON.parse(readFileSync(controlFile(), 'utf8')) : { state: 'running', by: '' });

function post(url: string, action: string): Promise<{ status: number; body: string }> {
  const u = new URL(`${url}control`);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { Host: u.host, 'content-type': 'application/json' }, timeout: 10000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ action }));
  });
}

/** `hypruse resume` as a shell command: through a pty (`script`) when `tty`, answering `answer`; else with a pipe for stdin. */
function cliResume(tty: boolean, answer: string): Promise<{ code: number | null; out: string }> {
  const env = { ...process.env, ...desk!.env, HYPRUSE_CONFIG: CONFIG };
  const [cmd, args] = tty ? ['script', ['-qec', `${process.execPath} ${BIN} resume`, '/dev/null']] : [process.execPath, [BIN, 'resume']];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd as string, args as string[], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), scaledMs(20000));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
    // the answer arrives once the question is up (a pty drops input typed before the program reads it only if it flushes; readline does not)
    if (tty) {
      const iv = setInterval(() => {
        if (/\[y\/N\]/.test(out)) {
          clearInterval(iv);
          child.stdin.end(`${answer}\n`);
        }
      }, 20);
      child.on('exit', () => clearInterval(iv));
    } else child.stdin.end(`${answer}\n`);
  });
}

async function focusedWorkspace(): Promise<string> {
  const ws = await swaymsg<Array<{ name: string; focused: boolean }>>('-t', 'get_workspaces');
  return ws.find((w) => w.focused)!.name;
}

describe.skipIf(!desk)('only the person lifts the person\'s stop', () => {
  let server: Server;
  let url = '';
  let stderr = '';

  beforeAll(async () => {
    server = await startServer(desk!.env, { HYPRUSE_CONFIG: CONFIG });
    server.transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    url = (await waitFor(() => /monitor page: (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]+\/)/.exec(stderr)?.[1], 20000, 'the monitor address on stderr'))!;
  });
  afterAll(async () => {
    if (url) await post(url, 'resume').catch(() => undefined);
    await server?.close();
    if (control().state !== 'running') writeFileSync(controlFile(), JSON.stringify({ v: 1, state: 'running', by: 'test', at: Date.now() }));
  });

  it('Stop on the page: the agent\'s resume is refused, acting stays refused; Pause likewise; the page\'s Resume lifts it', async () => {
    const start = await focusedWorkspace();
    const other = start === '7' ? '8' : '7';
    expect((await post(url, 'stop')).status).toBe(200);
    expect(control().state).toBe('stopped');

    const r = await server.call('resume', {});
    expect(r.isError).toBe(true);
    expect(r.text[0]).toMatch(/^refused: presence: hypruse was stopped by the monitor page, and only the person lifts that/);
    expect((r.raw as { _meta: Record<string, { code: string }> })._meta['hypruse/error']!.code).toBe('refused.stopped_by_person');
    expect(control().state).toBe('stopped');
    const act = await server.call('wm', { action: 'workspace', workspace: other });
    expect(act.text[0]).toMatch(/^refused: stopped by the person/);
    expect(await focusedWorkspace()).toBe(start);

    // a pause from the page is the person's too
    expect((await post(url, 'resume')).status).toBe(200);
    expect(control().state).toBe('running');
    expect((await post(url, 'pause')).status).toBe(200);
    const r2 = await server.call('resume', {});
    expect(r2.text[0]).toMatch(/^refused: presence: hypruse was paused by the monitor page/);
    expect(control().state).toBe('paused');

    expect((await post(url, 'resume')).status).toBe(200);
    expect(control().state).toBe('running');
    const ok = await server.call('wm', { action: 'workspace', workspace: other });
    expect(ok.isError, ok.text.join('\n')).toBe(false);
    await waitFor(async () => (await focusedWorkspace()) === other || null, 5000, 'sway to show the workspace');
    await swaymsg('workspace', start);
    // with nothing stopped, resume is a no-op the agent may call
    expect((await server.call('resume', {})).isError).toBe(false);
  });

  it('hypruse resume: refused without a terminal; at a terminal it asks, "n" keeps the stop and "y" lifts it', async () => {
    expect((await post(url, 'stop')).status).toBe(200);
    const piped = await cliResume(false, 'y');
    expect(piped.code, piped.out).toBe(3);
    expect(piped.out).toMatch(/refused: presence: hypruse was stopped by the monitor page, and only the person lifts that/);
    expect(control().state).toBe('stopped');

    const no = await cliResume(true, 'n');
    expect(no.out).toMatch(/hypruse was stopped by the monitor page\. Let the agent act again\? \[y\/N\]/);
    expect(no.out).toMatch(/the person declined to resume/);
    expect(no.code, no.out).toBe(3);
    expect(control().state).toBe('stopped');

    const yes = await cliResume(true, 'y');
    expect(yes.code, yes.out).toBe(0);
    expect(yes.out).toMatch(/resumed: hypruse was stopped by the monitor page/);
    expect(control()).toMatchObject({ state: 'running', by: 'the person (confirmed resume)' });
  });
});
