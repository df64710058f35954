// Another local user must not take over hypruse's fallback folder. Without a
// runtime dir (no XDG_RUNTIME_DIR, no /run/user/<uid>) hypruse keeps its
// beacon and stop/pause state in /tmp/hypruse-<uid>. Here a second user makes
// that folder first (mode 0777) with links at the names hypruse writes
// through, pointing at a file of the victim, and plants a stop state. The
// victim's verb must refuse the folder (error.unsafe_dir, naming it), leave
// the victim's file untouched and not read the planted state. Two throwaway
// users are made (CI runs as root); without root the test is skipped.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { describe, expect, it, beforeAll } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { BIN } from '../support/server.js';

const ROOT = process.getuid?.() === 0;
const VICTIM = 'hypruse-sec-victim';
const ATTACKER = 'hypruse-sec-attacker';

interface User {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

function ensureUser(name: string): User {
  const r = spawnSync('useradd', ['--create-home', '--shell', '/bin/sh', '--comment', 'hypruse security test', name], { encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 9) throw new Error(`useradd ${name}: ${r.stderr}`);
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith(`${name}:`))!;
  const f = line.split(':');
  return { name, uid: Number(f[2]), gid: Number(f[3]), home: f[5]! };
}

/** Run a shell script as `u` (no runtime dir, an empty environment). */
function asUser(u: User, script: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('/bin/sh', ['-c', script], { uid: u.uid, gid: u.gid, cwd: '/tmp', env: { HOME: u.home, PATH: '/usr/bin:/bin' }, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Run `hypruse <args>` as the victim, with no runtime dir. `beforeExec(pid)`
 * runs once the pid is known and before hypruse starts (the shell waits for a
 * line, then execs node under the same pid), so the attacker can plant links
 * at names made from it.
 */
function victimVerb(u: User, args: string[], beforeExec: (pid: number) => void): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', 'read go; exec "$0" "$@"', process.execPath, BIN, ...args], {
      uid: u.uid,
      gid: u.gid,
      cwd: '/tmp',
      env: { HOME: u.home, PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), scaledMs(20000));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    try {
      beforeExec(child.pid!);
    } catch (err) {
      child.kill('SIGKILL');
      reject(err);
      return;
    }
    child.stdin.end('go\n');
  });
}

describe.skipIf(!ROOT)('the fallback folder against another local user', () => {
  let victim: User;
  let attacker: User;
  let dir: string;
  let victimFile: string;
  const ORIGINAL = 'the victim wrote this\n';

  beforeAll(() => {
    victim = ensureUser(VICTIM);
    attacker = ensureUser(ATTACKER);
    expect(existsSync(`/run/user/${victim.uid}`), 'the victim must have no runtime dir').toBe(false);
    dir = `/tmp/hypruse-${victim.uid}`;
    victimFile = `${victim.home}/victim.txt`;
  });

  function fresh(): void {
    rmSync(dir, { recursive: true, force: true });
    expect(asUser(victim, `printf '${ORIGINAL.replace('\n', '\\n')}' > ${victimFile}`).status).toBe(0);
  }

  it('a 0777 folder made by another user, with links at the names hypruse writes, is refused and the victim file stays untouched', async () => {
    fresh();
    // the attacker plants a stop state the victim would obey, and a writable beacons folder
    const made = asUser(attacker, `mkdir -m 0777 ${dir} && mkdir -m 0777 ${dir}/beacons && chmod 0777 ${dir} ${dir}/beacons && printf '{"v":1,"state":"stopped","by":"nobody","at":1}\\n' > ${dir}/control.json && chmod 0666 ${dir}/control.json`);
    expect(made.status, made.stderr).toBe(0);
    const r = await victimVerb(victim, ['resume'], (pid) => {
      // every temporary name the old writer used, for this pid
      const links = [`${dir}/control.json.${pid}.tmp`, `${dir}/beacons/${pid}.json.${pid}.tmp`];
      const planted = asUser(attacker, links.map((l) => `ln -s ${victimFile} ${l}`).join(' && '));
      expect(planted.status, planted.stderr).toBe(0);
      for (const l of links) expect(readlinkSync(l)).toBe(victimFile);
    });
    expect(readFileSync(victimFile, 'utf8')).toBe(ORIGINAL);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toContain(`the folder ${dir} is not safe`);
    expect(r.stderr).toMatch(/belongs to uid \d+, not to you|others can write in it/);
    expect(r.stdout).not.toContain('resumed');
    // the attacker's state is where the attacker left it: hypruse wrote nothing into the folder
    expect(JSON.parse(readFileSync(`${dir}/control.json`, 'utf8')).by).toBe('nobody');
    expect(statSync(dir).uid).toBe(attacker.uid);
  });

  it('a folder that is a link to another user\'s folder is refused', async () => {
    fresh();
    const target = `/tmp/hypruse-sec-attacker-target`;
    rmSync(target, { recursive: true, force: true });
    expect(asUser(attacker, `mkdir -m 0777 ${target} && chmod 0777 ${target} && ln -s ${target} ${dir}`).status).toBe(0);
    const r = await victimVerb(victim, ['resume'], () => undefined);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toContain(`the folder ${dir} is not safe`);
    expect(spawnSync('ls', ['-A', target], { encoding: 'utf8' }).stdout.trim()).toBe('');
    rmSync(target, { recursive: true, force: true });
  });

  it('with no such folder, hypruse makes its own: 0700, the victim\'s, and the state file 0600', async () => {
    fresh();
    const r = await victimVerb(victim, ['resume'], () => undefined);
    expect(r.code, r.stderr).toBe(0);
    const st = lstatSync(dir);
    expect(st.isDirectory()).toBe(true);
    expect(st.uid).toBe(victim.uid);
    expect(st.mode & 0o777).toBe(0o700);
    expect(statSync(`${dir}/control.json`).mode & 0o777).toBe(0o600);
    expect(statSync(`${dir}/control.json`).uid).toBe(victim.uid);
    expect(readFileSync(victimFile, 'utf8')).toBe(ORIGINAL);
    rmSync(dir, { recursive: true, force: true });
  });
});
