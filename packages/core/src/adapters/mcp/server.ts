import { z } from 'zod';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AnyTool } from '../../contracts/tool.js';
import type { Pipeline } from '../../pipeline/pipeline.js';
import type { ToolResult } from '../../result.js';
import type { HypruseConfig } from '../../config/schema.js';
import { HypruseError, toHypruseError } from '../../errors.js';
import { outputJsonSchema, outputMismatch } from '../output-schema.js';
import { errorText, resultJson } from '../render.js';
import { serverIdentity } from './front.js';
import { fitResult, toolTextBudget, type ResultLimits } from './limits.js';

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

/**
 * The MCP skin: the only module that imports the SDK. Tools are listed with
 * their JSON schemas and derived annotations; calls go through the pipeline;
 * every error is caught here so category, code and hint survive.
 */
export async function createMcpServer(opts: McpServerOptions): Promise<Server> {
  const { Server } = await import('@modelcontextprotocol/sdk/server/index.js');
  const { ListToolsRequestSchema, CallToolRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
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

  server.setRequestHandler(ListToolsRequestSchema, async () => {
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

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name;
    const progressToken = request.params._meta?.progressToken;
    let progressCount = 0;
    const canElicit = Boolean(server.getClientCapabilities()?.elicitation);
    try {
      const { pipeline, config: sessionConfig } = await ready();
      const limits: ResultLimits = { maxTokens: sessionConfig.mcp.maxResultTokens, maxBytes: sessionConfig.mcp.maxResultBytes };
      const r = await pipeline.call(name, (request.params.arguments ?? {}) as Record<string, unknown>, {
        signal: extra.signal,
        progress: (message) => {
          if (progressToken === undefined) return;
          void extra
            .sendNotification({ method: 'notifications/progress', params: { progressToken, progress: ++progressCount, message } })
            .catch(() => undefined);
        },
        confirm: canElicit
          ? async (message) => {
              const answer = await server.elicitInput({
                message,
                requestedSchema: {
                  type: 'object',
                  properties: { confirm: { type: 'boolean', title: 'Allow this action', description: message } },
                  required: ['confirm'],
                },
              });
              return answer.action === 'accept' && answer.content?.confirm === true;
            }
          : undefined,
        textBudget: toolTextBudget(limits),
      });
      const structuredContent = resultJson(r);
      // a result that does not match the listed output schema is a bug: caught here (and by the tests), never shipped to the host
      const wrong = outputMismatch(pipeline.registry.get(name), structuredContent);
      if (wrong) throw new HypruseError('error.internal', `hypruse bug: the ${name} result does not match its output schema (${wrong})`);
      const tool = pipeline.registry.get(name);
      const fitted = fitResult(name, contentOf(r), structuredContent, limits, {
        env: process.env,
        valid: (v) => outputMismatch(tool, v) === null,
      });
      return { content: fitted.content, structuredContent: fitted.structuredContent };
    } catch (err) {
      const e = toHypruseError(err);
      const limits: ResultLimits = { maxTokens: config.mcp.maxResultTokens, maxBytes: config.mcp.maxResultBytes };
      return {
        isError: true,
        content: fitResult(name, [{ type: 'text', text: errorText(e) }], {}, limits, { env: process.env, valid: () => true }).content,
        // not structuredContent: clients validate it against the tool's outputSchema even on errors
        _meta: { 'hypruse/error': { category: e.category, code: e.code, message: e.message, hint: e.hint ?? null, ...(e.data ? { data: e.data } : {}) } },
      };
    }
  });
  return server;
}

/**
 * Serve over stdio until stdin closes. `streams` replace process.stdin/stdout (the stdio front's,
 * which replay what it read before the SDK loaded).
 */
export async function serveStdio(server: Server, streams?: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream }): Promise<void> {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const transport = streams
    ? new StdioServerTransport(streams.stdin as import('node:stream').Readable, streams.stdout as import('node:stream').Writable)
    : new StdioServerTransport();
  const input = streams?.stdin ?? process.stdin;
  await new Promise<void>((resolve, reject) => {
    transport.onclose = () => resolve();
    server.onclose = () => resolve();
    server.connect(transport).catch(reject);
    input.on('end', () => resolve());
  });
}

/** In background mode a tool's description says what of it works there (config `background`). */
function backgroundDescription(tool: AnyTool): string {
  const b = tool.background ?? (tool.kind === 'observe' ? { mode: 'yes' as const, note: 'observes without the seat' } : { mode: 'no' as const, note: 'it needs the seat' });
  const head = b.mode === 'yes' ? 'Works in background mode' : b.mode === 'a11y' ? 'Background mode (on): works through accessibility alone' : 'Background mode (on): refused';
  return `${tool.description} ${head}: ${b.note}.`;
}

export { serveHttpSeat, checkSeatRequest, seatHosts, RateLimit, type HttpSeatOptions } from './http.js';
