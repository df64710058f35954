import { TRUST_ORDER, Tokens, toHypruseError, type Compositor, type Logger, type TrustCall, type TrustLayer } from '@hypruse/core';
import { loggerOf } from '../desktop-view.js';
import { launchedAddress } from './confine.js';

export const OWNED_TAG = 'hypruse-owned';
const RULE_KEY = 'mark.rule';
const NOTICE_KEY = 'mark.lastCaptureNotice';
const CAPTURE_TOOLS = new Set(['screenshot', 'zoom', 'marks']);
const NOTICE_EVERY_MS = 3000;

/**
 * Install the border rule for windows tagged `hypruse-owned`, saying on
 * stderr when the compositor cannot. Exported so the server installs it at
 * start (also in dry-run mode, where the call path cannot).
 */
export async function installMarkRule(compositor: Compositor, logger: Logger): Promise<boolean> {
  try {
    const ok = await compositor.installMarkRule(OWNED_TAG);
    if (!ok) logger.warn(`mark: ${compositor.displayName} cannot install a border rule for tagged windows, so windows hypruse opens are not outlined`);
    return ok;
  } catch (err) {
    logger.warn(`mark: installing the border rule failed (${toHypruseError(err).message}); windows hypruse opens are not outlined`);
    return false;
  }
}

async function ensureRule(call: TrustCall): Promise<void> {
  if (call.dryRun || call.session.bag.has(RULE_KEY)) return;
  call.session.bag.set(RULE_KEY, true);
  await installMarkRule(call.services.get(Tokens.Compositor), loggerOf(call));
}

/**
 * Mark (opt-in): windows hypruse launches get the `hypruse-owned` tag (the
 * border rule outlines them) and an on-screen notice; captures show a notice
 * at most every 3 s. A marking failure never fails the action.
 */
export const markLayer: TrustLayer = {
  name: 'mark',
  order: TRUST_ORDER.mark,
  appliesTo: (call) => call.config.mark,
  async handle(call, next) {
    await ensureRule(call);
    const r = await next();
    if (call.dryRun) return r;
    const compositor = call.services.get(Tokens.Compositor);
    const log = loggerOf(call);
    if (call.kind === 'act' && call.tool === 'launch') {
      const addr = launchedAddress(r);
      if (addr) {
        const data = r.data as { class?: unknown; window?: { class?: unknown } } | undefined;
        const cls = String(data?.class ?? data?.window?.class ?? 'a window');
        if (compositor.capabilities.has('tag')) {
          await compositor.tagWindow(addr, OWNED_TAG).catch((e) => log.warn(`mark: tagging ${addr} failed (${toHypruseError(e).message})`));
        }
        if (compositor.capabilities.has('notify')) {
          await compositor.notify(`hypruse opened ${cls}`, 3000).catch(() => undefined);
        }
      }
    } else if (call.kind === 'observe' && CAPTURE_TOOLS.has(call.tool) && compositor.capabilities.has('notify')) {
      const last = (call.session.bag.get(NOTICE_KEY) as number | undefined) ?? 0;
      if (Date.now() - last >= NOTICE_EVERY_MS) {
        call.session.bag.set(NOTICE_KEY, Date.now());
        await compositor.notify('hypruse: agent captured the screen', 2000).catch(() => undefined);
      }
    }
    return r;
  },
};
