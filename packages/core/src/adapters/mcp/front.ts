/**
 * The MCP server's stdio front, loaded before the SDK, zod and the tools: it
 * reads stdin from the first moment and answers `initialize` itself with
 * exactly the result the SDK's Server gives (same protocol negotiation,
 * capabilities, server info and instructions), so a host has its reply while
 * the rest loads. Once the SDK server is connected, every byte read so far is
 * handed to the SDK's own stdio transport in order, the `initialize` request
 * included (so the SDK knows the client's capabilities and version); the
 * SDK's reply to that replayed request is not written again.
 */
import { PassThrough, Writable } from 'node:stream';
import { serverInstructions } from '../instructions.js';

/** The SDK's protocol versions (@modelcontextprotocol/sdk types.js); a unit test keeps them equal. */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [LATEST_PROTOCOL_VERSION, '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

export interface ServerIdentity {
  serverInfo: { name: string; version: string };
  capabilities: { tools: { listChanged: boolean }; logging: Record<string, never> };
  instructions: string;
}

/** What the server announces, from the configuration alone (the session is not built yet). */
export function serverIdentity(opts: {
  name: string;
  version: string;
  config: { readonly: boolean; dryRun: boolean; background?: boolean };
  wmName: string | null;
  compositor: string | null;
}): ServerIdentity {
  return {
    serverInfo: { name: opts.name, version: opts.version },
    capabilities: { tools: { listChanged: false }, logging: {} },
    instructions: serverInstructions({ readonly: opts.config.readonly, dryRun: opts.config.dryRun, background: opts.config.background === true, wmName: opts.wmName, compositor: opts.compositor }),
  };
}

/** The `initialize` result the SDK's Server computes for `requested` (its `_oninitialize`). */
export function initializeResult(id: ServerIdentity, requested: unknown): Record<string, unknown> {
  const protocolVersion = typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
  return { protocolVersion, capabilities: id.capabilities, serverInfo: id.serverInfo, ...(id.instructions ? { instructions: id.instructions } : {}) };
}

export interface StdioFront {
  /** Answers the first message now when it is a well-formed `initialize` request (waits for that line). */
  answerInitialize(id: ServerIdentity): Promise<void>;
  /** Streams for the SDK's StdioServerTransport: stdin from the first byte read, stdout without the repeated reply. */
  streams(): { stdin: PassThrough; stdout: Writable };
}

/** Starts buffering stdin now. `input`/`output` are process.stdin/stdout unless given (tests). */
export function startStdioFront(input: NodeJS.ReadableStream = process.stdin, output: NodeJS.WritableStream = process.stdout): StdioFront {
  const chunks: Buffer[] = [];
  let sink: PassThrough | null = null;
  let ended = false;
  let firstLine: string | null = null;
  let lineWaiters: Array<() => void> = [];
  const wake = () => {
    const w = lineWaiters;
    lineWaiters = [];
    for (const f of w) f();
  };
  const onData = (d: Buffer | string) => {
    const b = typeof d === 'string' ? Buffer.from(d) : d;
    if (sink) {
      sink.write(b);
      return;
    }
    chunks.push(b);
    if (firstLine === null) {
      const all = Buffer.concat(chunks);
      const nl = all.indexOf(10);
      if (nl >= 0) {
        firstLine = all.toString('utf8', 0, nl).replace(/\r$/, '');
        wake();
      }
    }
  };
  const onEnd = () => {
    ended = true;
    if (sink) sink.end();
    wake();
  };
  input.on('data', onData);
  input.on('end', onEnd);

  /** The id of the request answered early: the SDK's reply to it is not written twice. */
  let answered: string | number | null = null;
  let answeredText: string | null = null;

  return {
    async answerInitialize(identity) {
      if (firstLine === null && !ended) await new Promise<void>((r) => lineWaiters.push(r));
      if (firstLine === null) return;
      let msg: { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: { protocolVersion?: unknown; capabilities?: unknown; clientInfo?: unknown } };
      try {
        msg = JSON.parse(firstLine) as typeof msg;
      } catch {
        return; // the SDK reports it
      }
      const id = msg?.id;
      const p = msg?.params;
      // only a request the SDK's schema would accept: anything else is left for the SDK to answer or refuse
      if (msg?.jsonrpc !== '2.0' || msg.method !== 'initialize' || (typeof id !== 'string' && typeof id !== 'number')) return;
      if (typeof p !== 'object' || p === null || typeof p.protocolVersion !== 'string' || typeof p.capabilities !== 'object' || p.capabilities === null) return;
      const info = p.clientInfo as { name?: unknown; version?: unknown } | undefined;
      if (typeof info !== 'object' || info === null || typeof info.name !== 'string' || typeof info.version !== 'string') return;
      answered = id;
      answeredText = JSON.stringify({ result: initializeResult(identity, p.protocolVersion), jsonrpc: '2.0', id });
      output.write(`${answeredText}\n`);
    },
    streams() {
      const stdin = new PassThrough();
      for (const c of chunks) stdin.write(c);
      chunks.length = 0;
      sink = stdin;
      if (ended) stdin.end();
      let pending = '';
      const stdout = new Writable({
        write(chunk: Buffer, _enc, done) {
          if (answered === null) {
            output.write(chunk, () => done());
            return;
          }
          // the SDK writes one message per write call; hold text until its line is complete
          pending += chunk.toString('utf8');
          const nl = pending.indexOf('\n');
          if (nl < 0) return done();
          const line = pending.slice(0, nl);
          const rest = pending.slice(nl + 1);
          pending = '';
          let drop = false;
          try {
            const m = JSON.parse(line) as { id?: unknown; result?: unknown; error?: unknown };
            drop = m.id === answered && ('result' in m || 'error' in m);
          } catch {
            drop = false;
          }
          if (drop) {
            if (line !== answeredText) process.stderr.write(`hypruse bug: the early initialize reply differs from the SDK's: ${answeredText} vs ${line}\n`);
            answered = null;
            answeredText = null;
            if (rest) output.write(rest, () => done());
            else done();
            return;
          }
          output.write(`${line}\n${rest}`, () => done());
        },
      });
      return { stdin, stdout };
    },
  };
}
