import { Tokens, isAgentWorkspace, type Capture, type HypruseConfig, type Imaging, type Logger, type Presence } from '@hypruse/core';
import { beaconWriter, resolveJournalPath } from '@hypruse/trust';
import type { Session } from '../session.js';
import { MonitorServer, type MonitorBackends } from './server.js';
import type { OutputInfo } from './frames.js';

export { MonitorServer, type MonitorBackends, type MonitorOptions, type MonitorState } from './server.js';
export { FrameLoop, type AgentView, type AgentWindow, type EncodedFrame, type FrameMeta, type OutputInfo } from './frames.js';
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
      outputs: async () => {
        const d = await compositor.snapshot();
        const outs: OutputInfo[] = d.monitors.map((m) => ({ name: m.name, geometry: m.geometry, scale: m.scale }));
        // background mode: the agent's windows on a workspace none of the person's outputs shows (sway 1.7's
        // hidden workspace, Hyprland's special one) are views of their own; an agent output is listed above
        const agentWs = d.workspaces.filter((w) => isAgentWorkspace(w.name) && !w.visible);
        const noImage = compositor.capabilities.has('capture.toplevel') ? undefined : `no image: ${compositor.displayName} cannot capture a window it does not show (${compositor.unsupportedReason('capture.toplevel')})`;
        for (const w of d.windows) {
          const ws = agentWs.find((x) => w.workspace !== null && (x.id === w.workspace || x.name === w.workspace));
          if (!ws) continue;
          const id = w.extra?.toplevelId;
          const handle = w.extra?.exportHandle;
          outs.push({
            name: `agent ${ws.name} ${w.address}`,
            geometry: w.geometry,
            scale: Math.max(1, ...d.monitors.map((m) => m.scale)),
            agent: {
              workspace: ws.name, window: w.address, title: w.title, class: w.class,
              ...(typeof id === 'string' && id ? { toplevelId: id } : {}),
              ...(typeof handle === 'number' && Number.isInteger(handle) ? { exportHandle: handle } : {}),
              ...(noImage ? { noImage } : {}),
            },
          });
        }
        return outs;
      },
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
