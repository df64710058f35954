import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import {
  HypruseError, UsageError, Pipeline, privateRuntimeDir, setTimeScale, Tokens, ToolRegistry, UnavailableCompositor, loadConfig, newSession, runtimeDir, selectCompositor, sessionEnvironment,
  stderrLogger, type AnyTool, type Input, type CallSource, type Compositor, type CompositorEnv, type CompositorFactory, type HyprusePlugin,
  type LoadedConfig, type Logger, type Selection, type SessionState, type ToolServices, type TrustLayer, type HypruseConfig,
} from '@hypruse/core';
import { BUILTIN_PLUGINS } from './builtin.js';
import { loadPlugin, orderPlugins } from './plugins.js';
import { cliStatePath, loadCliState, saveCliState } from './cli-state.js';
import { createPresence } from './presence.js';
import { LayerShellIndicator } from '@hypruse/wayland';
import { deskEnvironment, deskProblem, findDesk, startDesk, stopDesk, stopOwnedDesks, type DeskState } from './desk/desk.js';

export interface SessionOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  source: CallSource;
  /** Skip compositor selection (help, config). */
  noCompositor?: boolean;
  /** Override config values after loading (CLI flags, tests). */
  overrides?: (c: HypruseConfig) => HypruseConfig;
  /** Replace the built-in plugins (tests). */
  plugins?: HyprusePlugin[];
  logger?: Logger;
  /** Skip the config file search (tests). */
  noFile?: boolean;
  /** The configuration, already loaded (the MCP server loads it before `initialize`). */
  loaded?: LoadedConfig;
}

export interface Session {
  container: DependencyContainer;
  loaded: LoadedConfig;
  config: HypruseConfig;
  compositor: Compositor;
  selection: Selection | null;
  registry: ToolRegistry;
  pipeline: Pipeline;
  state: SessionState;
  services: ToolServices;
  logger: Logger;
  /** The session environment (Tokens.SessionEnv). */
  env: NodeJS.ProcessEnv;
  /** The private desk this session works in (config `desk`); `owned`: started for it, stopped by dispose. */
  desk: { name: string; owned: boolean } | null;
  dispose(): Promise<void>;
}

