import { describe, expect, it } from 'vitest';
import { belongsToProcess, parseProcStat, type ProcStat } from '../src/process-tree.js';

describe('process tree', () => {
  it('parses /proc/<pid>/stat even when the command name holds spaces and parentheses', () => {
    expect(parseProcStat('1234 (Web Content (x)) S 100 1234 99 0 -1 4194560')).toEqual({ pid: 1234, ppid: 100, pgrp: 1234, session: 99 });
    expect(parseProcStat('garbage')).toBeNull();
  });

  const table = (rows: Array<[number, number, number, number]>) => {
    const m = new Map<number, ProcStat>(rows.map(([pid, ppid, pgrp, session]) => [pid, { pid, ppid, pgrp, session }]));
    return (pid: number) => m.get(pid) ?? null;
  };

  it('accepts the child itself, descendants through ppid, and re-parented members of its session', () => {
    const read = table([
      [500, 1, 500, 500], // sh -c (setsid leader)
      [510, 500, 500, 500], // app
      [520, 510, 520, 500], // app's child in its own group
      [530, 1, 530, 500], // double-forked, re-parented to init, same session
      [600, 1, 600, 600], // unrelated
      [610, 600, 600, 600],
    ]);
    expect(belongsToProcess(500, 500, read)).toBe(true);
    expect(belongsToProcess(510, 500, read)).toBe(true);
    expect(belongsToProcess(520, 500, read)).toBe(true);
    expect(belongsToProcess(530, 500, read)).toBe(true);
    expect(belongsToProcess(610, 500, read)).toBe(false);
    expect(belongsToProcess(999, 500, read)).toBe(false);
  });

  it('follows the ppid chain when the session differs', () => {
    const read = table([
      [700, 1, 700, 700],
      [710, 700, 710, 710], // called setsid itself
      [720, 710, 720, 710],
    ]);
    expect(belongsToProcess(720, 700, read)).toBe(true);
  });
});
