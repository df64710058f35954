import { z } from 'zod';
import type { Server } from '@modelcontextprotocol/server';
import type { AnyTool } from '../../contracts/tool.js';
import type { Pipeline } from '../../pipeline/pipeline.js';
import type { ToolResult } from '../../result.js';
import type { HypruseConfig } from '../../config/schema.js';
import { HypruseError, toHypruseError } from '../../errors.js';
import { outputJsonSchema, outputMismatch } from '../output-schema.js';
import { errorText, resultJson } from '../render.js';
import { serverIdentity } from './front.js';
import { fitResult, toolTextBudget, type ResultLimits } from './limits.js';
import { RequestStateSeal, argsDigest, digest } from './request-state.js';

/** What the handlers need from a session. */
export interface McpSession {
  pipeline: Pipeline;
  config: HypruseConfig;
}

export interface McpServerOptions {
  name: string;
  version: string;
  /** The configuration the instructions are written for (the session's, once built). */
  config: HypruseConfig;
  /** Display name of the compositor, or null when none was found or it is not known yet. */
  compositor: string | null;
  /** A session built beforehand, or ... */
  pipeline?: Pipeline;
  /**
   * ... one built on the first request that needs it (tools/list, tools/call), so `initialize` is
   * answered before anything heavy loads. Called at most once; a failure is returned to that request
   * and the next one tries again.
   */
  session?: () => Promise<McpSession>;
}

type Content = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string };

/** JSON schema of a tool's input as listed to clients. */
export function inputJsonSchema(tool: AnyTool): Record<string, unknown> {
  const js = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete js.$schema;
  return js;
}

export { outputJsonSchema };

/** The tool `_meta` key that keeps a tool out of a host's deferred tool search (Claude Code). */
export const ALWAYS_LOAD = 'anthropic/alwaysLoad';

/** Whether a tool is listed as always loaded: by its name or the name it is listed under (`hypr`/`wm`), or "*". */
export function alwaysLoaded(config: HypruseConfig, name: string, listedAs: string): boolean {
  const wanted = config.mcp.alwaysLoad;
  return wanted.includes('*') || wanted.includes(name) || wanted.includes(listedAs);
}

/** Annotations are derived from the tool's one semantic field, `effect`, never hand-written. */
export function annotationsFor(tool: AnyTool, title: string) {
  const effect = tool.effect ?? (tool.kind === 'observe' ? 'observe' : 'destructive');
  return {
    title,
    readOnlyHint: effect === 'observe',
    destructiveHint: effect === 'destructive' || effect === 'open_world',
    idempotentHint: effect === 'observe',
    openWorldHint: effect === 'open_world',
  };
}

function contentOf(r: ToolResult, prefix?: string): Content[] {
  const out: Content[] = [];
  r.text.forEach((t, i) => out.push({ type: 'text', text: i === 0 && prefix ? `${prefix}${t}` : t }));
  if (r.image) out.push({ type: 'image', data: r.image.data.toString('base64'), mimeType: r.image.mime });
  if (r.observation) out.push(...contentOf(r.observation, 'then: '));
  return out;
}

/** How long a confirmation asked through a 2026-07-28 `input_required` may wait for the person's answer. */
export const CONFIRM_TTL_MS = 10 * 60_000;
let confirmSeal: RequestStateSeal | null = null;
/** One seal per process: its key is made here, kept in memory only, and shared by every MCP server (HTTP sessions too). */
function seal(): RequestStateSeal {
  return (confirmSeal ??= new RequestStateSeal(CONFIRM_TTL_MS));
}

const CONFIRM_KEY = 'confirm';
const confirmSchema = (message: string) => ({
  type: 'object' as const,
  properties: { confirm: { type: 'boolean' as const, title: 'Allow this action', description: message } },
  required: ['confirm'],
});

/** The per-request `_meta` envelope keys of the 2026-07-28 revision. */
const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';

