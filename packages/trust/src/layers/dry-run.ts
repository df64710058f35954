import { TRUST_ORDER, type ToolResult, type TrustLayer } from '@hypruse/core';

/**
 * Dry run, innermost: every guard above has run; the handler does not, so
 * nothing is delivered (not even a pre-typing focus). The backends of a dry
 * call also throw DryRunError on delivery (the second wall, in core).
 */
export const dryRunLayer: TrustLayer = {
  name: 'dry-run',
  order: TRUST_ORDER['dry-run'],
  appliesTo: (call) => call.dryRun && call.kind === 'act',
  async handle(call): Promise<ToolResult> {
    const intent = await call.intent();
    const would = intent?.summary?.trim() || `call ${call.tool}`;
    return {
      text: [`DRY RUN, nothing was delivered: would ${would}`],
      data: { dry_run: true, would: intent ?? { summary: would } },
    };
  },
};
