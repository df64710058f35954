/**
 * The built server over real stdio, driven with raw JSON-RPC lines (no SDK
 * client in the way): spawn-to-initialize time, calls, and the server's RSS.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

export interface StdioServer {
  child: ChildProcessWithoutNullStreams;
  request(method: string, params: Record<string, unknown>, timeoutMs?: number): Promise<Record<string, unknown>>;
  notify(method: string, params?: Record<string, unknown>): void;
  rssKiB(): number;
  close(): Promise<void>;
}

const INIT = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hypruse-bench', version: '1' } };

/** Spawns `node BIN` with exactly `env` and resolves once it answered `initialize`; `ms` is spawn to reply. */
export async function spawnServer(bin: string, env: Record<string, string>): Promise<{ server: StdioServer; ms: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [bin], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const waiting = new Map<number, (msg: Record<string, unknown>) => void>();
  let nextId = 1;
  createInterface({ input: child.stdout }).on('line', (line) => {
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    const id = msg.id as number | undefined;
    if (id !== undefined && waiting.has(id)) {
      waiting.get(id)!(msg);
      waiting.delete(id);
    }
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const server: StdioServer = {
    child,
    request(method, params, timeoutMs = 30000) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`${method} got no answer in ${timeoutMs} ms; server stderr: ${stderr}`));
        }, timeoutMs);
        waiting.set(id, (m) => {
          clearTimeout(t);
          if (m.error) reject(new Error(`${method}: ${JSON.stringify(m.error)}`));
          else resolve(m.result as Record<string, unknown>);
        });
        void exited.then((code) => reject(new Error(`server exited (${code}) before answering ${method}; stderr: ${stderr}`)));
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    },
    notify(method, params = {}) {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
    },
    rssKiB() {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      return m ? Number(m[1]) : Number.NaN;
    },
    async close() {
      child.stdin.end();
      const t = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(t);
    },
  };
  await server.request('initialize', INIT, 20000);
  const ms = performance.now() - t0;
  server.notify('notifications/initialized');
  return { server, ms };
}
