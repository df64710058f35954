import { join } from 'node:path';
import { scaledMs } from '@hypruse/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export const BIN = join(import.meta.dirname, '../../packages/hypruse/bin/hypruse.js');

export type TextBlock = { type: 'text'; text: string };

export interface Server {
  client: Client;
  transport: StdioClientTransport;
  pid: number | null;
  call(name: string, args?: Record<string, unknown>): Promise<{ isError: boolean; text: string[]; data: Record<string, unknown>; raw: unknown }>;
  close(): Promise<void>;
}

/**
 * A host that shows the person the server's questions (MCP elicitation): `answer`
 * stands for the person's reply; `asked` collects the questions shown.
 */
export interface PersonAtHost {
  answer: (message: string) => boolean;
  asked?: string[];
}

/** The built server over real stdio, with the desktop environment passed explicitly (hosts strip it). */
export async function startServer(env: Record<string, string>, extra: Record<string, string> = {}, person?: PersonAtHost): Promise<Server> {
  return connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN],
      // the server under test follows the run's time policy (npm test measures HYPRUSE_TIME_SCALE from the load)
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/root',
        LANG: 'C.UTF-8',
        ...(process.env.HYPRUSE_TIME_SCALE ? { HYPRUSE_TIME_SCALE: process.env.HYPRUSE_TIME_SCALE } : {}),
        ...env,
        ...extra,
      },
      stderr: 'pipe',
    }),
    person,
  );
}

/** The built server with exactly this environment and nothing else (`env -i`: not even what the MCP SDK adds by default). */
export async function startServerExactEnv(env: Record<string, string>): Promise<Server> {
  return connect(
    new StdioClientTransport({
      command: '/usr/bin/env',
      args: ['-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), process.execPath, BIN],
      stderr: 'pipe',
    }),
  );
}

export async function connect(transport: StdioClientTransport, person?: PersonAtHost): Promise<Server> {
  const client = new Client({ name: 'hypruse-e2e', version: '1' }, person ? { capabilities: { elicitation: {} } } : undefined);
  if (person) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      person.asked?.push(req.params.message);
      return person.answer(req.params.message) ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
    });
  }
  await client.connect(transport);
  return {
    client,
    transport,
    pid: transport.pid,
    async call(name, args = {}) {
      // the MCP request ceiling follows the run's time policy (a sequence in the TCG guest takes minutes)
      const r = await client.callTool({ name, arguments: args }, undefined, { timeout: scaledMs(60000) });
      const text = (r.content as TextBlock[]).filter((c) => c.type === 'text').map((c) => c.text);
      return { isError: Boolean(r.isError), text, data: (r.structuredContent ?? {}) as Record<string, unknown>, raw: r };
    },
    async close() {
      await client.close();
    },
  };
}
