import type { Next, TrustCall, TrustLayer } from '../contracts/trust.js';
import type { ToolResult } from '../result.js';
import { TrustError, HypruseError } from '../errors.js';

/**
 * Compose trust layers into one onion, outermost first (lowest order). Each
 * layer may call `next()` at most once; a layer that throws a non-hypruse
 * error refuses (fail closed); hypruse errors travel outward unchanged so the
 * journal sees refusals.
 */
export function composeLayers(layers: TrustLayer[], handler: (call: TrustCall) => Promise<ToolResult>) {
  const ordered = [...layers].sort((a, b) => a.order - b.order);
  return function run(call: TrustCall): Promise<ToolResult> {
    let index = -1;
    const downstream = new WeakSet<object>();
    const dispatch = async (i: number): Promise<ToolResult> => {
      if (i <= index) throw new HypruseError('error.internal', `trust layer "${ordered[i - 1]?.name}" called next() more than once`);
      index = i;
      if (i === ordered.length) return handler(call);
      const layer = ordered[i];
      if (layer.appliesTo && !safeApplies(layer, call)) return dispatch(i + 1);
      const next: Next = () =>
        dispatch(i + 1).catch((err: unknown) => {
          // errors from further down (other layers, the tool) pass through this layer untouched
          if (typeof err === 'object' && err !== null) downstream.add(err);
          throw err;
        });
      try {
        return await layer.handle(call, next);
      } catch (err) {
        if (err instanceof HypruseError || (typeof err === 'object' && err !== null && downstream.has(err))) throw err;
        throw new TrustError({
          layer: layer.name,
          code: 'refused.guard_failed',
          reason: `the guard failed unexpectedly (${(err as Error)?.message ?? String(err)}), so the action was refused`,
          hint: 'this is a fail-closed refusal; retry, or report the guard failure',
        });
      }
    };
    return dispatch(0);
  };
}

function safeApplies(layer: TrustLayer, call: TrustCall): boolean {
  try {
    return layer.appliesTo!(call);
  } catch {
    return true; // cannot tell: run the layer (fail closed)
  }
}
