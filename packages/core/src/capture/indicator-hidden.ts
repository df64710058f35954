import { Tokens } from '../tokens.js';
import type { ToolServices } from '../contracts/tool.js';

/**
 * The one "hide before capture" hook: every capture of the screen that an
 * agent sees (screenshot, zoom, marks, then=screenshot) runs inside it, so the
 * on-screen indicator is unmapped, and the compositor has confirmed it, before
 * the first pixel is read; it shows again afterwards.
 */
export async function withIndicatorHidden<T>(services: ToolServices, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
  if (!services.has(Tokens.Indicator)) return fn();
  const show = await services.get(Tokens.Indicator).hideForCapture(signal);
  try {
    return await fn();
  } finally {
    show();
  }
}
