import { UnsupportedError, parseCombo, scaledMs, toHypruseError, type ChordRegistration, type Compositor, type HypruseConfig, type Logger, type Presence } from '@hypruse/core';
import { IDLE_SLACK_MS, SeatPresence } from '@hypruse/trust';
import { IdleNotify } from '@hypruse/wayland';

/** The seat presence of this process: takeover detection over the compositor's idle notifications, the shared stop state. */
export function createPresence(env: NodeJS.ProcessEnv, config: HypruseConfig, eager: boolean): SeatPresence {
  return new SeatPresence({
    env,
    takeoverMs: config.takeoverMs,
    eager,
    // the allowance for the compositor's idle timer and a busy event loop follows the machine's timeout policy
    slackMs: scaledMs(IDLE_SLACK_MS, env),
    openIdle: async (idleMs, sink) =>
      IdleNotify.open({ env, timeoutMs: idleMs, handlers: { idle: () => sink.idle(), resumed: () => sink.resumed(), lost: (r) => sink.lost(r) } }),
  });
}

/**
 * Bind the stop chord in the compositor (long-running processes only: the
 * MCP server, the monitor). Pressing it stops every hypruse process of the
 * session until the agent calls resume. Never throws: what happened goes to
 * the presence's chord report (doctor) and the log.
 */
export async function registerStopChord(compositor: Compositor, presence: Presence, config: HypruseConfig, logger: Logger): Promise<ChordRegistration | null> {
  const spec = config.stopChord.trim();
  if (!spec || spec.toLowerCase() === 'off') {
    report(presence, { combo: null, registered: false, detail: 'off (stop_chord is "off")' });
    return null;
  }
  if (compositor.id === 'none') {
    report(presence, { combo: spec, registered: false, detail: 'no compositor' });
    return null;
  }
  try {
    const combo = parseCombo(spec);
    if (!compositor.registerChord) throw new UnsupportedError(compositor.displayName, 'stop chord', `the ${compositor.displayName} plugin has no run-time bindings`);
    const reg = await compositor.registerChord(combo, () => {
      logger.warn(`stop chord ${spec} pressed: acting tools are refused until resume`);
      presence.stop(`the stop chord (${spec})`);
    });
    report(presence, { combo: spec, registered: true, detail: reg.detail });
    return reg;
  } catch (err) {
    const e = toHypruseError(err);
    report(presence, { combo: spec, registered: false, detail: e.message });
    logger.warn(`stop chord ${spec} not registered: ${e.message}`);
    return null;
  }
}

function report(presence: Presence, r: { combo: string | null; registered: boolean; detail: string }): void {
  if (presence instanceof SeatPresence) presence.setChord(r);
}