/**
 * The MCP skin: the only module that imports the SDK (@modelcontextprotocol/server, v2). Tools are
 * listed with their JSON schemas and derived annotations; calls go through the pipeline; every error
 * is caught here so category, code and hint survive. One server serves either protocol era: a
 * 2025-06-18/2025-11-25 session (opened with `initialize`) or 2026-07-28 requests (no session, the
 * version and the client's capabilities in each request's `_meta`).
 *
 * Confirmations (a dangerous control, lifting the person's stop) ask the person: on a 2026-07-28
 * request through `input_required` (the call is refused before anything is done, answered with the
 * question and a sealed `requestState`, and runs again when the client calls back with the answer);
 * on a 2025 session through `elicitation/create` when the client declared elicitation; otherwise the
 * call is refused with the way to go on (the `confirm: true` argument once the person said yes).
 */
export async function createMcpServer(opts: McpServerOptions): Promise<Server> {
  const { Server, inputRequired, inputResponse } = await import('@modelcontextprotocol/server');
  const { config } = opts;
  let building: Promise<McpSession> | null = opts.pipeline ? Promise.resolve({ pipeline: opts.pipeline, config }) : null;
  const ready = (): Promise<McpSession> => {
    if (building) return building;
    if (!opts.session) throw new Error('createMcpServer needs a pipeline or a session builder');
    building = opts.session();
    building.catch(() => (building = null));
    return building;
  };
  const wm = opts.pipeline?.registry.find('hypr');
  const identity = serverIdentity({
    name: opts.name,
    version: opts.version,
    config,
    wmName: opts.pipeline ? (wm ? opts.pipeline.registry.nameOf(wm) : 'wm') : null,
    compositor: opts.compositor,
  });
  const server = new Server(identity.serverInfo, { capabilities: identity.capabilities, instructions: identity.instructions });

  server.setRequestHandler('tools/list', async () => {
    const { pipeline, config } = await ready();
    const registry = pipeline.registry;
    // the registry's order (built-in tools as documented, then plugins' in load order): the same on every start
    return {
      tools: registry.listed(config).map((tool) => {
        const name = registry.nameOf(tool);
        const alwaysLoad = alwaysLoaded(config, tool.name, name);
        const description = config.readonly ? (tool.readonlyDescription ?? tool.description) : config.background ? backgroundDescription(tool) : tool.description;
        return {
          name,
          title: tool.title,
          description,
          inputSchema: inputJsonSchema(tool) as { type: 'object'; [k: string]: unknown },
          outputSchema: outputJsonSchema(tool) as { type: 'object'; [k: string]: unknown },
          annotations: annotationsFor(tool, tool.title),
          ...(alwaysLoad ? { _meta: { [ALWAYS_LOAD]: true } } : {}),
        };
      }),
    };
  });

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const name = request.params.name;
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const progressToken = ctx.mcpReq._meta?.progressToken ?? (request.params._meta as { progressToken?: string | number } | undefined)?.progressToken;
    let progressCount = 0;
    const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
    const modern = typeof envelope?.[PROTOCOL_VERSION_KEY] === 'string';
    const clientCaps = (modern ? envelope?.[CLIENT_CAPABILITIES_KEY] : server.getClientCapabilities()) as { elicitation?: unknown } | undefined;
    const canAsk = Boolean(clientCaps?.elicitation);
    const limitsOf = (c: HypruseConfig): ResultLimits => ({ maxTokens: c.mcp.maxResultTokens, maxBytes: c.mcp.maxResultBytes });
    const failure = (err: unknown) => {
      const e = toHypruseError(err);
      return {
        isError: true,
        content: fitResult(name, [{ type: 'text', text: errorText(e) }], {}, limitsOf(config), { env: process.env, valid: () => true }).content,
        // not structuredContent: clients validate it against the tool's outputSchema even on errors
        _meta: { 'hypruse/error': { category: e.category, code: e.code, message: e.message, hint: e.hint ?? null, ...(e.data ? { data: e.data } : {}) } },
      };
    };

    // 2026-07-28: what the person answered in earlier rounds of this call, read only from a state this process sealed
    const approved: string[] = [];
    let declined: string | null = null;
    const rawState = ctx.mcpReq.requestState();
    if (modern && rawState !== undefined) {
      const opened = seal().open(rawState, name, args);
      if (!opened.ok) {
        return failure(new HypruseError('refused.request_state', `the confirmation state sent back is refused: ${opened.reason}; nothing was done`, { hint: 'call the tool again without requestState: the person is asked afresh' }));
      }
      approved.push(...opened.state.approved);
      const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRM_KEY);
      if (answer.kind === 'elicit' && answer.action === 'accept' && answer.content?.confirm === true) approved.push(opened.state.asking);
      else if (answer.kind === 'elicit') declined = opened.state.asking;
      // no answer at all: the question is asked again
    }
    let asking: string | null = null;
    let confirm: ((message: string) => Promise<boolean | null>) | undefined;
    if (modern && canAsk) {
      confirm = async (message) => {
        const d = digest(message);
        if (approved.includes(d)) return true;
        if (declined === d) return false;
        // refused for now (before anything was done); the client gets the question and calls again
        asking ??= message;
        return null;
      };
    } else if (!modern && canAsk) {
      confirm = async (message) => {
        const answer = await server.elicitInput({ message, requestedSchema: confirmSchema(message) }, { signal: ctx.mcpReq.signal });
        return answer.action === 'accept' && answer.content?.confirm === true;
      };
    }
    try {
      const { pipeline, config: sessionConfig } = await ready();
      const limits = limitsOf(sessionConfig);
      let r: ToolResult;
      try {
        r = await pipeline.call(name, args, {
          signal: ctx.mcpReq.signal,
          progress: (message) => {
            if (progressToken === undefined) return;
            void ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: ++progressCount, message } }).catch(() => undefined);
          },
          confirm,
          textBudget: toolTextBudget(limits),
        });
      } catch (err) {
        const question: string | null = asking;
        if (question === null) throw err;
        const requestState = seal().seal({ tool: name, args: argsDigest(args), asking: digest(question), approved });
        return inputRequired({ inputRequests: { [CONFIRM_KEY]: inputRequired.elicit({ message: question, requestedSchema: confirmSchema(question) }) }, requestState });
      }
      const structuredContent = resultJson(r);
      // a result that does not match the listed output schema is a bug: caught here (and by the tests), never shipped to the host
      const tool = pipeline.registry.get(name);
      const wrong = outputMismatch(tool, structuredContent);
      if (wrong) throw new HypruseError('error.internal', `hypruse bug: the ${name} result does not match its output schema (${wrong})`);
      const fitted = fitResult(name, contentOf(r), structuredContent, limits, {
        env: process.env,
        valid: (v) => outputMismatch(tool, v) === null,
      });
      return { content: fitted.content, structuredContent: fitted.structuredContent };
    } catch (err) {
      return failure(err);
    }
  });
  return server;
}

