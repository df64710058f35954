import { TRUST_ORDER, TrustError, type HypruseConfig, type Intent, type TrustLayer } from '@hypruse/core';
import { allTargets, describeWindow, desktopOf, targetsOf } from '../desktop-view.js';

export type Tier = 'view' | 'click' | 'full';

/** The tier of a window class: exact key first, then case-insensitive; unlisted classes get `full`. */
export function tierOf(policy: HypruseConfig['policy'], cls: string): Tier {
  if (Object.hasOwn(policy, cls)) return policy[cls];
  const lower = cls.toLowerCase();
  for (const [k, v] of Object.entries(policy)) if (k.toLowerCase() === lower) return v;
  return 'full';
}

/** What the call does to a window, in tier terms: pointer input needs `click`, anything else `full`. */
function needs(intent: Intent, named: boolean): Tier {
  if (intent.input === 'pointer') return 'click';
  if (intent.input === 'keyboard') return 'full';
  return named ? 'full' : 'click';
}

const RANK: Record<Tier, number> = { view: 0, click: 1, full: 2 };

/**
 * Per-app policy (`policy: { "org.gnome.Nautilus": "click", "firefox": "view" }`):
 * `view` refuses every action on that window, `click` allows pointer input
 * but not keyboard, typing or window management, `full` allows all.
 */
export const policyLayer: TrustLayer = {
  name: 'policy',
  order: TRUST_ORDER.policy,
  appliesTo: (call) => call.kind === 'act' && Object.keys(call.config.policy).length > 0,
  async handle(call, next) {
    const intent = await call.intent();
    const touches = intent && (intent.input === 'pointer' || intent.focusedWindow || (intent.windows?.length ?? 0) > 0);
    if (!intent || !touches) return next();
    const d = await desktopOf(call);
    const t = targetsOf(intent, d);
    if (t.pointUnknown) {
      throw new TrustError({ layer: 'policy', code: 'refused.policy', reason: 'cannot tell where the cursor is, so cannot check the per-app policy of the window under it', hint: 'pass x and y explicitly' });
    }
    const namedSet = new Set(t.named.map((w) => w.address));
    for (const w of allTargets(t)) {
      const tier = tierOf(call.config.policy, w.class);
      const need = needs(intent, namedSet.has(w.address));
      if (RANK[tier] < RANK[need]) {
        const what = tier === 'view' ? 'looking only' : 'pointer clicks only (no keyboard, typing or window management)';
        throw new TrustError({
          layer: 'policy',
          code: 'refused.policy',
          reason: `the per-app policy of ${describeWindow(w)} is '${tier}' (${what}), and ${call.tool} needs '${need}'`,
          hint: `the person sets this in the config (policy: { "${w.class}": "${need}" }); ${tier === 'click' ? 'a pointer click is allowed' : 'observation tools still work'}`,
        });
      }
    }
    return next();
  },
};
