import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/** `$XDG_STATE_HOME/hypruse/journal.ndjson`, or `~/.local/state/hypruse/journal.ndjson`. */
export function defaultJournalPath(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : join(env.HOME || homedir(), '.local', 'state');
  return join(state, 'hypruse', 'journal.ndjson');
}

/** The configured journal path (`journal.path`): null = off, "default" = the default path, `~/` expanded, relative to the working directory. */
export function resolveJournalPath(setting: string | null, env: NodeJS.ProcessEnv = process.env): string | null {
  if (setting === null) return null;
  const v = setting.trim();
  if (!v) return null;
  if (v === 'default') return defaultJournalPath(env);
  if (v === '~' || v.startsWith('~/')) return join(env.HOME || homedir(), v.slice(1));
  return resolve(v);
}
