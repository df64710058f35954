// Instance discovery follows hyprctl: an instance counts only while the pid in
// its hyprland.lock runs (Hyprland removes only that file on exit, and a crash
// leaves everything behind).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { discoverSignature, resolveSockets } from '../src/ipc/socket-paths.js';

const servers: Server[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function runtime(): string {
  const d = mkdtempSync(join(tmpdir(), 'hypr-disc-'));
  dirs.push(d);
  return d;
}

async function sock(path: string): Promise<void> {
  const s = createServer();
  servers.push(s);
  await new Promise<void>((r) => s.listen(path, r));
}

/** A pid that surely ran and exited. */
function deadPid(): number {
  const r = spawnSync('sh', ['-c', 'echo $$']);
  return Number(r.stdout.toString().trim());
}

/** An instance dir with a listening .socket.sock; `lock` = pid to write, or null for no lock file; `age` seconds back. */
async function instance(rt: string, sig: string, lock: number | null, age = 0): Promise<void> {
  const dir = join(rt, 'hypr', sig);
  mkdirSync(dir, { recursive: true });
  await sock(join(dir, '.socket.sock'));
  if (lock !== null) writeFileSync(join(dir, 'hyprland.lock'), `${lock}\nwayland-1\n`);
  const t = Date.now() / 1000 - age;
  utimesSync(dir, t, t);
}

describe('Hyprland instance discovery', () => {
  it('skips the newest instance when its Hyprland is dead or its lock is gone, and takes the live one', async () => {
    const rt = runtime();
    await instance(rt, 'live_1', process.pid, 100);
    await instance(rt, 'crashed_2', deadPid(), 10);
    await instance(rt, 'exited_3', null, 0);
    const skipped: string[] = [];
    expect(discoverSignature(rt, skipped)).toBe('live_1');
    expect(skipped.join('\n')).toMatch(/crashed_2: its Hyprland \(pid \d+, from hyprland.lock\) is not running/);
    expect(skipped.join('\n')).toMatch(/exited_3: .*hyprland.lock is missing/);
  });

  it('with only dead instances there is none, and the reason names them', async () => {
    const rt = runtime();
    await instance(rt, 'crashed_2', deadPid());
    const r = resolveSockets(rt, {});
    expect('reason' in r && r.reason).toMatch(/no live Hyprland instance .*skipped dead instances: crashed_2/);
  });

  it('HYPRLAND_INSTANCE_SIGNATURE naming a dead instance is not used; a live one is discovered instead', async () => {
    const rt = runtime();
    await instance(rt, 'crashed_2', deadPid(), 0);
    await instance(rt, 'live_1', process.pid, 50);
    const r = resolveSockets(rt, { HYPRLAND_INSTANCE_SIGNATURE: 'crashed_2' });
    expect(r).toMatchObject({ sockets: { signature: 'live_1' }, discovered: true });
    const ok = resolveSockets(rt, { HYPRLAND_INSTANCE_SIGNATURE: 'live_1' });
    expect(ok).toMatchObject({ sockets: { signature: 'live_1' }, discovered: false });
  });
});

