import { NotFoundError, UsageError } from '@hypruse/core';
import type { NiriWorkspace, WorkspaceReference } from '../ipc/types.js';

export interface ResolvedWorkspace {
  reference: WorkspaceReference;
  /** The existing workspace it designates, when known. */
  workspace: NiriWorkspace | null;
}

/**
 * Turn a workspace string into a niri WorkspaceReference. In order:
 * 1. a workspace id (the `id` hypruse reports, and windows' `workspace` field);
 * 2. a configured workspace name;
 * 3. a number: the workspace at that index on the focused monitor (`niri msg
 *    action focus-workspace 3`); an index past the last workspace is niri's
 *    own business (it focuses the last, empty one).
 * Anything else is not a workspace niri has: niri cannot create named
 * workspaces over IPC.
 */
export function resolveWorkspace(ref: string, workspaces: NiriWorkspace[]): ResolvedWorkspace {
  const s = ref.trim();
  if (!s || s.length > 128 || /[\u0000-\u001f\u007f]/.test(s)) {
    throw new UsageError(`'${ref.slice(0, 40)}' is not a workspace: give a workspace id or name from desktop(), or an index on the focused monitor`, {
      code: 'usage.workspace',
    });
  }
  if (/^\d+$/.test(s)) {
    const byId = workspaces.find((w) => String(w.id) === s);
    if (byId) return { reference: { Id: byId.id }, workspace: byId };
  }
  const byName = workspaces.find((w) => w.name === s);
  if (byName) return { reference: { Id: byName.id }, workspace: byName };
  if (/^\d+$/.test(s)) {
    const idx = Number(s);
    if (idx < 1 || idx > 255) {
      throw new UsageError(`workspace index ${s} is out of range: niri indexes workspaces 1..255 on each monitor`, { code: 'usage.workspace' });
    }
    const focusedOutput = workspaces.find((w) => w.is_focused)?.output ?? null;
    const byIdx = workspaces.find((w) => w.output === focusedOutput && w.idx === idx) ?? null;
    return { reference: byIdx ? { Id: byIdx.id } : { Index: idx }, workspace: byIdx };
  }
  const known = workspaces.map((w) => (w.name ? `${w.id} (${w.name})` : String(w.id))).join(', ');
  throw new NotFoundError('not_found.workspace', `niri has no workspace '${s}' (workspaces: ${known || 'none'})`, {
    hint: 'niri names workspaces only in its config; use a workspace id from desktop() or an index on the focused monitor.',
  });
}
