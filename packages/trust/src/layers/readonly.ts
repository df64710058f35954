import { TRUST_ORDER, TrustError, type TrustLayer } from '@hypruse/core';

/**
 * Read-only mode: every acting call is refused. The registry already hides
 * acting tools from listings; this covers direct calls, CLI verbs and
 * nested calls.
 */
export const readonlyLayer: TrustLayer = {
  name: 'readonly',
  order: TRUST_ORDER.readonly,
  appliesTo: (call) => call.kind === 'act' && call.config.readonly,
  async handle(call) {
    throw new TrustError({
      layer: 'readonly',
      code: 'refused.readonly',
      reason: `${call.tool} acts on the desktop, and hypruse runs read-only, so it is not available`,
      hint: 'only observation tools work in read-only mode; the person can turn it off (HYPRUSE_READONLY=0 or readonly: false in the config)',
    });
  },
};
