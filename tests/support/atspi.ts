import { expect } from 'vitest';
import { scaledMs } from '@hypruse/core';
import { harness } from './desktop.js';

const DUMP = new URL('./atspi-dump.py', import.meta.url).pathname;

export interface AtspiNode {
  role: string;
  name: string;
  /** The description (GTK 4: the tooltip), when the object has one. */
  description?: string;
  states: string[];
  text?: string;
  value?: number;
  /** window-relative extents [x, y, width, height] */
  box?: [number, number, number, number];
}

/** An app's window tree (the window titled `title`, else its first) as libatspi reads it (python3-gi Atspi as the desktop user): the tests' independent reader. */
export async function atspi(pid: number, title?: string): Promise<AtspiNode[]> {
  const r = await harness(['exec', '--', '/usr/bin/python3', DUMP, String(pid), ...(title ? [title] : [])], scaledMs(30000));
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim().split('\n').map((l) => JSON.parse(l) as AtspiNode);
}

const CELLS = new URL('./atspi-cells.py', import.meta.url).pathname;

/** The top-left `rows` x `cols` cells of an app's spreadsheet, each cell's text, as libatspi reads them (without walking the sheet). */
export async function atspiCells(pid: number, rows: number, cols: number): Promise<string[][]> {
  const r = await harness(['exec', '--', '/usr/bin/python3', CELLS, String(pid), String(rows), String(cols)], scaledMs(30000));
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim()) as string[][];
}
