import { bindKeysOf, type Bind, type BindKeys, type BindSyntax } from '@hypruse/core';

export interface ParsedBind extends Bind {
  /** bindsym or bindcode */
  kind: 'bindsym' | 'bindcode';
  /** flags such as --release, --locked, --to-code */
  flags: string[];
  /** the command as sway runs it (variables substituted) */
  command: string;
}

/** Join `\`-continued lines and drop comments. */
function logicalLines(config: string): string[] {
  const out: string[] = [];
  let acc = '';
  for (const raw of config.split('\n')) {
    const raw2 = raw.replace(/\r$/, '');
    const line = acc ? raw2.trimStart() : raw2;
    if (line.endsWith('\\')) {
      acc += line.slice(0, -1).trimEnd() + ' ';
      continue;
    }
    const full = (acc + line).trim();
    acc = '';
    if (full.length === 0 || full.startsWith('#')) continue;
    out.push(full);
  }
  if (acc.trim()) out.push(acc.trim());
  return out;
}

/** `$var` substitution, longest names first (as sway does). */
function substitute(text: string, vars: Map<string, string>): string {
  if (vars.size === 0 || !text.includes('$')) return text;
  const names = [...vars.keys()].sort((a, b) => b.length - a.length);
  let out = text;
  for (const name of names) out = out.split(name).join(vars.get(name)!);
  return out;
}

function unquote(s: string): string {
  if (s.length >= 2 && ((s.startsWith('"') && s.endsWith('"')) || (s.startsWith("'") && s.endsWith("'")))) return s.slice(1, -1);
  return s;
}

/** Split a bind body `[--flags...] combo command...` into its parts (the command keeps its spacing). */
function splitBindBody(body: string, inheritedFlags: string[]): { flags: string[]; combo: string; command: string } | null {
  const s = body.trim();
  const re = /\S+/g;
  const flags = [...inheritedFlags];
  let m: RegExpExecArray | null;
  while ((m = re.exec(s))) {
    if (m[0].startsWith('--')) {
      flags.push(m[0]);
      continue;
    }
    return { flags, combo: m[0], command: s.slice(m.index + m[0].length).trim() };
  }
  return null;
}

function makeBind(kind: 'bindsym' | 'bindcode', flags: string[], combo: string, command: string, mode: string | undefined): ParsedBind {
  const normCombo = kind === 'bindcode' ? combo.split('+').map((k, i, a) => (i === a.length - 1 && /^\d+$/.test(k) ? `code:${k}` : k)).join('+') : combo;
  const space = command.search(/\s/);
  const action = space < 0 ? command : command.slice(0, space);
  const arg = space < 0 ? '' : command.slice(space + 1).trim();
  const shown = flags.filter((f) => f !== '--no-warn');
  return {
    kind,
    flags,
    command,
    combo: normCombo,
    action,
    arg,
    ...(shown.length > 0 ? { description: `flags: ${shown.join(' ')}` } : {}),
    ...(mode && mode !== 'default' ? { mode } : {}),
  };
}

/**
 * Parse `bindsym`/`bindcode` lines from sway's loaded config text
 * (GET_CONFIG): flags, `set $var` substitution, `mode "x" { ... }` blocks and
 * `bindsym { ... }` blocks. Files pulled in with `include` are not part of
 * GET_CONFIG and so are not listed.
 */
export function parseSwayBinds(config: string): ParsedBind[] {
  const vars = new Map<string, string>();
  const binds: ParsedBind[] = [];
  const stack: Array<{ kind: 'mode'; name: string } | { kind: 'binds'; bind: 'bindsym' | 'bindcode'; flags: string[] } | { kind: 'other' }> = [];
  const currentMode = () => {
    for (let i = stack.length - 1; i >= 0; i--) {
      const s = stack[i];
      if (s.kind === 'mode') return s.name;
    }
    return undefined;
  };

  for (const rawLine of logicalLines(config)) {
    const setMatch = /^set\s+(\$\S+)\s+(.*)$/.exec(rawLine);
    if (setMatch) {
      vars.set(setMatch[1], substitute(setMatch[2].trim(), vars));
      continue;
    }
    const line = substitute(rawLine, vars);
    if (line === '}') {
      stack.pop();
      continue;
    }
    const top = stack[stack.length - 1];
    if (top && top.kind === 'binds') {
      const parts = splitBindBody(line, top.flags);
      if (parts) binds.push(makeBind(top.bind, parts.flags, parts.combo, parts.command, currentMode()));
      continue;
    }
    const modeMatch = /^mode\s+(?:--pango_markup\s+)?("[^"]*"|'[^']*'|\S+)\s*\{$/.exec(line);
    if (modeMatch) {
      stack.push({ kind: 'mode', name: unquote(modeMatch[1]) });
      continue;
    }
    const blockMatch = /^(bindsym|bindcode)((?:\s+--\S+)*)\s*\{$/.exec(line);
    if (blockMatch) {
      stack.push({ kind: 'binds', bind: blockMatch[1] as 'bindsym' | 'bindcode', flags: blockMatch[2].trim().split(/\s+/).filter(Boolean) });
      continue;
    }
    const bindMatch = /^(bindsym|bindcode)\s+(.*)$/.exec(line);
    if (bindMatch) {
      const parts = splitBindBody(bindMatch[2], []);
      if (parts && parts.command) binds.push(makeBind(bindMatch[1] as 'bindsym' | 'bindcode', parts.flags, parts.combo, parts.command, currentMode()));
      continue;
    }
    if (line.endsWith('{')) stack.push({ kind: 'other' });
  }
  return binds;
}

/** Normalize a combo for lookup: case-insensitive, no spaces, modifiers order-independent. */
export function comboKey(combo: string): string {
  const parts = combo.replace(/\s+/g, '').toLowerCase().split('+');
  const key = parts.pop() ?? '';
  return [...parts.sort(), key].join('+');
}

/**
 * sway's binding syntax: modifier names as sway accepts them (case-insensitive),
 * mouse buttons (`button1`..`button9`, `BTN_LEFT`...) and `bindcode` keycodes
 * (listed as `code:N`, N the XKB keycode sway compares).
 */
export const SWAY_BIND_SYNTAX: BindSyntax = {
  modifiers: {
    shift: 'shift', lock: 'caps', caps: 'caps', control: 'ctrl', ctrl: 'ctrl', mod1: 'alt', alt: 'alt',
    mod2: 'mod2', mod3: 'mod3', mod4: 'logo', super: 'logo', mod5: 'altgr',
  },
  pointer: (key) => /^button\d+$/i.test(key) || /^BTN_/i.test(key),
  keycode: (key) => {
    const m = /^code:(\d+)$/.exec(key);
    return m ? Number(m[1]) : null;
  },
};

/** A sway binding's keys in the normalized form (sway: `Mod4+Shift+q`, `Ctrl+Mod1+code:119`). */
export function swayBindKeys(combo: string): BindKeys {
  return bindKeysOf(combo, SWAY_BIND_SYNTAX);
}
