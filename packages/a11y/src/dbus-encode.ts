/**
 * Encodes a D-Bus METHOD_CALL message (little endian, protocol version 1) straight into a Buffer,
 * for the argument types the accessibility backend sends: s, o, g, u, i, b, y and arrays of
 * strings. A tree read sends hundreds of calls; dbus-next's general marshaller (a signature tree,
 * a variant conversion and a buffer builder per message) was a third of its CPU. Null for any other
 * signature: the caller then lets dbus-next encode it.
 */

/** One argument type the encoder handles: a basic type, or `a` + a string type. */
type Arg = 's' | 'o' | 'g' | 'u' | 'i' | 'b' | 'y' | 'as' | 'ao';

const parsed = new Map<string, Arg[] | null>();

function parseSignature(sig: string): Arg[] | null {
  let hit = parsed.get(sig);
  if (hit !== undefined) return hit;
  const out: Arg[] = [];
  for (let i = 0; i < sig.length; i++) {
    const c = sig[i];
    if ('soguiby'.includes(c)) out.push(c as Arg);
    else if (c === 'a' && (sig[i + 1] === 's' || sig[i + 1] === 'o')) out.push(`a${sig[++i]}` as Arg);
    else {
      out.length = 0;
      hit = null;
      break;
    }
  }
  if (hit !== null) hit = out;
  parsed.set(sig, hit);
  return hit;
}

export interface MethodCall {
  destination: string;
  path: string;
  iface: string;
  member: string;
  signature?: string;
  body?: unknown[];
}

const HEADER_PATH = 1;
const HEADER_INTERFACE = 2;
const HEADER_MEMBER = 3;
const HEADER_DESTINATION = 6;
const HEADER_SIGNATURE = 8;

/** Grows on demand; one per process, copied out per message (a write may be queued while corked). */
let scratch = Buffer.allocUnsafe(4096);

class Writer {
  off = 0;
  constructor(private readonly base: number) {}

  ensure(n: number): void {
    if (this.off + n <= scratch.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(scratch.length * 2, this.off + n + 1024));
    scratch.copy(bigger, 0, 0, this.off);
    scratch = bigger;
  }

  /** Pad with zeros to a multiple of `n`, counted from `base` (the body's start for body values). */
  align(n: number): void {
    const rel = (this.off - this.base) % n;
    if (rel === 0) return;
    const pad = n - rel;
    this.ensure(pad);
    scratch.fill(0, this.off, this.off + pad);
    this.off += pad;
  }

  byte(v: number): void {
    this.ensure(1);
    scratch[this.off++] = v;
  }

  u32(v: number): void {
    this.align(4);
    this.ensure(4);
    scratch.writeUInt32LE(v >>> 0, this.off);
    this.off += 4;
  }

  i32(v: number): void {
    this.align(4);
    this.ensure(4);
    scratch.writeInt32LE(v | 0, this.off);
    this.off += 4;
  }

  /** s or o: uint32 length, UTF-8 bytes, NUL. */
  str(v: string): void {
    this.align(4);
    const n = Buffer.byteLength(v);
    this.ensure(4 + n + 1);
    scratch.writeUInt32LE(n, this.off);
    scratch.write(v, this.off + 4, n, 'utf8');
    scratch[this.off + 4 + n] = 0;
    this.off += 4 + n + 1;
  }

  /** g: byte length, ASCII, NUL. */
  sig(v: string): void {
    this.ensure(v.length + 2);
    scratch[this.off] = v.length;
    scratch.write(v, this.off + 1, v.length, 'latin1');
    scratch[this.off + 1 + v.length] = 0;
    this.off += v.length + 2;
  }
}

function writeArg(w: Writer, t: Arg, v: unknown): boolean {
  switch (t) {
    case 's':
    case 'o':
      if (typeof v !== 'string') return false;
      w.str(v);
      return true;
    case 'g':
      if (typeof v !== 'string' || v.length > 255) return false;
      w.sig(v);
      return true;
    case 'u':
    case 'i':
    case 'b':
      if (t === 'b' ? typeof v !== 'boolean' : typeof v !== 'number' || !Number.isInteger(v)) return false;
      if (t === 'i') w.i32(v as number);
      else w.u32(t === 'b' ? (v ? 1 : 0) : (v as number));
      return true;
    case 'y':
      if (typeof v !== 'number' || !Number.isInteger(v)) return false;
      w.byte(v & 0xff);
      return true;
    case 'as':
    case 'ao': {
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) return false;
      w.u32(0);
      const lenAt = w.off - 4;
      // elements align to 4, which the length already is
      const start = w.off;
      for (const x of v as string[]) w.str(x);
      scratch.writeUInt32LE(w.off - start, lenAt);
      return true;
    }
  }
}

/** The encoded message, or null when its signature or body is outside what this encoder handles. */
export function encodeMethodCall(serial: number, call: MethodCall): Buffer | null {
  const signature = call.signature ?? '';
  const body = call.body ?? [];
  const types = parseSignature(signature);
  if (!types || types.length !== body.length) return null;

  const w = new Writer(0);
  w.ensure(16);
  scratch[0] = 0x6c; // 'l': little endian
  scratch[1] = 1; // METHOD_CALL
  scratch[2] = 0; // flags
  scratch[3] = 1; // protocol version
  w.off = 16;
  // header fields: a(yv), each struct aligned to 8
  const field = (code: number, type: 'o' | 's' | 'g', value: string) => {
    w.align(8);
    w.byte(code);
    w.sig(type);
    if (type === 'g') w.sig(value);
    else w.str(value);
  };
  field(HEADER_PATH, 'o', call.path);
  field(HEADER_INTERFACE, 's', call.iface);
  field(HEADER_MEMBER, 's', call.member);
  field(HEADER_DESTINATION, 's', call.destination);
  if (signature) field(HEADER_SIGNATURE, 'g', signature);
  const fieldsLen = w.off - 16;
  w.align(8);
  const bodyStart = w.off;
  const bw = new Writer(bodyStart);
  bw.off = bodyStart;
  for (let i = 0; i < types.length; i++) if (!writeArg(bw, types[i], body[i])) return null;
  const end = bw.off;
  scratch.writeUInt32LE(end - bodyStart, 4);
  scratch.writeUInt32LE(serial >>> 0, 8);
  scratch.writeUInt32LE(fieldsLen, 12);
  return Buffer.from(scratch.subarray(0, end));
}
