// A host that strips the environment: the built server starts with only HOME,
// PATH and XDG_RUNTIME_DIR (the desktop's runtime dir). Compositor discovery
// finds sway there, and the environment it discovered (the Wayland display,
// the sway socket) must reach input, capture, AT-SPI and launch: the typed
// text is read back from the app's own output, and the capture is compared
// pixel by pixel with grim reading the same region.
import { chmodSync, mkdtempSync, readFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireDesktop, swayNodes, waitFor } from '../support/desktop.js';
import { startServerExactEnv, type Server } from '../support/server.js';
import { settled, type Meta } from '../support/tools.js';

const desk = await requireDesktop();
const RUN = Math.random().toString(36).slice(2, 8);

function grim(env: Record<string, string>, region: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile('grim', ['-t', 'png', '-g', region, '-'], { env, encoding: 'buffer', maxBuffer: 64 << 20, timeout: 10000 }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
  });
}

async function rgb(bytes: Buffer | string): Promise<{ data: Buffer; width: number; height: number }> {
  const sharp = (await import('sharp')).default;
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

describe.skipIf(!desk)('the built server with only HOME, PATH and XDG_RUNTIME_DIR', () => {
  let server: Server;
  let window = '';

  beforeAll(async () => {
    // a fallback to the default display name would be the wrong display here
    expect(desk!.env.WAYLAND_DISPLAY).not.toBe('wayland-0');
    server = await startServerExactEnv({ HOME: process.env.HOME ?? '/root', PATH: process.env.PATH ?? '/usr/bin:/bin', XDG_RUNTIME_DIR: desk!.env.XDG_RUNTIME_DIR, HYPRUSE_INDICATOR: '0' });
  }, 60000);
  afterAll(async () => {
    if (window) await server?.call('wm', { action: 'close_window', target: window }).catch(() => undefined);
    await server?.close();
  });

  it('launches, types into and captures the right window on the desktop it discovered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hypruse-stripped-'));
    chmodSync(dir, 0o777);
    const out = join(dir, 'zenity.out');
    const title = `hypruse stripped ${RUN}`;
    const l = await server.call('launch', { command: `zenity --entry --title="${title}" --text="Name?" > ${out}`, workspace: '1' });
    expect(l.isError, l.text.join('\n')).toBe(false);
    window = String(l.data.address);
    const node = (await swayNodes()).find((n) => String(n.id) === window);
    expect(node?.name, 'sway lists the launched window').toBe(title);

    // AT-SPI through $XDG_RUNTIME_DIR/bus: the entry is readable
    await settled(server, window);
    const u = await server.call('ui', { window });
    expect(u.isError, u.text.join('\n')).toBe(false);

    // ASCII: the app runs in the C locale of a stripped environment and prints other characters as "?"
    const typed = `stripped ok ${RUN}`;
    const k = await server.call('keyboard', { action: 'type', text: typed, window });
    expect(k.isError, k.text.join('\n')).toBe(false);

    // capture: the same pixels grim reads from the desktop's own display
    const shot = await server.call('screenshot', { window, lossless: true });
    expect(shot.isError, shot.text.join('\n')).toBe(false);
    const meta = shot.data as unknown as Meta;
    expect(meta.path, 'file mode (the default) names the shot').toBeTruthy();
    const [x, y, w, h] = meta.geometry;
    const ours = await rgb(meta.path!);
    const theirs = await rgb(await grim(desk!.env, `${x},${y} ${w}x${h}`));
    expect([ours.width, ours.height]).toEqual([theirs.width, theirs.height]);
    let diff = 0;
    let lo = 255;
    let hi = 0;
    for (let i = 0; i < ours.data.length; i++) {
      diff += Math.abs(ours.data[i] - theirs.data[i]);
      lo = Math.min(lo, ours.data[i]);
      hi = Math.max(hi, ours.data[i]);
    }
    expect(hi - lo, 'the capture shows a window, not a blank frame').toBeGreaterThan(100);
    expect(diff / ours.data.length, 'mean difference per channel from grim').toBeLessThan(3);

    const enter = await server.call('keyboard', { action: 'key', keys: 'Return', window });
    expect(enter.isError, enter.text.join('\n')).toBe(false);
    await waitFor(() => readFileSync(out, 'utf8').trim() !== '', 5000, 'zenity printed the answer');
    expect(readFileSync(out, 'utf8').trim()).toBe(typed);
    await waitFor(async () => !(await swayNodes()).some((n) => String(n.id) === window), 5000, 'the entry closed');
    window = '';
  });
});
