// The kit of the background-mode measure (tests/e2e/background-tasks.test.ts):
// tool calls of a background-mode server whose refused.background answers end a
// task as refused, the task recorder (completed / refused before anything was
// sent / failed), background launch onto the agent's workspace, and sway's view
// of an app's windows. The person's window, the focus watcher and the figure
// stay in the test file; task modules (e.g. the browsers') take the kit.
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { swayNodes, type Desktop, type SwayNode } from './desktop.js';
import type { Server } from './server.js';
import { stopLaunched } from './apps.js';
import type { SwayWatcher } from './sway-events.js';

export type Outcome = 'completed' | 'refused' | 'failed';

export interface TaskResult {
  app: string;
  task: string;
  outcome: Outcome;
  detail: string;
}

/** A tool call answered refused.background: the task cannot be done in background mode. */
export class Refused extends Error {}

export interface Launched {
  pid: number;
  /** sway's con id of the window launch returned. */
  window: string;
  /** The dialogs launch reported beside the window (e.g. LibreOffice's Tip of the Day). */
  dialogs: Array<{ address: string; title: string }>;
}

export interface BackgroundKit {
  /** One tool call of a task: refused.background throws Refused, another error throws Error. */
  call(tool: string, args: Record<string, unknown>): Promise<{ text: string[]; data: Record<string, unknown> }>;
  /**
   * Run one task: `run` does it and judges its effect; when a call is refused, `untouched`
   * judges that nothing of it reached the app (a refusal after something was sent, or a focus
   * change during the task, counts as failed). Returns whether it completed.
   */
  task(app: string, name: string, run: () => Promise<void>, untouched?: () => Promise<void>): Promise<boolean>;
  /** Background launch; asserts the window is on the agent's workspace, which the person does not see. */
  launch(command: string, waitS?: number): Promise<Launched>;
  /** sway's windows (tiled or floating) of a pid. */
  windowsOf(pid: number): Promise<SwayNode[]>;
  /** An `untouched` judge: after a moment, the pid has as many windows as `before`. */
  noNewWindow(pid: number, before: number): () => Promise<void>;
  /** Every task's outcome so far, in order. */
  readonly results: TaskResult[];
  /** The focus events sway reported so far ("NAME (pid PID)"). */
  readonly focusEvents: string[];
  /** A folder every user may write to, for the tasks' files. */
  readonly out: string;
  /** Stop every app the kit launched, by pid. */
  stop(): Promise<void>;
}

const errCode = (r: { raw: unknown }) => (r.raw as { _meta?: Record<string, { code?: string }> })._meta?.['hypruse/error']?.code;

/** The kit over a background-mode server on the test desktop, its focus judged by `watcher`. */
export function backgroundKit(server: Server, _desk: Desktop, watcher: SwayWatcher): BackgroundKit {
  const results: TaskResult[] = [];
  const pids: number[] = [];
  const out = mkdtempSync(join(tmpdir(), 'hypruse-bgt-out-'));
  chmodSync(out, 0o777);

  async function call(tool: string, args: Record<string, unknown>) {
    const r = await server.call(tool, args);
    if (r.isError && errCode(r) === 'refused.background') throw new Refused(`${tool}: ${r.text[0]}`);
    if (r.isError) throw new Error(`${tool} ${JSON.stringify(args)}: ${r.text.join(' ')}`);
    return r;
  }

  async function task(app: string, name: string, run: () => Promise<void>, untouched: () => Promise<void> = async () => undefined): Promise<boolean> {
    const focusBefore = watcher.focus().length;
    const focusNow = () => watcher.focus().slice(focusBefore);
    try {
      await run();
      if (focusNow().length) throw new Error(`focus changed: ${focusNow().join(', ')}`);
      results.push({ app, task: name, outcome: 'completed', detail: '' });
      return true;
    } catch (e) {
      if (e instanceof Refused) {
        try {
          await untouched();
          if (focusNow().length) throw new Error(`focus changed: ${focusNow().join(', ')}`);
          results.push({ app, task: name, outcome: 'refused', detail: e.message });
        } catch (u) {
          results.push({ app, task: name, outcome: 'failed', detail: `refused after something was sent: ${(u as Error).message} (${e.message})` });
        }
      } else {
        results.push({ app, task: name, outcome: 'failed', detail: (e as Error).message });
      }
      return false;
    }
  }

  const windowsOf = async (pid: number) => (await swayNodes()).filter((n) => n.pid === pid && (n.type === 'con' || n.type === 'floating_con'));
  const noNewWindow = (pid: number, before: number) => async () => {
    await new Promise((r) => setTimeout(r, scaledMs(800)));
    const now = (await windowsOf(pid)).length;
    if (now !== before) throw new Error(`${now - before} window(s) of pid ${pid} opened`);
  };

  async function launch(command: string, waitS = 40): Promise<Launched> {
    const l = await server.call('launch', { command, wait_s: waitS });
    expect(l.isError, l.text.join('\n')).toBe(false);
    const pid = Number(l.data.pid);
    pids.push(pid);
    const window = String(l.data.address);
    const node = (await swayNodes()).find((n) => String(n.id) === window);
    expect(node?.workspace, `${command}: its window on the agent's workspace`).toMatch(/^hypruse-agent-\d+$/);
    return { pid, window, dialogs: (l.data.dialogs ?? []) as Launched['dialogs'] };
  }

  return {
    call,
    task,
    launch,
    windowsOf,
    noNewWindow,
    results,
    get focusEvents() {
      return watcher.focus();
    },
    out,
    stop: async () => {
      for (const pid of pids.splice(0)) await stopLaunched(pid).catch(() => undefined);
    },
  };
}
