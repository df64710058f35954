// Shell verbs are separate processes: confinement to `launched` must still
// know which windows an earlier `hypruse launch` opened.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { killFixture, launchFixture, requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import { BIN } from '../support/server.js';

const run = promisify(execFile);
const desk = await requireDesktop();

async function verb(args: string[], extra: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  try {
    const r = await run(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', ...desk!.env, ...extra }, encoding: 'utf8', timeout: 30000 });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
}

describe.skipIf(!desk)('state kept between shell verbs', () => {
  it('confinement to launched allows the window an earlier verb launched and refuses another', async () => {
    const l = await verb(['launch', 'zenity --entry --title="cli state" --text=Name?', '--json']);
    expect(l.code, l.err).toBe(0);
    const addr = String(JSON.parse(l.out).result.address);
    const stranger = await launchFixture('zenity-question');
    const strangerAddr = String((await swayNodes()).find((n) => n.pid === stranger.pid)!.id);

    const ok = await verb(['keyboard', 'type', 'mine', '--window', addr], { HYPRUSE_CONFINE: 'launched' });
    expect(ok.code, ok.err).toBe(0);
    const no = await verb(['keyboard', 'type', 'not mine', '--window', strangerAddr], { HYPRUSE_CONFINE: 'launched' });
    expect(no.code).toBe(3);
    expect(no.err).toMatch(/refused: confine/);
    await verb(['wm', 'close_window', addr]);
  });

  it('pointer --image-x/--image-y in a later verb use the transform of the window screenshot an earlier verb took', async () => {
    const probe = await launchFixture('pointer-probe', { workspace: '2' });
    const addr = String(probe.conId);
    const env = { HYPRUSE_TAKEOVER_MS: '0' };
    const shot = await verb(['screenshot', '--window', addr, '--json'], env);
    expect(shot.code, shot.err).toBe(0);
    const meta = JSON.parse(shot.out).result as { geometry: number[]; scale: number };
    expect(meta.scale).toBe(1.5);
    const click = await verb(['pointer', 'click', '--image-x', '300', '--image-y', '150'], env);
    expect(click.code, click.err).toBe(0);
    // where GTK saw the press (surface-local), placed on the layout by sway's tree
    const line = await waitFor(() => readFileSync(probe.stdout, 'utf8').split('\n').find((l) => l.startsWith('press ')), 5000, 'the probe to report the click');
    const p = Object.fromEntries(line.slice(6).split(' ').map((kv) => kv.split('='))) as Record<string, string>;
    const n = (await swayNodes()).find((c) => c.id === probe.conId)!;
    const wr = n.window_rect ?? { x: 0, y: 0 };
    expect(Math.abs(n.rect.x + wr.x + Number(p.x) - (meta.geometry[0] + 300 / 1.5))).toBeLessThanOrEqual(1);
    expect(Math.abs(n.rect.y + wr.y + Number(p.y) - (meta.geometry[1] + 150 / 1.5))).toBeLessThanOrEqual(1);
    await killFixture(probe.pid);
  });
});
