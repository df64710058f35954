import type { AnyTool, Intent, ToolContext, ToolServices } from '../contracts/tool.js';
import type { TrustCall, TrustLayer } from '../contracts/trust.js';
import type { HypruseConfig } from '../config/schema.js';
import type { SessionState } from '../session.js';
import type { Logger } from '../logger.js';
import type { ToolResult } from '../result.js';
import { CancelledError, HypruseError, toHypruseError } from '../errors.js';
import { composeLayers } from './compose.js';
import { dryRunServices } from './dry-gate.js';
import { inputForgettingServices } from './input-forget.js';
import { Mutex } from './mutex.js';
import { ToolRegistry } from './registry.js';
import { validateArgs } from './validate.js';

export type CallSource = 'mcp' | 'cli' | 'replay';

export interface PipelineOptions {
  config: HypruseConfig;
  session: SessionState;
  services: ToolServices;
  registry: ToolRegistry;
  layers: TrustLayer[];
  source: CallSource;
  logger: Logger;
  /** The session's environment; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
}

export interface CallOptions {
  signal?: AbortSignal;
  parent?: TrustCall | null;
  progress?: (message: string) => void;
  confirm?: (message: string) => Promise<boolean | null>;
  /** Characters a paging tool keeps its text within (the MCP host's limit); none when absent (the CLI). */
  textBudget?: number;
  /** Force a dry run for this call (CLI --dry-run). */
  dryRun?: boolean;
}

export const THEN_VALUES = ['none', 'desktop', 'screenshot', 'ui'] as const;
export type ThenValue = (typeof THEN_VALUES)[number];

let nextId = 1;

interface InternalCall extends TrustCall {
  holdsInput: boolean;
}

/**
 * One call, start to end: validate, build the context, resolve the intent
 * lazily, run the trust-layer onion around the handler, serialize input
 * delivery, and attach the `then=` observation.
 */
export class Pipeline {
  private readonly inputLock = new Mutex();
  private readonly run: (call: TrustCall) => Promise<ToolResult>;
  private readonly handlers = new WeakMap<TrustCall, () => Promise<ToolResult>>();

  /** The services tools get: input they send drops the accessibility backend's reusable reads. */
  private readonly forgetting: ToolServices;

  constructor(readonly opts: PipelineOptions) {
    this.forgetting = inputForgettingServices(opts.services);
    this.run = composeLayers(opts.layers, (call) => {
      const h = this.handlers.get(call);
      if (!h) throw new HypruseError('error.internal', 'no handler for call');
      return h();
    });
  }

  get registry(): ToolRegistry {
    return this.opts.registry;
  }

  async call(name: string, rawArgs: Record<string, unknown> | undefined, callOpts: CallOptions = {}): Promise<ToolResult> {
    const { config, session, registry } = this.opts;
    const tool = registry.get(name);
    const raw = rawArgs ?? {};
    const signal = callOpts.signal ?? new AbortController().signal;
    const parent = (callOpts.parent ?? null) as InternalCall | null;
    const dryRun = Boolean(config.dryRun || callOpts.dryRun || parent?.dryRun);
    const services = dryRun ? dryRunServices(this.forgetting) : this.forgetting;
    const listedName = registry.nameOf(tool);

    let call!: InternalCall;
    const ctx: ToolContext = {
      tool: listedName,
      kind: tool.kind,
      signal,
      config,
      session,
      dryRun,
      services,
      env: this.opts.env ?? process.env,
      invoke: (t, a) => this.call(t, a, { signal, parent: call, progress: callOpts.progress, confirm: callOpts.confirm, dryRun, textBudget: callOpts.textBudget }),
      textBudget: callOpts.textBudget ?? 0,
      progress: (m) => callOpts.progress?.(m),
      confirm: callOpts.confirm,
    };

    let intentPromise: Promise<Intent | null> | null = null;
    let args: Record<string, unknown> | null = null;
    const parseArgs = () => (args ??= validateArgs(listedName, tool.input, raw) as Record<string, unknown>);

    call = {
      id: nextId++,
      tool: listedName,
      kind: tool.kind,
      get args() {
        return parseArgs();
      },
      rawArgs: raw,
      definition: tool,
      intent: () =>
        (intentPromise ??= (async () => {
          const a = parseArgs();
          if (tool.kind !== 'act' || !tool.intent) return null;
          return tool.intent(a, ctx);
        })()),
      config,
      session,
      services,
      signal,
      dryRun,
      env: ctx.env,
      parent,
      source: parent?.source ?? this.opts.source,
      allowAuth: Boolean((raw as { allow_auth?: unknown }).allow_auth) || Boolean(parent?.allowAuth),
      confirmed: Boolean((raw as { confirm?: unknown }).confirm) || Boolean(parent?.confirmed),
      confirm: callOpts.confirm,
      notes: [],
      holdsInput: false,
    };

    this.handlers.set(call, async () => {
      const a = parseArgs();
      if (signal.aborted) throw new CancelledError();
      let release: (() => void) | null = null;
      if (tool.kind === 'act' && !hasLockInChain(parent)) {
        release = await this.inputLock.lock(signal);
        call.holdsInput = true;
      }
      try {
        await call.intent();
        return await tool.handle(a, ctx);
      } finally {
        release?.();
      }
    });

    let res: ToolResult;
    try {
      res = await this.run(call);
    } catch (err) {
      if (signal.aborted && !(err instanceof HypruseError)) throw new CancelledError();
      throw toHypruseError(err);
    }
    if (call.notes.length) res = { ...res, text: [...res.text.slice(0, 1).map((t) => `${t}; ${call.notes.join('; ')}`), ...res.text.slice(1)] };

    const then = (args as Record<string, unknown> | null)?.then as ThenValue | undefined;
    if (tool.kind === 'act' && then && then !== 'none' && !dryRun) {
      res = { ...res, observation: await this.observe(then, res, ctx) };
    }
    return res;
  }

  /** The then= observation; a failure never hides the action's success. */
  private async observe(then: ThenValue, res: ToolResult, ctx: ToolContext): Promise<ToolResult> {
    const args: Record<string, unknown> = {};
    if (then === 'screenshot') args.stable = true;
    if (then === 'ui' && res.observeWindow) args.window = res.observeWindow;
    try {
      return await ctx.invoke(then, args);
    } catch (err) {
      const e = toHypruseError(err);
      if (then === 'ui' && res.observeWindow) {
        // the acted window may have closed (OK, Close): fall back to the focused window
        try {
          const r = await ctx.invoke('ui', {});
          return { ...r, text: [`(the acted window ${res.observeWindow} is gone; showing the focused window)`, ...r.text] };
        } catch (err2) {
          const e2 = toHypruseError(err2);
          return { text: [`then=${then} failed: ${e2.category}: ${e2.message}`] };
        }
      }
      return { text: [`then=${then} failed: ${e.category}: ${e.message}`] };
    }
  }
}

function hasLockInChain(c: InternalCall | null): boolean {
  for (let p = c; p; p = p.parent as InternalCall | null) if (p.holdsInput) return true;
  return false;
}

export function listedTools(registry: ToolRegistry, config: HypruseConfig): AnyTool[] {
  return registry.listed(config);
}
