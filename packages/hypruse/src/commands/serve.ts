import type { McpSession } from '@hypruse/core/mcp';
import { serverIdentity, startStdioFront } from '@hypruse/core/mcp/front';
import type { LoadedConfig } from '@hypruse/core/config';
import { previewConfig } from '@hypruse/core/config/search';
import type { ChordRegistration } from '@hypruse/core';
import { VERSION } from '../version.js';
import type { Session } from '../session.js';
import type { Command } from './types.js';

let active: Session | null = null;
/** The stop chord this server bound in the compositor, removed first on every way out. */
let chord: ChordRegistration | null = null;
/** The monitor page this server serves (monitor.serve), closed on every way out. */
let monitor: { close(): Promise<void> } | null = null;
let building: Promise<Session> | null = null;

/**
 * The session, built once, on the first request that needs it (an MCP request or the monitor
 * page): `initialize` is answered with only the configuration and the MCP SDK loaded; plugins,
 * compositor selection and backends come after.
 */
function sessionOnce(loaded: LoadedConfig, monitorOrigin: () => string | null): Promise<Session> {
  building ??= (async () => {
    await import('reflect-metadata');
    const [{ createSession }, trust] = await Promise.all([import('../session.js'), import('@hypruse/trust')]);
    const session = await createSession({ source: 'mcp', loaded });
    active = session;
    await trust.journalSessionStart(session.config, VERSION, session.env);
    trust.beaconWriter(session.env).announce(session.config, 'mcp');
    if (session.compositor.id !== 'none') {
      const [{ registerStopChord }, { Tokens }] = await Promise.all([import('../presence.js'), import('@hypruse/core')]);
      chord = await registerStopChord(session.compositor, session.container.resolve(Tokens.Presence), session.config, session.logger);
    }
    if (session.config.mark && session.compositor.id !== 'none') void trust.installMarkRule(session.compositor, session.logger);
    if (session.selection && !session.selection.factory) {
      session.logger.warn(`no compositor found; tools will explain: ${session.selection.reasons.map((r) => `${r.id}: ${r.reason}`).join('; ')}`);
    }
    const origin = monitorOrigin();
    if (origin) trust.beaconWriter(session.env).setMonitor(session.config, 'mcp', origin);
    return session;
  })();
  building.catch(() => (building = null)); // a failed build is tried again by the next request
  return building;
}

function lazySession(loaded: LoadedConfig, monitorOrigin: () => string | null): () => Promise<McpSession> {
  return async () => {
    const session = await sessionOnce(loaded, monitorOrigin);
    return { pipeline: session.pipeline, config: session.config };
  };
}

/** monitor.serve: the page, listening before the first request; its address (with the token) goes once to stderr. */
async function serveMonitor(loaded: LoadedConfig, origin: { value: string | null }): Promise<void> {
  const [{ startMonitor }, { stderrLogger }] = await Promise.all([import('../monitor/index.js'), import('@hypruse/core')]);
  try {
    const m = await startMonitor({ session: () => sessionOnce(loaded, () => origin.value), config: loaded.config, logger: stderrLogger() });
    monitor = m.server;
    origin.value = m.origin;
    process.stderr.write(`hypruse: monitor page: ${m.url}\n`);
    // the beacon (doctor) and the page want the session; build it now rather than at the first tool call
    void sessionOnce(loaded, () => origin.value).catch(() => undefined);
  } catch (err) {
    process.stderr.write(`hypruse: warning: monitor page not served: ${(err as Error).message}\n`);
  }
}

/** Release held input, stop the journal and dispose, whatever of it exists. */
async function shutdown(): Promise<void> {
  const session = active;
  const page = monitor;
  monitor = null;
  // held input is released first, beside the page and the chord: none of them may wait for another
  const release = session ? import('../session.js').then(({ releaseInput }) => releaseInput(session.container, { final: true })) : undefined;
  await Promise.all([release, page?.close().catch(() => undefined), session ? chord?.remove().catch(() => undefined) : undefined]);
  if (!session) return;
  const { journalSessionStop } = await import('@hypruse/trust');
  await Promise.all([session.dispose(), journalSessionStop(session.config, VERSION, session.env)]);
}

/** Release held input and dispose on every way out: signals, stdin closing (on stdio). */
function installShutdown(onStdinClose = true): void {
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    // a desk this server owns is stopped with it (its apps, compositor and buses, by pid): that may take longer
    await Promise.race([shutdown(), new Promise((r) => setTimeout(r, active?.desk?.owned ? 15000 : 1500))]);
    process.exit(code);
  };
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => void stop(0));
  if (onStdinClose) process.stdin.on('close', () => void stop(0));
  process.on('uncaughtException', (err) => {
    process.stderr.write(`hypruse: uncaught: ${err.stack ?? err.message}\n`);
    void stop(1);
  });
}

/** `--http [--host ADDR] [--port N]`: what was asked, or a usage error. */
export function parseServeArgs(argv: string[]): { http: boolean; host?: string; port?: number } | { error: string } {
  const out: { http: boolean; host?: string; port?: number } = { http: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    if (flag === '--http') out.http = true;
    else if (flag === '--host' || flag === '--port') {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') return { error: `${flag} needs a value` };
      if (flag === '--host') out.host = v;
      else {
        if (!/^\d+$/.test(v) || Number(v) > 65535) return { error: `--port ${JSON.stringify(v)} is not a port (0..65535)` };
        out.port = Number(v);
      }
    } else return { error: `unknown option ${a}; accepted: --http, --host ADDR, --port N` };
  }
  if ((out.host !== undefined || out.port !== undefined) && !out.http) return { error: '--host and --port go with --http' };
  return out;
}

