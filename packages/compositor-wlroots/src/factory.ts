import type { CompositorEnv, CompositorFactory, DetectResult } from '@hypruse/core';
import { HypruseError, discoveredEnv, runtimeDir, scaledMs } from '@hypruse/core';
import { EXT_WORKSPACE_MANAGER, WaylandConnection, waylandSocketPath } from '@hypruse/wayland';
import { WLROOTS_MANIFEST } from './manifest.js';
import { MANAGER } from './toplevels.js';
import { WlrootsCompositor } from './wlroots-compositor.js';

/** Detects a Wayland display that offers zwlr_foreign_toplevel_manager_v1 (one registry round trip, bounded). */
export class WlrootsCompositorFactory implements CompositorFactory {
  readonly id = WLROOTS_MANIFEST.id;
  readonly manifest = WLROOTS_MANIFEST;
  readonly instanceVars = WLROOTS_MANIFEST.envVars;
  /** Per display path: whether the last detect saw ext_workspace_manager_v1. */
  private readonly workspaces = new Map<string, boolean>();

  async detect(env: CompositorEnv): Promise<DetectResult> {
    let path: string;
    try {
      path = waylandSocketPath(env.env, env.runtimeDir ?? runtimeDir(env.env));
    } catch (e) {
      return { ok: false, reason: (e as Error).message };
    }
    try {
      const conn = await WaylandConnection.connect({ path, wantFds: false, timeoutMs: scaledMs(500) });
      const offered = conn.globals.has(MANAGER);
      const workspaces = conn.globals.has(EXT_WORKSPACE_MANAGER);
      conn.close();
      if (!offered) return { ok: false, reason: `the Wayland display ${path} does not offer ${MANAGER}` };
      this.workspaces.set(path, workspaces);
      return { ok: true, detail: `Wayland display ${path} (${MANAGER}${workspaces ? `, ${EXT_WORKSPACE_MANAGER}` : ''})`, env: discoveredEnv(env.env, env.runtimeDir, {}) };
    } catch (e) {
      return { ok: false, reason: `no Wayland display at ${path} (${(e as Error).message})` };
    }
  }

  async create(env: CompositorEnv): Promise<WlrootsCompositor> {
    const d = await this.detect(env);
    if (!d.ok) throw new HypruseError('unsupported.compositor', `${WLROOTS_MANIFEST.displayName} is not available: ${d.reason}`);
    const path = waylandSocketPath(env.env, env.runtimeDir ?? runtimeDir(env.env));
    return new WlrootsCompositor(path, this.workspaces.get(path) ?? false);
  }
}
