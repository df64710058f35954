// Shell verbs are separate processes: confinement to `launched` must still
// know which windows an earlier `hypruse launch` opened.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { launchFixture, requireDesktop, swayNodes } from '../support/desktop.js';
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
});
