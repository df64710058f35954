import type { Compositor, CompositorCapability, CompositorEnv, CompositorFactory } from './contracts/compositor.js';
import { HypruseError } from './errors.js';

export interface Selection {
  factory: CompositorFactory | null;
  detail: string;
  /** Why each plugin declined (or was not asked). */
  reasons: Array<{ id: string; reason: string }>;
  /** The session environment the chosen plugin discovered (socket, display, runtime dir), for every backend and trust layer. */
  env?: Record<string, string>;
}

/**
 * Choose the compositor: the configured id (config/HYPRUSE_COMPOSITOR), else
 * the first plugin found through its own socket variable (`explicit`), else
 * the first plugin whose detection succeeds by discovery. So one compositor's
 * socket variable set wins over another's instance lying on disk, whatever
 * the order.
 */
export async function selectCompositor(factories: CompositorFactory[], env: CompositorEnv, wanted: string): Promise<Selection> {
  const reasons: Selection['reasons'] = [];
  if (wanted && wanted !== 'auto') {
    const f = factories.find((x) => x.id === wanted);
    if (!f) {
      return { factory: null, detail: '', reasons: [{ id: wanted, reason: `no compositor plugin "${wanted}" is installed (installed: ${factories.map((x) => x.id).join(', ') || 'none'})` }] };
    }
    const d = await safeDetect(f, env);
    if (d.ok) return { factory: f, detail: d.detail, reasons, ...(d.env ? { env: d.env } : {}) };
    return { factory: null, detail: '', reasons: [{ id: f.id, reason: d.reason }] };
  }
  let discovered: { factory: CompositorFactory; detail: string; env?: Record<string, string> } | null = null;
  for (const f of factories) {
    const d = await safeDetect(f, env);
    if (d.ok && d.explicit) return { factory: f, detail: d.detail, reasons, ...(d.env ? { env: d.env } : {}) };
    if (d.ok) discovered ??= { factory: f, detail: d.detail, ...(d.env ? { env: d.env } : {}) };
    else reasons.push({ id: f.id, reason: d.reason });
  }
  return discovered ? { ...discovered, reasons } : { factory: null, detail: '', reasons };
}

async function safeDetect(f: CompositorFactory, env: CompositorEnv) {
  try {
    return await f.detect(env);
  } catch (err) {
    return { ok: false as const, reason: `detection failed: ${(err as Error).message}` };
  }
}

export function noCompositorError(reasons: Selection['reasons']): HypruseError {
  const lines = reasons.map((r) => `${r.id}: ${r.reason}`).join('; ');
  const tried = reasons.map((r) => r.id).filter((id) => id !== 'none');
  return new HypruseError('unsupported.compositor', `no supported compositor found (${lines || 'no compositor plugins installed'})`, {
    hint: `run hypruse inside a session of a compositor it has a plugin for${tried.length ? ` (${tried.join(', ')})` : ''} (or set HYPRUSE_COMPOSITOR and the compositor socket variables); \`hypruse doctor\` explains`,
    data: { reasons },
  });
}

/** Stands in when no compositor was found: every call explains why. */
export class UnavailableCompositor implements Compositor {
  readonly id = 'none';
  readonly displayName = 'no compositor';
  readonly capabilities: ReadonlySet<CompositorCapability> = new Set();
  constructor(private readonly reasons: Selection['reasons']) {}
  unsupportedReason(): string {
    return 'no compositor was found';
  }
  private fail(): never {
    throw noCompositorError(this.reasons);
  }
  version = async () => this.fail();
  snapshot = async () => this.fail();
  subscribe = async () => this.fail();
  focusWindow = async () => this.fail();
  switchWorkspace = async () => this.fail();
  moveToWorkspace = async () => this.fail();
  closeWindow = async () => this.fail();
  toggleFullscreen = async () => this.fail();
  toggleFloating = async () => this.fail();
  moveCursor = async () => this.fail();
  launch = async () => this.fail();
  binds = async () => this.fail();
  runBind = async () => this.fail();
  locked = async () => this.fail();
  tagWindow = async () => this.fail();
  notify = async () => this.fail();
  installMarkRule = async () => this.fail();
  dispose = async () => undefined;
}
