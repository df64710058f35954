// Helpers shared by the tool-level end-to-end tests.
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { killFixture, launchFixture, swayNodes, waitFor, type LaunchedFixture } from './desktop.js';
import { probe } from './atspi-probe.js';
import type { Server } from './server.js';

/** A `ui` element as the tool returns it. */
export interface El {
  role: string;
  name: string;
  x: number;
  y: number;
  clickable: boolean;
  checked?: boolean;
  value?: string | number;
  percent?: number;
}

/** Screenshot metadata (the coordinate contract). */
export interface Meta {
  target: string;
  geometry: [number, number, number, number];
  image: [number, number];
  scale: number;
  format: string;
  path?: string;
}

/**
 * A config file raising the AT-SPI ceiling (a11y.timeoutMs): gtk3-widget-factory
 * answers slowly on a loaded machine, and these tests measure behaviour, not load.
 */
export function slowA11yConfig(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'hypruse-tools-e2e-')), 'hypruse.json');
  writeFileSync(file, JSON.stringify({ a11y: { timeoutMs: 10000 } }));
  return file;
}

/** Whether a process is running (not gone, not a zombie). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Wait for zenity to exit and return what it printed (the entry text + "\n" on OK; "" on Cancel). */
export async function zenityAnswer(app: LaunchedFixture, timeoutMs = 5000): Promise<string> {
  try {
    await waitFor(() => !alive(app.pid), timeoutMs, `zenity ${app.pid} to exit`);
  } finally {
    if (alive(app.pid)) await killFixture(app.pid);
  }
  return readFileSync(app.stdout, 'utf8');
}

export async function focusedId(): Promise<number | null> {
  return (await swayNodes()).find((n) => n.focused)?.id ?? null;
}

/** Wait until two ui reads of a freshly mapped window agree (GTK re-lays it out for a moment after mapping). */
export async function settled(server: Server, window: string): Promise<void> {
  let last = '';
  for (let i = 0; i < 10; i++) {
    const r = await server.call('ui', { window });
    const now = JSON.stringify(r.data.elements ?? null);
    if (!r.isError && now === last) return;
    last = now;
    await new Promise((res) => setTimeout(res, 300));
  }
}

/** The controls of a window through the `ui` tool (must succeed). */
export async function ui(server: Server, window: string): Promise<El[]> {
  const r = await server.call('ui', { window });
  expect(r.isError, r.text.join('\n')).toBe(false);
  return r.data.elements as El[];
}

/**
 * A launcher for a zenity entry whose answer lands in a file, runnable under
 * confinement: `launch` then allows only one plain program (launch.allow), so
 * the redirection lives in this script, allowed by its absolute path.
 * `command(out, title)` is the launch command line.
 */
export function entryLauncher(): { script: string; command(out: string, title: string): string } {
  const dir = mkdtempSync(join(tmpdir(), 'hypruse-entry-'));
  const script = join(dir, 'entry.sh');
  writeFileSync(script, '#!/bin/sh\nout=$1\nshift\nexec zenity --entry "$@" > "$out"\n', { mode: 0o755 });
  return { script, command: (out, title) => `${script} ${out} --title="${title}" --text="Name?"` };
}

/** A zenity entry on workspace 1, focused (sway says so), addressed as the tools address it. */
export async function launchFocusedEntry(): Promise<LaunchedFixture & { address: string }> {
  const app = await launchFixture('zenity-entry', { workspace: '1' });
  await waitFor(async () => (await swayNodes()).find((n) => n.id === app.conId)?.focused, 10000, 'zenity focused');
  return { ...app, address: String(app.conId) };
}

/**
 * A three-step plan that types `one`, waits (up to 30 s) for workspace 3,
 * then types `two`: the person stops or takes over during the wait; the
 * field then holds only `one`.
 */
export function interruptiblePlan(address: string): Record<string, unknown> {
  return {
    steps: [
      { op: 'keyboard', action: 'type', text: 'one', window: address },
      { op: 'wait_for', event: 'workspace', match: '3', timeout_s: 30 },
      { op: 'keyboard', action: 'type', text: 'two', window: address },
    ],
    then: 'none',
  };
}

/** mousepad started on a workspace with its File menu built (it builds its menu bar a moment after its window
 * maps), and the path of a file to save, in a directory the desktop user may write. */
export async function launchMousepadToSave(workspace: string, prefix: string, fileName: string): Promise<{ app: LaunchedFixture; file: string }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o777);
  const app = await launchFixture('mousepad', { workspace });
  try {
    await waitFor(async () => (await probe(app.pid)).some((n) => n.role === 'menu' && n.name === 'File'), 30000, "mousepad's File menu");
  } catch (e) {
    await killFixture(app.pid);
    throw e;
  }
  return { app, file: join(dir, fileName) };
}
