/**
 * MCP server rows: spawn of the built server to its first `tools/list` answer in each protocol era
 * (a 2025-11-25 session opened with `initialize`; a 2026-07-28 request with no handshake, its version
 * and capabilities in `_meta`), and the server's resident memory once it listed its tools (the SDK,
 * zod and every tool loaded, no desktop call yet). Raw JSON-RPC lines, no SDK client in the way.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Elapsed, sleep } from './lib/measure.js';
import type { Row } from './lib/report.js';

type Fn = (i: number) => Promise<unknown>;
type RowFn = (r: Omit<Row, 'ours'>, ours: Fn, base: Fn | null, opts: { runs: number; baseRuns?: number; warmup?: number }) => Promise<Row>;
export type Era = '2025-11-25' | '2026-07-28';

const CLIENT = { name: 'hypruse-bench', version: '1' };
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': CLIENT,
};

/** Spawns the server, lists its tools in `era`; resolves with spawn-to-list ms, the RSS then (after `settleMs`) and a stop. */
export async function listOnce(bin: string, env: Record<string, string>, era: Era, settleMs = 0): Promise<{ ms: number; tools: number; rssKiB: number; hwmKiB: number; stop(): Promise<void> }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [bin], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const waiting = new Map<number, (m: Record<string, unknown>) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      const m = JSON.parse(line) as Record<string, unknown>;
      const w = waiting.get(m.id as number);
      if (w) {
        waiting.delete(m.id as number);
        w(m);
      }
    } catch {
      /* not a message */
    }
  });
  let next = 1;
  const request = (method: string, params: Record<string, unknown>) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = next++;
      const t = setTimeout(() => reject(new Error(`${era} ${method}: no answer in 30 s; stderr: ${stderr}`)), 30000);
      waiting.set(id, (m) => {
        clearTimeout(t);
        if (m.error) reject(new Error(`${era} ${method}: ${JSON.stringify(m.error).slice(0, 200)}`));
        else resolve(m.result as Record<string, unknown>);
      });
      void exited.then((code) => reject(new Error(`server exited (${code}) before ${method}; stderr: ${stderr}`)));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  const stop = async () => {
    child.stdin.end();
    const t = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(t);
  };
  try {
    let listed: Record<string, unknown>;
    if (era === '2025-11-25') {
      await request('initialize', { protocolVersion: era, capabilities: {}, clientInfo: CLIENT });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      listed = await request('tools/list', {});
    } else {
      listed = await request('tools/list', { _meta: MODERN_META });
    }
    const ms = performance.now() - t0;
    const tools = Array.isArray(listed.tools) ? listed.tools.length : 0;
    if (tools < 10) throw new Error(`${era} tools/list listed ${tools} tools`);
    if (settleMs) await sleep(settleMs);
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const kib = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN);
    return { ms, tools, rssKiB: kib('VmRSS'), hwmKiB: kib('VmHWM'), stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** The MCP rows of `npm run bench` (tests/bench/suite.ts calls this once, in its start-up group). */
export async function benchMcp(o: { row: RowFn; rows: Row[]; bin: string; env: Record<string, string>; floor: Fn; runs: number }): Promise<void> {
  for (const era of ['2025-11-25', '2026-07-28'] as const) {
    await o.row(
      {
        group: 'start-up',
        path: `MCP spawn to \`tools/list\` answer, ${era === '2025-11-25' ? '2025-11-25 session (`initialize` first)' : '2026-07-28 request (no handshake)'}`,
        baseline: { name: '`node -e 0`', stats: null },
        note: 'every tool loaded and listed; the session is built on this first list',
      },
      async () => {
        const r = await listOnce(o.bin, o.env, era);
        await r.stop();
        return new Elapsed(r.ms);
      },
      o.floor,
      { runs: o.runs, warmup: 1 },
    );
    try {
      const r = await listOnce(o.bin, o.env, era, 1500);
      await r.stop();
      o.rows.push({ group: 'memory', path: `server RSS after the first \`tools/list\` (${era}), idle; peak in brackets`, ours: null, value: `${(r.rssKiB / 1024).toFixed(1)} MiB (peak ${(r.hwmKiB / 1024).toFixed(1)} MiB)` });
    } catch (e) {
      o.rows.push({ group: 'memory', path: `server RSS after the first \`tools/list\` (${era})`, ours: null, error: (e as Error).message.split('\n')[0].slice(0, 160) });
    }
  }
}
