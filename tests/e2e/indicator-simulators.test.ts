// The on-screen indicator against the Hyprland and niri protocol simulators.
// The indicator is drawn through the Wayland protocol (zwlr_layer_shell_v1),
// not the compositor's IPC, so what decides is the Wayland display: the
// simulators have none, and doctor says plainly that the indicator is not
// possible and why, while acting goes on undelayed; with the IPC of the
// Hyprland simulator and a real Wayland display (the headless sway desktop's),
// the indicator is drawn while a `hypr` call acts, as grim's capture shows.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { INDICATOR_ACCENT } from '@hypruse/wayland';
import { HyprlandSimulator } from '../simulators/hyprland/index.js';
import { NiriSimulator } from '../simulators/niri/niri-simulator.js';
import { requireDesktop, waitFor } from '../support/desktop.js';
import { BIN, startServer, type Server } from '../support/server.js';

// a real Wayland display for the hybrid test: without one it skips loudly, and under CI it is an error
const desk = (await requireDesktop({ reset: false }))?.env ?? null;

function doctorJson(env: Record<string, string>): Promise<{ checks: Array<{ name: string; ok: boolean; detail: string; fix?: string }> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'doctor', '--json'], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: mkdtempSync(join(tmpdir(), 'hypruse-ind-home-')), ...env } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    const kill = setTimeout(() => child.kill('SIGKILL'), scaledMs(20000));
    child.on('close', () => {
      clearTimeout(kill);
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() ?? ''));
      } catch (e) {
        reject(new Error(`doctor --json printed no report: ${out}`, { cause: e }));
      }
    });
  });
}

function stderrOf(server: Server): () => string {
  let text = '';
  server.transport.stderr?.on('data', (d: Buffer) => (text += d.toString('utf8')));
  return () => text;
}

const SIMS = [
  { name: 'Hyprland', start: async () => new HyprlandSimulator({ version: '0.54', processes: 'fake' }).start(), act: { tool: 'hypr', args: { action: 'workspace', workspace: '2' } } },
  { name: 'niri', start: async () => NiriSimulator.start(), act: { tool: 'wm', args: { action: 'workspace', workspace: '2' } } },
] as const;

for (const sim of SIMS) {
  describe(`indicator on the ${sim.name} simulator (no Wayland display)`, () => {
    let s: Awaited<ReturnType<(typeof sim)['start']>>;
    beforeAll(async () => {
      s = await sim.start();
    });
    afterAll(async () => {
      await s?.stop();
    });

    it('doctor says it is not possible and why; acting goes on without it', async () => {
      const report = await doctorJson(s.env);
      const line = report.checks.find((c) => c.name === 'indicator')!;
      expect(line.ok).toBe(false);
      expect(line.detail).toMatch(/^indicator not possible: no Wayland display at \/\S+ \(the surfaces are drawn by the compositor's Wayland server, whatever its IPC\)$/);
      expect(line.fix).toMatch(/HYPRUSE_INDICATOR=0/);

      const server = await startServer(s.env, { HYPRUSE_TAKEOVER_MS: '0' });
      const stderr = stderrOf(server);
      try {
        const r = await server.call(sim.act.tool, sim.act.args);
        expect(r.isError, r.text.join('\n')).toBe(false);
        // the compositor got the request (its own log), the indicator's failure stayed inside it, said once
        const again = await server.call(sim.act.tool, sim.act.args);
        expect(again.isError, again.text.join('\n')).toBe(false);
        await waitFor(() => /on-screen indicator failed: /.test(stderr()), 10000, 'the indicator\'s warning');
        expect(stderr().match(/on-screen indicator failed: /g)).toHaveLength(1);
      } finally {
        await server.close();
      }
    });
  });
}

describe.skipIf(!desk)('indicator with the Hyprland simulator\'s IPC and a real Wayland display', () => {
  let sim: HyprlandSimulator;
  let server: Server;
  beforeAll(async () => {
    // the simulator keeps its own runtime directory (nothing shared with the desktop's sessions); the display is given by its absolute path
    sim = await new HyprlandSimulator({ version: '0.54', processes: 'fake' }).start();
    server = await startServer({ ...sim.env, WAYLAND_DISPLAY: join(desk!.XDG_RUNTIME_DIR, desk!.WAYLAND_DISPLAY), HYPRUSE_COMPOSITOR: 'hyprland' }, { HYPRUSE_TAKEOVER_MS: '0', HYPRUSE_INDICATOR_HOLD_MS: '20000' });
  });
  afterAll(async () => {
    await server?.close();
    await sim?.stop();
  });

  it('draws the edge glow while a hypr call acts (grim)', async () => {
    const r = await server.call('hypr', { action: 'workspace', workspace: '2' });
    expect(r.isError, r.text.join('\n')).toBe(false);
    expect(sim.dispatches.length).toBeGreaterThan(0);
    const accent = [1, 3, 5].map((i) => parseInt(INDICATOR_ACCENT.slice(i, i + 2), 16));
    await waitFor(
      () =>
        new Promise<boolean>((resolve) => {
          execFile('grim', ['-t', 'ppm', '-g', '0,400 1x1', '-'], { env: { ...process.env, ...desk! }, encoding: 'buffer', timeout: scaledMs(10000) }, (err, out) => {
            if (err) return resolve(false);
            const px = [...out.subarray(out.length - 3)];
            resolve(Math.max(...px.map((v, i) => Math.abs(v - accent[i]!))) <= 40);
          });
        }),
      15000,
      'the glow at the left edge of HEADLESS-1',
    );
  });
});
