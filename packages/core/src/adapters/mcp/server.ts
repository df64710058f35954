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

/** How long a confirmation asked through a 2026-07-28 `input_required` may wait for the person's answer, unless config mcp.confirmTimeoutS says otherwise. */
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

type Step = { kind: 'ask'; question: string } | { kind: 'done'; result: ToolResult } | { kind: 'failed'; error: unknown };

/**
 * A 2026-07-28 call that asked the person: it keeps running in this process, paused in its confirm
 * callback, while the client relays the question and calls back with the answer. Each request that
 * attends it gets its next step (another question, or the end), and lends it its cancellation and its
 * progress. A question nobody answers in time is answered "cannot ask" (the call ends refused).
 */
class WaitingCall {
  private readonly abort = new AbortController();
  private onProgress: (message: string) => void = () => undefined;
  private next: ((s: Step) => void) | null = null;
  private queued: Step | null = null;
  private pendingAnswer: ((answer: boolean | null) => void) | null = null;
  private asked: string | null = null;
  private expiry: NodeJS.Timeout | null = null;

  constructor(start: (confirm: (message: string) => Promise<boolean | null>, signal: AbortSignal, progress: (message: string) => void) => Promise<ToolResult>) {
    start(
      (question) =>
        new Promise<boolean | null>((resolve) => {
          this.pendingAnswer = resolve;
          this.asked = question;
          this.emit({ kind: 'ask', question });
        }),
      this.abort.signal,
      (m) => this.onProgress(m),
    ).then(
      (result) => this.emit({ kind: 'done', result }),
      (error: unknown) => this.emit({ kind: 'failed', error }),
    );
  }

  private emit(s: Step): void {
    if (this.next) {
      const n = this.next;
      this.next = null;
      n(s);
    } else this.queued = s;
  }

  /** The next step, seen by the request now attending (its cancellation cancels the call). */
  attend(signal: AbortSignal, progress: (message: string) => void): Promise<Step> {
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = null;
    this.onProgress = progress;
    const cancel = () => this.abort.abort(signal.reason);
    if (signal.aborted) cancel();
    signal.addEventListener('abort', cancel, { once: true });
    let step: Promise<Step>;
    if (this.queued) {
      step = Promise.resolve(this.queued);
      this.queued = null;
    } else if (this.pendingAnswer && this.asked !== null) {
      // the question is still open (the client came back without an answer): asked again
      step = Promise.resolve({ kind: 'ask', question: this.asked });
    } else {
      step = new Promise<Step>((resolve) => {
        this.next = resolve;
      });
    }
    return step.finally(() => signal.removeEventListener('abort', cancel));
  }

  /** The question is not parked: answered "cannot ask" (the call ends refused, with its way on). */
  dismiss(): void {
    const r = this.pendingAnswer;
    this.pendingAnswer = null;
    this.asked = null;
    r?.(null);
  }

  /** The person's answer to the question asked. */
  answer(yes: boolean): void {
    const r = this.pendingAnswer;
    this.pendingAnswer = null;
    this.asked = null;
    r?.(yes);
  }

  /** Waits, named by `nonce`, for the next request; after `ttlMs` the question is dropped ("cannot ask"). */
  park(nonce: string, ttlMs: number): void {
    this.onProgress = () => undefined;
    waitingCalls.set(nonce, this);
    this.expiry = setTimeout(() => {
      waitingCalls.delete(nonce);
      const r = this.pendingAnswer;
      this.pendingAnswer = null;
      this.asked = null;
      r?.(null);
    }, ttlMs);
    this.expiry.unref();
  }
}

/** Calls waiting for the person's answer, by the nonce of the state sent with their question. */
const waitingCalls = new Map<string, WaitingCall>();
/** At most this many questions wait at once (a client that asks and never answers cannot pile calls up). */
const MAX_WAITING_CALLS = 16;

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

    try {
      const { pipeline, config: sessionConfig } = await ready();
      const limits = limitsOf(sessionConfig);
      const progress = (notify: typeof ctx.mcpReq.notify) => (message: string) => {
        if (progressToken === undefined) return;
        void notify({ method: 'notifications/progress', params: { progressToken, progress: ++progressCount, message } }).catch(() => undefined);
      };
      const finish = (r: ToolResult) => {
        const structuredContent = resultJson(r);
        // a result that does not match the listed output schema is a bug: caught here (and by the tests), never shipped to the host
        const tool = pipeline.registry.get(name);
        const wrong = outputMismatch(tool, structuredContent);
        if (wrong) throw new HypruseError('error.internal', `hypruse bug: the ${name} result does not match its output schema (${wrong})`);
        const fitted = fitResult(name, contentOf(r), structuredContent, limits, { env: process.env, valid: (v) => outputMismatch(tool, v) === null });
        return { content: fitted.content, structuredContent: fitted.structuredContent };
      };

      if (modern) {
        // 2026-07-28: a question is answered in a later request; the call waits where it asked (nothing done
        // twice), named by the nonce of the sealed state the client sends back with the answer
        let run: WaitingCall;
        const rawState = ctx.mcpReq.requestState();
        if (rawState !== undefined) {
          const opened = seal().open(rawState, name, args);
          const waiting = opened.ok ? waitingCalls.get(opened.nonce) : undefined;
          if (!opened.ok || !waiting) {
            const why = opened.ok ? 'the call it answers is no longer waiting (its question expired, or the server restarted)' : opened.reason;
            return failure(new HypruseError('refused.request_state', `the confirmation state sent back is refused: ${why}; nothing was done`, { hint: 'call the tool again without requestState: the person is asked afresh' }));
          }
          waitingCalls.delete(opened.nonce);
          run = waiting;
          const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRM_KEY);
          // no answer at all: the same question is asked again
          if (answer.kind === 'elicit') run.answer(answer.action === 'accept' && answer.content?.confirm === true);
        } else {
          run = new WaitingCall((confirm, signal, onProgress) =>
            pipeline.call(name, args, { signal, progress: onProgress, confirm: canAsk ? confirm : undefined, textBudget: toolTextBudget(limits) }),
          );
        }
        let step = await run.attend(ctx.mcpReq.signal, progress(ctx.mcpReq.notify));
        if (step.kind === 'ask' && waitingCalls.size >= MAX_WAITING_CALLS) {
          // so many questions already wait for the person that this one is not parked: answered "cannot ask"
          run.dismiss();
          step = await run.attend(ctx.mcpReq.signal, progress(ctx.mcpReq.notify));
        }
        if (step.kind === 'done') return finish(step.result);
        if (step.kind === 'failed') throw step.error;
        const ttlMs = sessionConfig.mcp.confirmTimeoutS * 1000;
        const { token, nonce } = seal().seal({ tool: name, args: argsDigest(args), asking: digest(step.question) }, ttlMs);
        run.park(nonce, ttlMs);
        return inputRequired({ inputRequests: { [CONFIRM_KEY]: inputRequired.elicit({ message: step.question, requestedSchema: confirmSchema(step.question) }) }, requestState: token });
      }

      // a 2025 session: the question goes out as elicitation/create while the call waits, when the client can show it
      const r = await pipeline.call(name, args, {
        signal: ctx.mcpReq.signal,
        progress: progress(ctx.mcpReq.notify),
        confirm: canAsk
          ? async (message) => {
              const answer = await server.elicitInput({ message, requestedSchema: confirmSchema(message) }, { signal: ctx.mcpReq.signal });
              return answer.action === 'accept' && answer.content?.confirm === true;
            }
          : undefined,
        textBudget: toolTextBudget(limits),
      });
      return finish(r);
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
