import { createMcpServer, serveStdio } from '@hypruse/core/mcp';
import { errorText, toHypruseError } from '@hypruse/core';
import { beaconWriter, installMarkRule, journalSessionStart, journalSessionStop } from '@hypruse/trust';
import { createSession, releaseInput, type Session } from '../session.js';
import { VERSION } from '../version.js';
import type { Command } from './types.js';

let active: Session | null = null;

/** Release held input and dispose on every way out: signals, stdin closing. */
function installShutdown(session: Session): void {
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await releaseInput(session.container);
    await Promise.race([Promise.all([session.dispose(), journalSessionStop(session.config, VERSION)]), new Promise((r) => setTimeout(r, 1500))]);
    process.exit(code);
  };
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => void stop(0));
  process.stdin.on('close', () => void stop(0));
  process.on('uncaughtException', (err) => {
    process.stderr.write(`hypruse: uncaught: ${err.stack ?? err.message}\n`);
    void stop(1);
  });
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the MCP server on stdio (the default with no arguments)',
  usage: 'hypruse [serve]',
  async run() {
    let session: Session;
    try {
      session = await createSession({ source: 'mcp' });
    } catch (err) {
      process.stderr.write(`hypruse: ${errorText(toHypruseError(err))}\n`);
      return 2;
    }
    active = session;
    installShutdown(session);
    await journalSessionStart(session.config, VERSION);
    beaconWriter().announce(session.config, 'mcp');
    if (session.config.mark && session.compositor.id !== 'none') void installMarkRule(session.compositor, session.logger);
    if (session.selection && !session.selection.factory) {
      session.logger.warn(`no compositor found; tools will explain: ${session.selection.reasons.map((r) => `${r.id}: ${r.reason}`).join('; ')}`);
    }
    const server = await createMcpServer({
      name: 'hypruse',
      version: VERSION,
      pipeline: session.pipeline,
      config: session.config,
      compositor: session.compositor.id === 'none' ? null : session.compositor.displayName,
    });
    await serveStdio(server);
    await releaseInput(session.container);
    await journalSessionStop(session.config, VERSION);
    await session.dispose();
    return 0;
  },
};

export function activeSession(): Session | null {
  return active;
}
