import type { Compositor, CompositorEnv, CompositorFactory, DetectResult } from '@hypruse/core';
import { HypruseError, discoveredEnv, runtimeDir } from '@hypruse/core';
import { HyprlandCompositor, type HyprlandCompositorOptions } from './hyprland-compositor.js';
import { HyprlandRequestClient } from './ipc/request-client.js';
import { resolveSockets } from './ipc/socket-paths.js';
import { HYPRLAND_MANIFEST } from './manifest.js';

/** Finds a running Hyprland from the environment, or by runtime-dir discovery when the host stripped it. */
export class HyprlandCompositorFactory implements CompositorFactory {
  readonly id = 'hyprland';
  readonly manifest = HYPRLAND_MANIFEST;
  readonly instanceVars = HYPRLAND_MANIFEST.envVars;

  constructor(private readonly overrides: Partial<Omit<HyprlandCompositorOptions, 'sockets'>> = {}) {}

  detect(env: CompositorEnv): DetectResult {
    try {
      const rt = env.runtimeDir ?? runtimeDir(env.env);
      const r = resolveSockets(rt, env.env);
      if ('reason' in r) return { ok: false, reason: r.reason };
      const detail = r.discovered
        ? `Hyprland instance ${r.sockets.signature} found in ${r.sockets.instanceDir} (discovered: HYPRLAND_INSTANCE_SIGNATURE was ${env.env.HYPRLAND_INSTANCE_SIGNATURE ? 'stale' : 'unset'})`
        : `Hyprland instance ${r.sockets.signature}`;
      return {
        ok: true,
        explicit: !r.discovered,
        detail,
        // the display Hyprland wrote into hyprland.lock: right even when the host stripped WAYLAND_DISPLAY
        env: discoveredEnv(env.env, rt, { HYPRLAND_INSTANCE_SIGNATURE: r.sockets.signature }, r.sockets.wayland),
      };
    } catch (err) {
      return { ok: false, reason: `Hyprland detection failed: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  async create(env: CompositorEnv): Promise<Compositor> {
    const r = resolveSockets(env.runtimeDir ?? runtimeDir(env.env), env.env);
    if ('reason' in r) {
      throw new HypruseError('unsupported.compositor', `Hyprland is not available: ${r.reason}`, {
        hint: 'Run inside a Hyprland session, or set HYPRLAND_INSTANCE_SIGNATURE and XDG_RUNTIME_DIR.',
      });
    }
    let version: string | null = this.overrides.version ?? null;
    if (version === null) {
      try {
        const v = await new HyprlandRequestClient(r.sockets.request).json<{ version?: string; tag?: string }>('version');
        version = v.version || v.tag?.replace(/^v/, '') || null;
      } catch {
        version = null;
      }
    }
    return new HyprlandCompositor({ ...this.overrides, sockets: r.sockets, version });
  }
}