/** The composition root: one child container per session (one MCP connection or one CLI run). */
export async function createSession(opts: SessionOptions): Promise<Session> {
  let env = opts.env ?? process.env;
  const logger = opts.logger ?? stderrLogger();
  const loaded = opts.loaded ?? (await loadConfig({ cwd: opts.cwd, env, noFile: opts.noFile }));
  const config = opts.overrides ? opts.overrides(loaded.config) : loaded.config;
  setTimeScale(config.timeScale);
  const c = rootContainer.createChildContainer();
  c.register(Tokens.Config, { useValue: config });
  c.register(Tokens.Logger, { useValue: logger });

  const thirdParty: HyprusePlugin[] = [];
  for (const spec of config.plugins) thirdParty.push(await loadPlugin(spec, loaded.baseDir));
  const plugins = orderPlugins([...(opts.plugins ?? BUILTIN_PLUGINS), ...thirdParty]);
  for (const p of plugins) {
    try {
      await p.register(c, { config, baseDir: loaded.baseDir });
    } catch (err) {
      throw new HypruseError('error.plugin', `plugin "${p.name}" failed to register: ${(err as Error).message}`, { cause: err });
    }
  }

  let compositor: Compositor = new UnavailableCompositor([{ id: 'none', reason: 'compositor not selected for this command' }]);
  let selection: Selection | null = null;
  const factories = c.isRegistered(Tokens.CompositorFactory, true) ? c.resolveAll<CompositorFactory>(Tokens.CompositorFactory) : [];
  // a private desk: its environment replaces the person's session, and its compositor is the one selected
  let desk: { state: DeskState; owned: boolean } | null = null;
  if (!opts.noCompositor && config.desk !== 'off') {
    desk = await openDesk(config.desk, opts.source, factories, env);
    env = deskEnvironment(desk.state, env, true);
  }
  const compEnv: CompositorEnv = { env, runtimeDir: runtimeDir(env) };
  if (!opts.noCompositor) selection = await selectCompositor(factories, compEnv, desk ? desk.state.compositor : config.compositor);
  // one session environment: what discovery found beats the host's (which may be stripped); every backend, trust layer and launched command starts from it
  const sessionEnv = sessionEnvironment(env, selection?.env);
  c.register(Tokens.SessionEnv, { useValue: sessionEnv });
  // the folder of the beacon and the stop/pause state: made private, or refused (error.unsafe_dir) before any call runs
  if (!opts.noCompositor) privateRuntimeDir(sessionEnv);
  if (selection) {
    compositor = selection.factory ? await selection.factory.create({ env: sessionEnv, runtimeDir: runtimeDir(sessionEnv) }) : new UnavailableCompositor(selection.reasons);
  }
  c.register(Tokens.Compositor, { useValue: compositor });
  const presence = createPresence(sessionEnv, config, opts.source === 'mcp');
  c.register(Tokens.Presence, { useValue: presence });
  // shown by the MCP server only: a CLI run ends with its action, before the person could read it
  const indicator = new LayerShellIndicator({ env: sessionEnv, enabled: config.indicator && opts.source === 'mcp', holdMs: config.indicatorHoldMs, logger });
  c.register(Tokens.Indicator, { useValue: indicator });

  const tools = c.isRegistered(Tokens.ToolPlugin, true) ? c.resolveAll<AnyTool>(Tokens.ToolPlugin) : [];
  const layers = c.isRegistered(Tokens.TrustLayer, true) ? c.resolveAll<TrustLayer>(Tokens.TrustLayer) : [];
  const manifest = selection?.factory?.manifest;
  if (manifest && compositor.id !== 'none') c.register(Tokens.CompositorManifest, { useValue: manifest });
  const registry = new ToolRegistry(tools, compositor.id === 'none' ? null : (manifest ?? { id: compositor.id }));
  const state = newSession();
  const statePath = opts.source === 'cli' && compositor.id !== 'none' ? cliStatePath(compositor, sessionEnv) : null;
  if (statePath) loadCliState(statePath, state);
  const services: ToolServices = {
    get: <T,>(t: symbol) => c.resolve<T>(t),
    has: (t) => c.isRegistered(t, true),
  };
  const pipeline = new Pipeline({ config, session: state, services, registry, layers, source: opts.source, logger, env: sessionEnv });

  let disposed = false;
  return {
    container: c,
    loaded,
    config,
    compositor,
    selection,
    registry,
    pipeline,
    state,
    services,
    logger,
    env: sessionEnv,
    desk: desk ? { name: desk.state.name, owned: desk.owned } : null,
    async dispose() {
      if (disposed) return;
      disposed = true;
      if (statePath) saveCliState(statePath, state);
      await releaseInput(c, { final: true });
      await presence.dispose().catch(() => undefined);
      await indicator.dispose().catch(() => undefined);
      for (const t of [Tokens.Accessibility, Tokens.Input, Tokens.Capture] as const) {
        if (c.isRegistered(t, true)) {
          try {
            await (c.resolve(t) as { dispose?: () => Promise<void> }).dispose?.();
          } catch {
            /* best effort at shutdown */
          }
        }
      }
      await compositor.dispose().catch(() => undefined);
      c.clearInstances();
      if (desk?.owned) await stopDesk(desk.state, opts.env ?? process.env).catch((err) => logger.warn(`desk ${desk!.state.name} did not stop cleanly: ${(err as Error).message}`));
    },
  };
}

/** The desk the configuration names: `private` starts one owned by this MCP server; a name must be running. */
async function openDesk(wanted: string, source: CallSource, factories: CompositorFactory[], env: NodeJS.ProcessEnv): Promise<{ state: DeskState; owned: boolean }> {
  if (wanted !== 'private') {
    const state = findDesk(wanted, env);
    const problem = deskProblem(state);
    if (problem) throw new HypruseError('not_found.desk', `the private desk "${wanted}" is not usable: ${problem}`, { hint: `restart it: hypruse desk stop ${wanted} && hypruse desk start ${wanted}` });
    return { state, owned: false };
  }
  if (source !== 'mcp') {
    throw new UsageError('desk: "private" starts a desk for one MCP server and stops it when the server exits; for shell verbs start a desk with `hypruse desk start NAME` and set HYPRUSE_DESK=NAME', { code: 'usage.config' });
  }
  await stopOwnedDesks(env).catch(() => undefined); // desks of servers that ended without stopping theirs
  const self = process.argv[1] ? [process.execPath, process.argv[1]] : undefined;
  return { state: await startDesk({ factories, env, owner: process.pid, reaper: self }), owned: true };
}

/** Release held buttons/keys without waiting on any lock (signal handlers, stop). */
export async function releaseInput(c: DependencyContainer, opts?: { final?: boolean }): Promise<void> {
  if (!c.isRegistered(Tokens.Input, true)) return;
  try {
    await c.resolve<Input>(Tokens.Input).releaseAll(opts);
  } catch {
    /* nothing held, or the connection is gone */
  }
}
