import { Tokens, type Capture, type HypruseConfig, type Imaging, type Logger, type Presence } from '@hypruse/core';
import { beaconWriter, resolveJournalPath } from '@hypruse/trust';
import type { Session } from '../session.js';
import { MonitorServer, type MonitorBackends } from './server.js';

export { MonitorServer, type MonitorBackends, type MonitorOptions, type MonitorState } from './server.js';
export { FrameLoop, type EncodedFrame, type FrameMeta, type OutputInfo } from './frames.js';
export { JournalTail } from './feed.js';
export { checkRequest, parseControl, allowedHosts, allowedOrigins, type GuardVerdict, type MonitorRoute, type RequestFacts } from './guard.js';

/** What the page needs from a session: its shared state, the desktop's outputs and capture, its journal. */
export function monitorBackends(session: Session): MonitorBackends {
  const presence = session.container.resolve<Presence>(Tokens.Presence);
  const journalPath = resolveJournalPath(session.config.journal.path, session.env);
  const base = { presence, journalPath, env: session.env };
  if (session.compositor.id === 'none') {
    const why = session.selection?.reasons.map((r) => `${r.id}: ${r.reason}`).join('; ') || 'no compositor';
    return { ...base, frames: null, problem: `no desktop image: no compositor found (${why})` };
  }
  if (!session.services.has(Tokens.Capture) || !session.services.has(Tokens.Imaging)) {
    return { ...base, frames: null, problem: 'no desktop image: no capture backend is registered' };
  }
  const compositor = session.compositor;
  return {
    ...base,
    frames: {
      capture: session.services.get<Capture>(Tokens.Capture),
      imaging: session.services.get<Imaging>(Tokens.Imaging),
      outputs: async () => (await compositor.snapshot()).monitors.map((m) => ({ name: m.name, geometry: m.geometry, scale: m.scale })),
    },
  };
}

export interface RunningMonitor {
  server: MonitorServer;
  /** The page's address with its token: printed once, never stored. */
  url: string;
  /** The address without the token (the beacon, doctor). */
  origin: string;
}

/** Serve the monitor page for a session (built on the first request when it is lazy). */
export async function startMonitor(opts: { session: () => Promise<Session>; config: HypruseConfig; logger: Logger }): Promise<RunningMonitor> {
  const server = new MonitorServer({
    backends: async () => monitorBackends(await opts.session()),
    fps: opts.config.monitor.fps,
    logger: opts.logger,
  });
  const { url, origin } = await server.start();
  return { server, url, origin };
}

/** Put the page's address (without its token) in this process's beacon, for doctor and status bars. */
export function announceMonitor(session: Session, source: string, origin: string | null): void {
  beaconWriter(session.env).setMonitor(session.config, source, origin);
}