/** Where the seat's token is kept: hypruse's private runtime folder (0700), the file 0600. */
async function storeToken(token: string, port: number): Promise<string> {
  const [{ join }, { privateRuntimeDir, writeFileExclusiveSync }] = await Promise.all([import('node:path'), import('@hypruse/core')]);
  const file = join(privateRuntimeDir(process.env), `http-${port}.token`);
  writeFileExclusiveSync(file, `${token}\n`);
  return file;
}

/** `hypruse serve --http`: MCP over Streamable HTTP, every request behind the seat's guard. */
async function serveHttp(args: { host?: string; port?: number }): Promise<number> {
  let loaded: LoadedConfig;
  try {
    loaded = await (await import('@hypruse/core/config')).loadConfig({});
  } catch (err) {
    const { errorText, toHypruseError } = await import('@hypruse/core');
    process.stderr.write(`hypruse: ${errorText(toHypruseError(err))}\n`);
    return 2;
  }
  installShutdown(false);
  const cfg = loaded.config.mcp.http;
  const host = args.host ?? cfg.host;
  const { randomBytes } = await import('node:crypto');
  const token = randomBytes(32).toString('base64url');
  const { createMcpServer, serveHttpSeat } = await import('@hypruse/core/mcp');
  const origin = { value: null as string | null };
  if (loaded.config.monitor.serve) await serveMonitor(loaded, origin);
  const identity = { name: 'hypruse', version: VERSION, config: loaded.config, compositor: null };
  const session = lazySession(loaded, () => origin.value);
  let seat;
  try {
    seat = await serveHttpSeat({
      host,
      port: args.port ?? cfg.port,
      token,
      allowedHosts: cfg.allowedHosts,
      maxBodyBytes: cfg.maxBodyBytes,
      requestsPerMinute: cfg.requestsPerMinute,
      makeServer: () => createMcpServer({ ...identity, session }),
    });
  } catch (err) {
    process.stderr.write(`hypruse: cannot listen on ${host}:${args.port ?? cfg.port}: ${(err as Error).message}\n`);
    return 1;
  }
  const file = await storeToken(token, seat.port);
  if (!['127.0.0.1', '::1', 'localhost'].includes(host)) process.stderr.write(`hypruse: warning: listening on ${host}, not only this machine: anyone who can reach it and has the token drives this desktop; prefer an SSH tunnel\n`);
  process.stderr.write(`hypruse: MCP over HTTP at ${seat.url} (Authorization: Bearer ${token}); the token is also in ${file}\n`);
  // the session now, so the first request finds the desktop ready
  void session().catch(() => undefined);
  await new Promise<never>(() => undefined);
  return 0;
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the MCP server on stdio (the default with no arguments), or over HTTP with --http',
  usage: 'hypruse [serve] [--http [--host ADDR] [--port N]]',
  async run(argv = []) {
    if (argv.length) {
      const parsed = parseServeArgs(argv);
      if ('error' in parsed) {
        process.stderr.write(`hypruse: usage: ${parsed.error}\n`);
        return 2;
      }
      if (parsed.http) return serveHttp(parsed);
    }
    // stdin is read from now on, and `initialize` is answered by the front as soon as what its
    // reply depends on (read-only, dry-run) is known: with no configuration file that is the
    // environment alone, and the configuration (zod), the SDK and the tools load after the reply
    const front = startStdioFront();
    const configError = async (err: unknown) => {
      const { errorText, toHypruseError } = await import('@hypruse/core');
      process.stderr.write(`hypruse: ${errorText(toHypruseError(err))}\n`);
      return 2;
    };
    const loadConfig = async () => (await import('@hypruse/core/config')).loadConfig({});
    // a bad variable or config file still refuses to start (exit 2), before anything is served
    let loaded: LoadedConfig | null = null;
    let preview;
    try {
      preview = previewConfig();
      if (!preview) loaded = await loadConfig();
    } catch (err) {
      return configError(err);
    }
    installShutdown();
    const flags = preview ?? loaded!.config;
    await front.answerInitialize(serverIdentity({ name: 'hypruse', version: VERSION, config: flags, compositor: null, wmName: null }));
    if (!loaded) {
      try {
        loaded = await loadConfig();
      } catch (err) {
        // only a value the variable's own check let through and the schema refuses: the host sees the server end
        return configError(err);
      }
    }
    const identity = { name: 'hypruse', version: VERSION, config: loaded.config, compositor: null };
    // the monitor page after the initialize reply: it loads the session's modules
    const origin = { value: null as string | null };
    if (loaded.config.monitor.serve) await serveMonitor(loaded, origin);
    const { createMcpServer, serveStdio } = await import('@hypruse/core/mcp');
    const session = lazySession(loaded, () => origin.value);
    await serveStdio(() => createMcpServer({ ...identity, session }), front.streams());
    await shutdown();
    return 0;
  },
};

export function activeSession(): Session | null {
  return active;
}
