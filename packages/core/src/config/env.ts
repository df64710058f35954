import { UsageError } from '../errors.js';
import { MAX_TIME_SCALE, MIN_TIME_SCALE, parseTimeScale } from '../time.js';

/** One documented table of every HYPRUSE_* variable. `path` is the config key it overrides (null = not a config key). */
export interface EnvVarSpec {
  name: string;
  path: string | null;
  accepted: string;
  description: string;
  parse?: (raw: string) => unknown;
}

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['', '0', 'false', 'no', 'off']);

function bool(name: string) {
  return (raw: string): boolean => {
    const v = raw.trim().toLowerCase();
    if (TRUE.has(v)) return true;
    if (FALSE.has(v)) return false;
    throw new UsageError(`${name}=${JSON.stringify(raw)} is not a switch; accepted: 1/true/yes/on or 0/false/no/off/empty`, { code: 'usage.config' });
  };
}

function int(name: string, min: number) {
  return (raw: string): number => {
    const v = raw.trim();
    if (!/^\d+$/.test(v) || Number(v) < min) {
      throw new UsageError(`${name}=${JSON.stringify(raw)} is not a whole number >= ${min}`, { code: 'usage.config' });
    }
    return Number(v);
  };
}

function timeScaleVar(raw: string): number {
  const v = parseTimeScale(raw);
  if (v === null) {
    throw new UsageError(`HYPRUSE_TIME_SCALE=${JSON.stringify(raw)} is not a number from ${MIN_TIME_SCALE} to ${MAX_TIME_SCALE}`, { code: 'usage.config' });
  }
  return v;
}

function oneOf(name: string, values: string[]) {
  return (raw: string): string => {
    if (!values.includes(raw)) {
      throw new UsageError(`${name}=${JSON.stringify(raw)} is not accepted; accepted: ${values.join(', ')}`, { code: 'usage.config' });
    }
    return raw;
  };
}

/** `launched`, `class:a,b`, `workspace:3,special:notes`: bare items continue the previous kind. */
export function parseConfine(raw: string): string[] {
  const out: string[] = [];
  let kind: 'class' | 'workspace' | null = null;
  for (const part of raw.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^(class|workspace):(.*)$/.exec(part);
    if (part === 'launched') {
      out.push('launched');
      kind = null;
    } else if (m) {
      kind = m[1] as 'class' | 'workspace';
      if (!m[2]) throw new UsageError(`HYPRUSE_CONFINE: "${part}" names no ${kind}`, { code: 'usage.config' });
      out.push(`${kind}:${m[2]}`);
    } else if (kind) {
      out.push(`${kind}:${part}`);
    } else {
      throw new UsageError(
        `HYPRUSE_CONFINE: "${part}" is not a scope; accepted: launched, class:NAME[,NAME...], workspace:NAME[,NAME...]`,
        { code: 'usage.config' },
      );
    }
  }
  return out;
}

export function parseAuthGuard(raw: string): 'off' | 'on' | 'strict' {
  const v = raw.trim().toLowerCase();
  if (FALSE.has(v)) return 'off';
  if (['strict', '2', 'field', 'fields'].includes(v)) return 'strict';
  return 'on';
}

export function parseJournal(raw: string): string | null {
  const v = raw.trim();
  if (TRUE.has(v.toLowerCase())) return 'default';
  if (FALSE.has(v.toLowerCase())) return null;
  return v;
}

/** Tools an MCP host loads up front rather than behind its tool search: the ones almost every task uses. */
export const DEFAULT_ALWAYS_LOAD = ['desktop', 'screenshot', 'ui', 'get_text', 'click_ui', 'act', 'keyboard', 'pointer', 'launch', 'wait_for'] as const;

export function parseAlwaysLoad(raw: string): string[] {
  const v = raw.trim().toLowerCase();
  if (v === 'all' || v === '*') return ['*'];
  if (FALSE.has(v) || v === 'none') return [];
  if (v === 'core' || v === 'default') return [...DEFAULT_ALWAYS_LOAD];
  const names = v.split(',').map((p) => p.trim()).filter(Boolean);
  const bad = names.find((n) => !/^[a-z_]+$/.test(n));
  if (bad) throw new UsageError(`HYPRUSE_ALWAYS_LOAD: "${bad}" is not a tool name; accepted: a comma list of tool names, all, none or core`, { code: 'usage.config' });
  return names;
}

