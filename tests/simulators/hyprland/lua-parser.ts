/**
 * A strict parser for the tiny Lua subset Hyprland's dispatch/eval calls use:
 * dotted calls, string literals (all escape forms and long brackets), numbers,
 * booleans, nil and table constructors. Anything else (operators, `..`,
 * statements) is a syntax error worded like Lua's, so an injection attempt that
 * escapes a literal shows up as an error or a changed value, never as silently
 * executed code.
 */
export type LuaVal = string | number | boolean | null | LuaTableVal | LuaCall;
export interface LuaTableVal {
  kind: 'table';
  fields: Record<string, LuaVal>;
  items: LuaVal[];
}
export interface LuaCall {
  kind: 'call';
  path: string;
  args: LuaVal[];
}

export class LuaSyntaxError extends Error {}

type Tok = { t: 'name' | 'str' | 'num' | 'sym' | 'eof'; v: string; n?: number };

function tokenize(src: string): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  const err = (msg: string) => {
    throw new LuaSyntaxError(msg);
  };
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '-' && src[i + 1] === '-') err(`unexpected symbol near '--'`);
    if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < src.length && /[A-Za-z0-9_]/.test(src[j])) j++;
      toks.push({ t: 'name', v: src.slice(i, j) });
      i = j;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '-' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^-?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(src.slice(i)) as RegExpExecArray;
      toks.push({ t: 'num', v: m[0], n: Number(m[0]) });
      i += m[0].length;
      continue;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      let out = '';
      for (;;) {
        if (j >= src.length) err(`unfinished string near '${src.slice(i, i + 20)}'`);
        const ch = src[j];
        if (ch === c) {
          j++;
          break;
        }
        if (ch === '\n') err(`unfinished string near '${src.slice(i, j)}'`);
        if (ch === '\\') {
          const e = src[j + 1];
          const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v', '\\': '\\', '"': '"', "'": "'", '\n': '\n' };
          if (e !== undefined && e in simple) {
            out += simple[e];
            j += 2;
          } else if (e !== undefined && /[0-9]/.test(e)) {
            const m = /^[0-9]{1,3}/.exec(src.slice(j + 1)) as RegExpExecArray;
            const code = Number(m[0]);
            if (code > 255) err('decimal escape too large');
            out += String.fromCharCode(code);
            j += 1 + m[0].length;
          } else if (e === 'x') {
            const h = src.slice(j + 2, j + 4);
            if (!/^[0-9a-fA-F]{2}$/.test(h)) err('hexadecimal digit expected');
            out += String.fromCharCode(parseInt(h, 16));
            j += 4;
          } else if (e === 'z') {
            j += 2;
            while (j < src.length && /\s/.test(src[j])) j++;
          } else if (e === 'u') {
            const m = /^\{([0-9a-fA-F]+)\}/.exec(src.slice(j + 2));
            if (!m) err('missing { in \\u{xxxx}');
            out += String.fromCodePoint(parseInt((m as RegExpExecArray)[1], 16));
            j += 2 + (m as RegExpExecArray)[0].length;
          } else err(`invalid escape sequence '\\${e ?? ''}'`);
          continue;
        }
        out += ch;
        j++;
      }
      toks.push({ t: 'str', v: out });
      i = j;
      continue;
    }
    if (c === '[' && /^\[=*\[/.test(src.slice(i))) {
      const open = /^\[(=*)\[/.exec(src.slice(i)) as RegExpExecArray;
      const close = `]${open[1]}]`;
      const end = src.indexOf(close, i + open[0].length);
      if (end < 0) err('unfinished long string');
      let body = src.slice(i + open[0].length, end);
      if (body.startsWith('\n')) body = body.slice(1);
      toks.push({ t: 'str', v: body });
      i = end + close.length;
      continue;
    }
    if ('(){},.=;'.includes(c)) {
      if (c === '.' && src[i + 1] === '.') err(`unexpected symbol near '..'`);
      toks.push({ t: 'sym', v: c });
      i++;
      continue;
    }
    err(`unexpected symbol near '${c}'`);
  }
  toks.push({ t: 'eof', v: '<eof>' });
  return toks;
}

class Parser {
  private i = 0;
  constructor(private readonly toks: Tok[]) {}
  private peek(): Tok {
    return this.toks[this.i];
  }
  private near(t: Tok): string {
    return t.t === 'eof' ? '<eof>' : `'${t.v}'`;
  }
  private expect(sym: string): void {
    const t = this.peek();
    if (t.t !== 'sym' || t.v !== sym) throw new LuaSyntaxError(`'${sym}' expected near ${this.near(t)}`);
    this.i++;
  }
  expr(): LuaVal {
    const t = this.peek();
    if (t.t === 'str') {
      this.i++;
      return t.v;
    }
    if (t.t === 'num') {
      this.i++;
      return t.n as number;
    }
    if (t.t === 'name') {
      if (t.v === 'true' || t.v === 'false') {
        this.i++;
        return t.v === 'true';
      }
      if (t.v === 'nil') {
        this.i++;
        return null;
      }
      return this.call();
    }
    if (t.t === 'sym' && t.v === '{') return this.table();
    throw new LuaSyntaxError(`unexpected symbol near ${this.near(t)}`);
  }
  call(): LuaCall {
    const parts = [this.name()];
    while (this.peek().t === 'sym' && this.peek().v === '.') {
      this.i++;
      parts.push(this.name());
    }
    const t = this.peek();
    if (t.t !== 'sym' || t.v !== '(') throw new LuaSyntaxError(`')' expected near ${this.near(t)}`);
    this.i++;
    const args: LuaVal[] = [];
    if (!(this.peek().t === 'sym' && this.peek().v === ')')) {
      args.push(this.expr());
      while (this.peek().t === 'sym' && this.peek().v === ',') {
        this.i++;
        args.push(this.expr());
      }
    }
    this.expect(')');
    return { kind: 'call', path: parts.join('.'), args };
  }
  private name(): string {
    const t = this.peek();
    if (t.t !== 'name') throw new LuaSyntaxError(`<name> expected near ${this.near(t)}`);
    this.i++;
    return t.v;
  }
  table(): LuaTableVal {
    this.expect('{');
    const out: LuaTableVal = { kind: 'table', fields: {}, items: [] };
    while (!(this.peek().t === 'sym' && this.peek().v === '}')) {
      const t = this.peek();
      const n = this.toks[this.i + 1];
      if (t.t === 'name' && n.t === 'sym' && n.v === '=') {
        this.i += 2;
        out.fields[t.v] = this.expr();
      } else out.items.push(this.expr());
      const s = this.peek();
      if (s.t === 'sym' && (s.v === ',' || s.v === ';')) this.i++;
      else if (!(s.t === 'sym' && s.v === '}')) throw new LuaSyntaxError(`'}' expected near ${this.near(s)}`);
    }
    this.expect('}');
    return out;
  }
  end(): void {
    const t = this.peek();
    if (t.t !== 'eof') throw new LuaSyntaxError(`')' expected near ${this.near(t)}`);
  }
}

/** Parse a single expression (what follows `dispatch `, evaluated as `hl.dispatch(<expr>)`). */
export function parseLuaExpression(src: string): LuaVal {
  const p = new Parser(tokenize(src));
  const v = p.expr();
  p.end();
  return v;
}

/** Parse an `eval` chunk: one call statement, optionally `return`ed. */
export function parseLuaStatement(src: string): LuaCall {
  const body = src.trim().replace(/^return\s+/, '');
  const p = new Parser(tokenize(body));
  const v = p.call();
  p.end();
  return v;
}
