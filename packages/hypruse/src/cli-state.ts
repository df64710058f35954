import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensurePrivateDir, runtimeDir, writeFileExclusiveSync, type Compositor, type SessionState } from '@hypruse/core';

/**
 * Shell verbs are one process each; what the trust layers remember between
 * calls (windows hypruse launched, the strict seat baseline, observed window
 * geometry) is kept in the runtime dir, keyed by compositor instance, so
 * `HYPRUSE_CONFINE=launched` and `HYPRUSE_STRICT` mean the same in the shell
 * as in one MCP session. Element ids from `ui` are kept too, so
 * `click_ui --id 12` names the same element in a later verb.
 */
interface Stored {
  v: 1;
  launched: string[];
  seat: SessionState['seat'];
  observed: Array<[string, { x: number; y: number; width: number; height: number }]>;
  cursor: { x: number; y: number } | null;
  /** The last screenshot's pixel transform (pointer image_x/image_y). */
  shot?: unknown;
  /** The element id table (tools' common/elements.ts owns its shape). */
  elements?: unknown;
}

const MAX_LAUNCHED = 256;

export function cliStatePath(compositor: Pick<Compositor, 'id' | 'instanceId'>, env: NodeJS.ProcessEnv): string | null {
  const dir = runtimeDir(env);
  if (!dir) return null;
  const instance = compositor.instanceId ?? env.WAYLAND_DISPLAY ?? '';
  const key = createHash('sha256').update(`${compositor.id}:${instance}`).digest('hex').slice(0, 12);
  return join(dir, 'hypruse', `cli-state-${key}.json`);
}

export function loadCliState(path: string, state: SessionState): void {
  let s: Stored;
  try {
    s = JSON.parse(readFileSync(path, 'utf8')) as Stored;
  } catch {
    return; // first verb, or an unreadable file: start clean
  }
  if (s?.v !== 1) return;
  for (const a of s.launched ?? []) state.launched.add(a);
  state.seat = s.seat ?? null;
  for (const [a, g] of s.observed ?? []) state.observed.set(a, g);
  if (s.cursor) state.bag.set('cursor', s.cursor);
  if (s.shot) state.bag.set('shot', s.shot);
  if (s.elements && typeof s.elements === 'object') state.bag.set('elements', s.elements);
}

export function saveCliState(path: string, state: SessionState): void {
  const stored: Stored = {
    v: 1,
    launched: [...state.launched].slice(-MAX_LAUNCHED),
    seat: state.seat,
    observed: [...state.observed.entries()].slice(-MAX_LAUNCHED),
    cursor: (state.bag.get('cursor') as Stored['cursor'] | undefined) ?? null,
    ...(state.bag.has('shot') ? { shot: state.bag.get('shot') } : {}),
    ...(state.bag.has('elements') ? { elements: state.bag.get('elements') } : {}),
  };
  try {
    ensurePrivateDir(dirname(path));
    writeFileExclusiveSync(path, JSON.stringify(stored));
  } catch {
    /* state is a convenience between verbs; failing to keep it never fails the verb */
  }
}
