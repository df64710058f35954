/**
 * niri's key bindings from its KDL config (`binds { Mod+T { spawn "foot"; } }`):
 * niri's IPC cannot list them, so they are read from the file, only to keep the
 * keyboard tool from pressing them (they are not run from here).
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { bindKeysOf, type Bind, type BindKeys, type BindSyntax } from '@hypruse/core';

/**
 * niri's binding syntax: its modifier names (case-insensitive; `Mod` is Super
 * on a TTY, Alt when niri runs nested in a window, taken as Super) and the
 * pointer pseudo-keys (mouse buttons, wheel and touchpad scrolls).
 */
export const NIRI_BIND_SYNTAX: BindSyntax = {
  modifiers: {
    ctrl: 'ctrl', control: 'ctrl', shift: 'shift', alt: 'alt', super: 'logo', win: 'logo', mod: 'logo',
    iso_level3_shift: 'altgr', mod5: 'altgr', iso_level5_shift: 'mod3', mod3: 'mod3',
  },
  pointer: (key) => /^(Mouse(Left|Right|Middle|Back|Forward)|(Wheel|Touchpad)Scroll(Down|Up|Left|Right))$/i.test(key),
};

/** A niri binding's keys in the normalized form (`Mod+Shift+Slash`, `Super+Alt+L`, `XF86AudioMute`). */
export function niriBindKeys(combo: string): BindKeys {
  return bindKeysOf(combo, NIRI_BIND_SYNTAX);
}

type Token = { t: 'word' | 'str'; v: string } | { t: '{' | '}' | ';' | 'nl' | 'slashdash' };

/** KDL tokens: bare words, strings (plain and raw), braces, node terminators; comments dropped. */
function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === '\n') {
      out.push({ t: 'nl' });
      i++;
    } else if (/\s/.test(c) || c === '\\') i++;
    else if (src.startsWith('//', i)) {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (src.startsWith('/*', i)) {
      let depth = 0;
      do {
        if (src.startsWith('/*', i)) (depth++, (i += 2));
        else if (src.startsWith('*/', i)) (depth--, (i += 2));
        else i++;
      } while (depth > 0 && i < src.length);
    } else if (src.startsWith('/-', i)) {
      out.push({ t: 'slashdash' });
      i += 2;
    } else if (c === '{' || c === '}' || c === ';') {
      out.push({ t: c });
      i++;
    } else if (c === '"') {
      let v = '';
      i++;
      while (i < src.length && src[i] !== '"') {
        if (src[i] === '\\' && i + 1 < src.length) {
          const e = src[i + 1];
          v += e === 'n' ? '\n' : e === 't' ? '\t' : e;
          i += 2;
        } else v += src[i++];
      }
      i++;
      out.push({ t: 'str', v });
    } else if (/^r#*"/.test(src.slice(i, i + 40))) {
      const hashes = /^r(#*)"/.exec(src.slice(i))![1];
      const end = `"${hashes}`;
      const start = i + 2 + hashes.length;
      const stop = src.indexOf(end, start);
      out.push({ t: 'str', v: src.slice(start, stop < 0 ? src.length : stop) });
      i = stop < 0 ? src.length : stop + end.length;
    } else {
      let v = '';
      while (i < src.length && !/[\s{};"]/.test(src[i]) && !src.startsWith('//', i) && !src.startsWith('/*', i)) v += src[i++];
      out.push({ t: 'word', v });
    }
  }
  return out;
}

interface Node {
  name: string;
  args: string[];
  children: Node[];
}

/** KDL nodes (names, plain arguments and properties as `key=value` words, children). */
function nodes(tokens: Token[]): Node[] {
  let i = 0;
  const block = (): Node[] => {
    const list: Node[] = [];
    let skip = false;
    while (i < tokens.length) {
      const tk = tokens[i];
      if (tk.t === '}') {
        i++;
        return list;
      }
      if (tk.t === 'nl' || tk.t === ';') {
        i++;
        continue;
      }
      if (tk.t === 'slashdash') {
        skip = true;
        i++;
        continue;
      }
      if (tk.t === '{') {
        // children without a node name: read and drop
        i++;
        block();
        continue;
      }
      const node: Node = { name: (tk as { v: string }).v, args: [], children: [] };
      i++;
      while (i < tokens.length) {
        const a = tokens[i];
        if (a.t === 'word' || a.t === 'str') {
          const last = node.args.length - 1;
          // a property with a quoted value (`title="Open a Terminal"`) is one argument
          if (a.t === 'str' && last >= 0 && node.args[last].endsWith('=')) node.args[last] += a.v;
          else node.args.push(a.v);
          i++;
        } else if (a.t === 'slashdash') {
          i += 2; // a commented-out argument or block
        } else if (a.t === '{') {
          i++;
          node.children = block();
        } else break;
      }
      if (!skip) list.push(node);
      skip = false;
    }
    return list;
  };
  return block();
}

/** The bindings of a niri config (`binds` sections at the top level). */
export function parseNiriBinds(config: string): Bind[] {
  const out: Bind[] = [];
  for (const section of nodes(tokenize(config))) {
    if (section.name !== 'binds') continue;
    for (const b of section.children) {
      const action = b.children[0];
      const title = b.args.find((a) => a.startsWith('hotkey-overlay-title='));
      out.push({
        combo: b.name,
        keys: niriBindKeys(b.name),
        action: action?.name ?? '',
        arg: action ? action.args.join(' ') : '',
        ...(title ? { description: title.slice('hotkey-overlay-title='.length) } : {}),
      });
    }
  }
  return out;
}

/** Where niri reads its config: $NIRI_CONFIG, else $XDG_CONFIG_HOME/niri/config.kdl (~/.config by default). */
export function niriConfigPath(env: NodeJS.ProcessEnv): string {
  if (env.NIRI_CONFIG) return env.NIRI_CONFIG;
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'niri', 'config.kdl');
}

/** The configured bindings, or null when the file cannot be read (niri then runs its built-in defaults, which bind Mod). */
export function readNiriBinds(env: NodeJS.ProcessEnv): Bind[] | null {
  let text: string;
  try {
    text = readFileSync(niriConfigPath(env), 'utf8');
  } catch {
    return null;
  }
  return parseNiriBinds(text);
}
