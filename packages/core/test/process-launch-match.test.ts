import { describe, expect, it } from 'vitest';
import { LAUNCH_TOKEN_VAR, LaunchMatcher, newLaunchToken } from '../src/process/launch-match.js';
import type { ProcessTable } from '../src/process/proc.js';

interface FakeProc {
  ppid: number;
  pgrp?: number;
  session?: number;
  env?: Record<string, string>;
}

/** A mutable fake process table; deleting a row ends that process. */
function fakeTable(rows: Record<number, FakeProc>, withGroups = true): ProcessTable & { reads: number } {
  const t = {
    reads: 0,
    parent: (pid: number) => (t.reads++, rows[pid]?.ppid ?? null),
    envVar: (pid: number, name: string) => rows[pid]?.env?.[name] ?? null,
    pids: () => Object.keys(rows).map(Number),
    ...(withGroups
      ? { group: (pid: number) => (rows[pid] ? { pgrp: rows[pid].pgrp ?? pid, session: rows[pid].session ?? pid } : null) }
      : {}),
  };
  return t;
}

describe('LaunchMatcher: ancestry, session and process group (detached spawn)', () => {
  const rows: Record<number, FakeProc> = {
    500: { ppid: 1, pgrp: 500, session: 500 }, // sh -c, setsid leader
    510: { ppid: 500, pgrp: 500, session: 500 }, // app
    520: { ppid: 510, pgrp: 520, session: 500 }, // app's child in its own group
    530: { ppid: 1, pgrp: 530, session: 500 }, // double-forked, re-parented to init, same session
    540: { ppid: 1, pgrp: 500, session: 540 }, // own session, still in the launched process group
    600: { ppid: 1, pgrp: 600, session: 600 }, // unrelated
    610: { ppid: 600, pgrp: 600, session: 600 },
  };

  it('accepts the child itself, descendants through ppid, and re-parented members of its session or group', () => {
    const m = new LaunchMatcher({ root: 500, table: fakeTable(rows) });
    for (const pid of [500, 510, 520, 530, 540]) expect(m.owns(pid), String(pid)).toBe(true);
  });

  it('refuses unrelated, unknown and invalid pids', () => {
    const m = new LaunchMatcher({ root: 500, table: fakeTable(rows) });
    for (const pid of [610, 600, 999, 1, 0, -5, 1.5, null, undefined]) expect(m.owns(pid), String(pid)).toBe(false);
  });

  it('follows the ppid chain when the descendant started its own session', () => {
    const m = new LaunchMatcher({
      root: 700,
      table: fakeTable({ 700: { ppid: 1 }, 710: { ppid: 700, pgrp: 710, session: 710 }, 720: { ppid: 710, pgrp: 720, session: 710 } }),
    });
    expect(m.owns(720)).toBe(true);
  });

  it('without group information (a simulator table) matches by ancestry only', () => {
    const m = new LaunchMatcher({ root: 500, table: fakeTable(rows, false) });
    expect(m.owns(520)).toBe(true);
    expect(m.owns(530)).toBe(false);
  });

  it('stops on a parent cycle instead of looping', () => {
    const table = fakeTable({ 800: { ppid: 801 }, 801: { ppid: 800 } }, false);
    expect(new LaunchMatcher({ root: 500, table }).owns(800)).toBe(false);
    expect(table.reads).toBeLessThanOrEqual(64);
  });
});

describe('LaunchMatcher: descendants recorded while alive', () => {
  it('keeps recognising a descendant after its launcher exited and it was re-parented', () => {
    const rows: Record<number, FakeProc> = { 90001: { ppid: 1 }, 90002: { ppid: 90001 }, 90003: { ppid: 90002, session: 90003, pgrp: 90003 } };
    const m = new LaunchMatcher({ root: 90001, table: fakeTable(rows) });
    m.refresh();
    expect([...m.known].sort()).toEqual([90001, 90002, 90003]);
    delete rows[90001];
    delete rows[90002];
    rows[90003].ppid = 1;
    expect(m.owns(90003)).toBe(true);
  });

  it('refresh records nothing when there is no root (the compositor started the process)', () => {
    const m = new LaunchMatcher({ token: 't', table: fakeTable({ 5: { ppid: 1 } }) });
    m.refresh();
    expect(m.known.size).toBe(0);
  });
});

describe('LaunchMatcher: the launch token', () => {
  const token = 'abc123';
  const rows: Record<number, FakeProc> = {
    40: { ppid: 1, env: { [LAUNCH_TOKEN_VAR]: token } }, // launcher, started by the compositor
    41: { ppid: 40 }, // a child that cleared its environment
    42: { ppid: 1, env: { [LAUNCH_TOKEN_VAR]: token } }, // re-parented, inherited the token
    43: { ppid: 1, env: { [LAUNCH_TOKEN_VAR]: 'other' } }, // another launch
    44: { ppid: 1 },
  };

  it('matches a process that carries the token or has an ancestor that does, and nothing else', () => {
    const m = new LaunchMatcher({ token, table: fakeTable(rows) });
    expect(m.owns(41)).toBe(true);
    expect(m.owns(42)).toBe(true);
    expect(m.owns(43)).toBe(false);
    expect(m.owns(44)).toBe(false);
  });

  it('a matched process stays matched after its ancestor is gone', () => {
    const local = structuredClone(rows);
    const m = new LaunchMatcher({ token, table: fakeTable(local) });
    expect(m.owns(41)).toBe(true);
    delete local[40];
    local[41].ppid = 1;
    expect(m.owns(41)).toBe(true);
  });

  it('is alive while a known process runs or any process carries the token', () => {
    const local: Record<number, FakeProc> = { 10: { ppid: 1 }, 11: { ppid: 1, env: { [LAUNCH_TOKEN_VAR]: token } } };
    const table = fakeTable(local);
    const m = new LaunchMatcher({ root: 10, token, table });
    expect(m.alive()).toBe(true);
    delete local[10];
    expect(m.alive()).toBe(true); // 11 carries the token
    delete local[11];
    expect(m.alive()).toBe(false);
    expect(new LaunchMatcher({ root: 10, table }).alive()).toBe(false);
  });

  it('makes fresh tokens that are safe bare shell words', () => {
    const a = newLaunchToken();
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(newLaunchToken()).not.toBe(a);
  });
});
