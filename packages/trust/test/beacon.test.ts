import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BeaconWriter, beaconPath, createBeaconLayer, readBeacon, readBeacons, safeLabel } from '../src/index.js';
import { fakeCall } from './fakes.js';

const tmp = () => join(mkdtempSync(join(tmpdir(), 'hypruse-beacon-')), 'hypruse', 'state.json');

describe('beacon', () => {
  it('one per process, at $XDG_RUNTIME_DIR/hypruse/beacons/<pid>.json', () => {
    expect(beaconPath({ XDG_RUNTIME_DIR: '/run/user/7' })).toBe(`/run/user/7/hypruse/beacons/${process.pid}.json`);
    expect(beaconPath({ XDG_RUNTIME_DIR: '/run/user/7' }, 42)).toBe('/run/user/7/hypruse/beacons/42.json');
  });

  it('readBeacons lists the live ones and removes those of dead pids and of pids now run by other programs', async () => {
    const rt = mkdtempSync(join(tmpdir(), 'hypruse-beacons-'));
    const env = { XDG_RUNTIME_DIR: rt };
    const mine = new BeaconWriter(beaconPath(env));
    mine.announce(fakeCall().config, 'mcp');
    await mine.flush();
    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid!; // a pid that has exited
    writeFileSync(beaconPath(env, dead), JSON.stringify({ v: 1, pid: dead, started: 1, state: 'active', tool: 'x', action: 'x', since: 1, mode: {} }));
    const shell = spawn('sleep', ['30']); // alive, but not hypruse
    writeFileSync(beaconPath(env, shell.pid!), JSON.stringify({ v: 1, pid: shell.pid, started: 2, state: 'idle', tool: '', action: '', since: 1, mode: {} }));
    writeFileSync(join(rt, 'hypruse', 'beacons', `${dead}.json.123.tmp`), 'junk');
    try {
      const r = readBeacons(env);
      // vitest's worker runs as node .../vitest: its cmdline does not say hypruse, so only the dead pid and the sleep are judged here
      expect(r.stale.sort()).toEqual([dead, shell.pid].sort());
      expect(existsSync(beaconPath(env, dead))).toBe(false);
      expect(existsSync(beaconPath(env, shell.pid!))).toBe(false);
    } finally {
      shell.kill();
      mine.removeSync();
    }
  });

  it('is active with the tool and action while a call runs, idle after, 0600, and removed only by its owner', async () => {
    const path = tmp();
    const w = new BeaconWriter(path);
    const layer = createBeaconLayer(() => w);
    let during: unknown;
    const call = fakeCall({ tool: 'pointer', rawArgs: { action: 'click', x: 5 } });
    await layer.handle(call, async () => {
      await w.flush();
      during = JSON.parse(readFileSync(path, 'utf8'));
      return { text: ['ok'] };
    });
    expect(during).toMatchObject({ v: 1, pid: process.pid, state: 'active', tool: 'pointer', action: 'pointer:click', mode: { readonly: false, dry_run: false } });
    await w.flush();
    const after = readBeacon(path);
    expect(after).toMatchObject({ state: 'idle', action: 'pointer:click' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    w.removeSync();
    expect(existsSync(path)).toBe(false);
    writeFileSync(path, JSON.stringify({ pid: 1, state: 'idle' }));
    w.removeSync();
    expect(existsSync(path)).toBe(true); // someone else's beacon stays
  });

  it('stays active while any concurrent call runs, and goes idle on errors too', async () => {
    const path = tmp();
    const w = new BeaconWriter(path);
    const layer = createBeaconLayer(() => w);
    let release!: () => void;
    const slow = layer.handle(fakeCall({ tool: 'wait_for', rawArgs: { event: 'window_open' } }), () => new Promise((r) => (release = () => r({ text: ['x'] }))));
    await layer.handle(fakeCall({ tool: 'desktop', kind: 'observe' }), async () => { throw new Error('boom'); }).catch(() => undefined);
    await w.flush();
    expect(readBeacon(path)).toMatchObject({ state: 'active', action: 'wait_for:window_open' });
    release();
    await slow;
    await w.flush();
    expect(readBeacon(path)).toMatchObject({ state: 'idle' });
  });

  it('nested calls are covered by their parent', () => {
    const layer = createBeaconLayer(() => new BeaconWriter(tmp()));
    expect(layer.appliesTo!(fakeCall({ parent: fakeCall() }))).toBe(false);
    expect(layer.appliesTo!(fakeCall())).toBe(true);
  });

  it('sanitizes labels (arguments flow in before validation) and reports unreadable beacons', () => {
    expect(safeLabel('pointer:click"; rm -rf /\n')).toBe('pointer:clickrm-rf');
    expect(safeLabel('x'.repeat(100))).toHaveLength(64);
    const path = tmp();
    expect(readBeacon(path)).toBeNull();
    const w = new BeaconWriter(path);
    w.announce(fakeCall().config, 'mcp');
    return w.flush().then(() => {
      expect(readBeacon(path)).toMatchObject({ state: 'idle', mode: { source: 'mcp' } });
      writeFileSync(path, '{"no":"pid"}');
      expect(readBeacon(path)).toBe('unreadable');
      w.removeSync();
    });
  });
});