export const ENV_VARS: EnvVarSpec[] = [
  { name: 'HYPRUSE_CONFIG', path: null, accepted: 'a file path', description: 'Use this config file instead of searching.' },
  { name: 'HYPRUSE_COMPOSITOR', path: 'compositor', accepted: 'auto, or the id of an installed compositor plugin (`hypruse doctor` lists them)', description: 'Force the compositor plugin.', parse: (r) => r.trim() || 'auto' },
  { name: 'HYPRUSE_READONLY', path: 'readonly', accepted: '1/true/yes/on | 0/false/no/off', description: 'Only observation tools.', parse: bool('HYPRUSE_READONLY') },
  { name: 'HYPRUSE_CLIPBOARD', path: 'clipboard', accepted: '1/true/yes/on | 0/false/no/off', description: 'Enable the clipboard tool.', parse: bool('HYPRUSE_CLIPBOARD') },
  { name: 'HYPRUSE_SCREENSHOT_MODE', path: 'screenshot.mode', accepted: 'file | image', description: 'Screenshots as files (default) or inline images.', parse: oneOf('HYPRUSE_SCREENSHOT_MODE', ['file', 'image']) },
  { name: 'HYPRUSE_MAX_IMAGE_BYTES', path: 'screenshot.maxImageBytes', accepted: 'whole number of bytes >= 10000', description: 'Byte budget of inline images.', parse: int('HYPRUSE_MAX_IMAGE_BYTES', 10000) },
  { name: 'HYPRUSE_MAX_IMAGE_EDGE', path: 'screenshot.maxImageEdge', accepted: 'whole number of pixels >= 64', description: 'Longest edge of inline images.', parse: int('HYPRUSE_MAX_IMAGE_EDGE', 64) },
  { name: 'HYPRUSE_CONFINE', path: 'confine', accepted: 'launched | class:A,B | workspace:N,M (comma list)', description: 'Confine acting to these windows.', parse: parseConfine },
  { name: 'HYPRUSE_LAUNCH_ALLOW', path: 'launch.allow', accepted: 'comma list of program names or absolute paths', description: 'Programs launch may start under confinement.', parse: (r) => r.split(',').map((p) => p.trim()).filter(Boolean) },
  { name: 'HYPRUSE_AUTH_GUARD', path: 'authGuard', accepted: 'off: 0/false/no/off/empty; strict: strict/2/field/fields; anything else: on', description: 'Authentication-dialog guard.', parse: parseAuthGuard },
  { name: 'HYPRUSE_STRICT', path: 'strict', accepted: '1/true/yes/on | 0/false/no/off', description: 'Seat and stale-observation guard.', parse: bool('HYPRUSE_STRICT') },
  { name: 'HYPRUSE_MARK', path: 'mark', accepted: '1/true/yes/on | 0/false/no/off', description: 'Mark agent-owned windows and show notices.', parse: bool('HYPRUSE_MARK') },
  { name: 'HYPRUSE_JOURNAL', path: 'journal.path', accepted: '1/true/yes/on (default path), 0/false/no/off, or a file path', description: 'Action journal.', parse: parseJournal },
  { name: 'HYPRUSE_JOURNAL_TEXT', path: 'journal.text', accepted: '1/true/yes/on | 0/false/no/off', description: 'Record typed text verbatim.', parse: bool('HYPRUSE_JOURNAL_TEXT') },
  { name: 'HYPRUSE_JOURNAL_MAX_BYTES', path: 'journal.maxBytes', accepted: 'whole number of bytes (0 = never rotate)', description: 'Journal rotation size.', parse: int('HYPRUSE_JOURNAL_MAX_BYTES', 0) },
  { name: 'HYPRUSE_ALLOW_MODIFIER_KEYS', path: 'allowModifierKeys', accepted: '1/true/yes/on | 0/false/no/off', description: "Under confinement, allow combinations holding the compositor's modifier.", parse: bool('HYPRUSE_ALLOW_MODIFIER_KEYS') },
  { name: 'HYPRUSE_DRYRUN', path: 'dryRun', accepted: '1/true/yes/on | 0/false/no/off', description: 'Rehearse: deliver nothing.', parse: bool('HYPRUSE_DRYRUN') },
  { name: 'HYPRUSE_TAKEOVER_MS', path: 'takeoverMs', accepted: 'whole number of ms, 0 = off', description: 'Takeover pause window.', parse: int('HYPRUSE_TAKEOVER_MS', 0) },
  { name: 'HYPRUSE_INDICATOR', path: 'indicator', accepted: '1/true/yes/on | 0/false/no/off', description: 'On-screen indicator while acting.', parse: bool('HYPRUSE_INDICATOR') },
  { name: 'HYPRUSE_INDICATOR_HOLD_MS', path: 'indicatorHoldMs', accepted: 'whole number of ms', description: 'How long the indicator stays after the last action.', parse: int('HYPRUSE_INDICATOR_HOLD_MS', 0) },
  { name: 'HYPRUSE_STOP_CHORD', path: 'stopChord', accepted: 'a key combination (super+alt+Escape) or off', description: 'The stop chord.', parse: (r) => r.trim() || 'off' },
  { name: 'HYPRUSE_MONITOR', path: 'monitor.serve', accepted: '1/true/yes/on | 0/false/no/off', description: 'The MCP server also serves the monitor page.', parse: bool('HYPRUSE_MONITOR') },
  { name: 'HYPRUSE_KEYBOARD', path: 'input.keyboard', accepted: 'auto | wire | wtype', description: 'Keyboard delivery path.', parse: oneOf('HYPRUSE_KEYBOARD', ['auto', 'wire', 'wtype']) },
  { name: 'HYPRUSE_ALWAYS_LOAD', path: 'mcp.alwaysLoad', accepted: 'comma list of tool names, all, none or core', description: 'Tools MCP hosts load up front instead of behind their tool search.', parse: parseAlwaysLoad },
  { name: 'HYPRUSE_CONFIRM_TIMEOUT_S', path: 'mcp.confirmTimeoutS', accepted: 'whole number of seconds, 1 to 3600', description: 'How long a 2026-07-28 confirmation waits for the person (and its sealed state stays good).', parse: int('HYPRUSE_CONFIRM_TIMEOUT_S', 1) },
  { name: 'HYPRUSE_TIME_SCALE', path: 'timeScale', accepted: `a number from ${MIN_TIME_SCALE} to ${MAX_TIME_SCALE}`, description: 'Multiply every timeout (IPC, Wayland, capture, AT-SPI, doctor) for a slow machine.', parse: timeScaleVar },
  { name: 'HYPRUSE_BACKGROUND', path: 'background', accepted: '1/true/yes/on | 0/false/no/off', description: 'Background mode: never the person\'s pointer, keys, focus or visible workspace.', parse: bool('HYPRUSE_BACKGROUND') },
  { name: 'HYPRUSE_BACKGROUND_LIVE_PAGES', path: 'backgroundLivePages', accepted: '1/true/yes/on | 0/false/no/off', description: "Background mode: Chromium's renderers started so their pages stay readable undrawn (without the namespace sandbox).", parse: bool('HYPRUSE_BACKGROUND_LIVE_PAGES') },
  { name: 'HYPRUSE_DESK', path: 'desk', accepted: 'off | private | the name of a desk started with hypruse desk start', description: 'Work in a private headless desk instead of the person\'s session.', parse: (r) => r.trim() || 'off' },
  { name: 'HYPRUSE_DESK_INSTANCE', path: null, accepted: '(set by hypruse)', description: 'Set by hypruse in the environment of every process of a private desk (its compositor, buses and apps), so stopping the desk finds them all by pid; not for users to set.' },
  { name: 'HYPRUSE_LAUNCH_TOKEN', path: null, accepted: '(set by hypruse)', description: 'Set by hypruse in the environment of processes it launches, so their windows are recognised even through launchers; not for users to set.' },
  { name: 'HYPRUSE_LOG', path: null, accepted: 'debug | info | warn | error', description: 'Log level on stderr.' },
];

/** Overrides from the environment as `{ path, value, var }`. Throws UsageError naming the variable. */
export function envOverrides(env: NodeJS.ProcessEnv): Array<{ path: string; value: unknown; variable: string }> {
  const out: Array<{ path: string; value: unknown; variable: string }> = [];
  for (const spec of ENV_VARS) {
    const raw = env[spec.name];
    if (raw === undefined || spec.path === null || !spec.parse) continue;
    out.push({ path: spec.path, value: spec.parse(raw), variable: spec.name });
  }
  return out;
}