/**
 * Serve over stdio until stdin closes, either era (the SDK's serveStdio decides it from the opening
 * message; `make` builds the server for it, and may be called twice when a `server/discover` probe
 * is followed by a 2025 `initialize`). `streams` replace process.stdin/stdout (the stdio front's,
 * which replay what it read before the SDK loaded).
 */
export async function serveStdio(make: () => Promise<Server>, streams?: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream }): Promise<void> {
  const { serveStdio: serve, StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
  const transport = streams
    ? new StdioServerTransport(streams.stdin as import('node:stream').Readable, streams.stdout as import('node:stream').Writable)
    : new StdioServerTransport();
  const input = streams?.stdin ?? process.stdin;
  await new Promise<void>((resolve) => {
    // serveStdio owns the transport (its callbacks included) from here; stdin's end is the sign the host left
    serve(() => make(), { transport, onerror: (e) => process.stderr.write(`hypruse: mcp: ${e.message}\n`) });
    input.on('end', () => resolve());
    input.on('close', () => resolve());
  });
}

/** In background mode a tool's description says what of it works there (config `background`). */
function backgroundDescription(tool: AnyTool): string {
  const b = tool.background ?? (tool.kind === 'observe' ? { mode: 'yes' as const, note: 'observes without the seat' } : { mode: 'no' as const, note: 'it needs the seat' });
  const head = b.mode === 'yes' ? 'Works in background mode' : b.mode === 'a11y' ? 'Background mode (on): works through accessibility alone' : 'Background mode (on): refused';
  return `${tool.description} ${head}: ${b.note}.`;
}

export { serveHttpSeat, checkSeatRequest, seatHosts, RateLimit, type HttpSeatOptions } from './http.js';
export { RequestStateSeal, argsDigest, canonicalJson, digest, type ConfirmState } from './request-state.js';
