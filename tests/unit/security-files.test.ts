// Files hypruse writes are made without following links, and wl_shm buffers
// and keymaps are anonymous memfds with no path another user could plant.
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, readdirSync, rmSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensurePrivateDir, writeFileExclusiveSync, writeFileExclusive, HypruseError } from '@hypruse/core';
import { ShmFile } from '@hypruse/wayland';

const base = mkdtempSync(join(tmpdir(), 'hypruse-sec-files-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('private files', () => {
  it('a link at the final name is replaced, not written through', async () => {
    const dir = ensurePrivateDir(join(base, 'a'));
    const victim = join(base, 'victim.txt');
    writeFileSync(victim, 'untouched');
    symlinkSync(victim, join(dir, 'control.json'));
    writeFileExclusiveSync(join(dir, 'control.json'), '{"v":1}');
    symlinkSync(victim, join(dir, 'beacon.json'));
    await writeFileExclusive(join(dir, 'beacon.json'), '{"v":2}');
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(lstatSync(join(dir, 'control.json')).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(dir, 'control.json'), 'utf8')).toBe('{"v":1}');
    expect(lstatSync(join(dir, 'beacon.json')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual(['beacon.json', 'control.json']); // no temporary left behind
  });

  it('a folder others can write in, or a link, is refused with error.unsafe_dir naming it', () => {
    const open = join(base, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(() => ensurePrivateDir(open)).toThrow(HypruseError);
    try {
      ensurePrivateDir(open);
    } catch (err) {
      expect((err as HypruseError).code).toBe('error.unsafe_dir');
      expect((err as HypruseError).message).toContain(open);
    }
    const link = join(base, 'link');
    symlinkSync(ensurePrivateDir(join(base, 'real')), link);
    expect(() => ensurePrivateDir(link)).toThrow(/is a symbolic link/);
  });

  it('a folder of ours that others can read is narrowed to 0700', () => {
    const d = join(base, 'readable');
    mkdirSync(d, { mode: 0o755 });
    chmodSync(d, 0o755);
    ensurePrivateDir(d);
    expect(lstatSync(d).mode & 0o777).toBe(0o700);
  });
});

describe('shared-memory files', () => {
  it('are memfds: no path exists, and the bytes round-trip', async () => {
    const f = await ShmFile.create('shm', {});
    try {
      expect(f.kind).toBe('memfd');
      expect(readlinkSync(`/proc/self/fd/${f.fd}`)).toMatch(/^\/memfd:hypruse-shm/);
      await f.truncate(4096);
      const data = Buffer.from('pixels '.repeat(100));
      await f.write(data, 0);
      const back = Buffer.alloc(data.length);
      await f.read(back, 0);
      expect(back.equals(data)).toBe(true);
    } finally {
      await f.close();
    }
  });
});
