/**
 * A JS string as a Lua double-quoted string literal. Every byte that could end
 * or alter the literal is escaped: `\` and `"` by backslash, control
 * characters (newlines included) and DEL as `\ddd`. `]]`, `..`, `--` and `'`
 * are inert inside a double-quoted literal. Non-ASCII text passes as UTF-8.
 */
export function luaString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0) as number;
    if (ch === '\\') out += '\\\\';
    else if (ch === '"') out += '\\"';
    else if (code < 0x20 || code === 0x7f) out += `\\${String(code).padStart(3, '0')}`;
    else out += ch;
  }
  return out + '"';
}

/** A Lua number literal from a finite JS number (integers stay integers). */
export function luaNumber(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`not a finite number: ${n}`);
  return Number.isInteger(n) ? String(n) : String(n);
}

export type LuaValue = string | number | boolean | LuaTable;
export interface LuaTable {
  [key: string]: LuaValue | undefined;
}

/** `{ key = value, ... }` with keys that must be Lua identifiers (ours, never user input). */
export function luaTable(t: LuaTable): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(t)) {
    if (v === undefined) continue;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new RangeError(`not a Lua identifier: ${k}`);
    parts.push(`${k} = ${luaValue(v)}`);
  }
  return parts.length ? `{ ${parts.join(', ')} }` : '{}';
}

export function luaValue(v: LuaValue): string {
  if (typeof v === 'string') return luaString(v);
  if (typeof v === 'number') return luaNumber(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return luaTable(v);
}
