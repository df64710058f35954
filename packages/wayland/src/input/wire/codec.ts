/**
 * Wayland wire format: little-endian 32-bit words. A message is a header
 * (`u32 object id`, `u32 size << 16 | opcode`, size including the 8-byte
 * header) followed by its arguments, each padded to 4 bytes. File
 * descriptors travel out of band (SCM_RIGHTS) and take no bytes.
 */

export type WireArg =
  | { t: 'int'; v: number }
  | { t: 'uint'; v: number }
  | { t: 'fixed'; v: number }
  | { t: 'string'; v: string | null }
  | { t: 'array'; v: Buffer }
  | { t: 'object'; v: number }
  | { t: 'new_id'; v: number }
  | { t: 'fd' };

export const arg = {
  int: (v: number): WireArg => ({ t: 'int', v }),
  uint: (v: number): WireArg => ({ t: 'uint', v }),
  fixed: (v: number): WireArg => ({ t: 'fixed', v }),
  string: (v: string | null): WireArg => ({ t: 'string', v }),
  array: (v: Buffer): WireArg => ({ t: 'array', v }),
  object: (v: number): WireArg => ({ t: 'object', v }),
  newId: (v: number): WireArg => ({ t: 'new_id', v }),
  fd: (): WireArg => ({ t: 'fd' }),
};

const pad4 = (n: number) => (n + 3) & ~3;

/** Signed 24.8 fixed point. */
export function toFixed(v: number): number {
  return Math.round(v * 256) | 0;
}

export function fromFixed(raw: number): number {
  return raw / 256;
}

function argSize(a: WireArg): number {
  switch (a.t) {
    case 'string':
      return a.v === null ? 4 : 4 + pad4(Buffer.byteLength(a.v, 'utf8') + 1);
    case 'array':
      return 4 + pad4(a.v.length);
    case 'fd':
      return 0;
    default:
      return 4;
  }
}

export const MAX_MESSAGE_SIZE = 4096;

/** Encode one request. Throws if the message exceeds the protocol's size limit. */
export function encodeMessage(objectId: number, opcode: number, args: WireArg[] = []): Buffer {
  const size = 8 + args.reduce((n, a) => n + argSize(a), 0);
  if (size > MAX_MESSAGE_SIZE) throw new RangeError(`wayland message too large (${size} bytes, limit ${MAX_MESSAGE_SIZE})`);
  const buf = Buffer.alloc(size);
  buf.writeUInt32LE(objectId >>> 0, 0);
  buf.writeUInt32LE(((size << 16) | (opcode & 0xffff)) >>> 0, 4);
  let o = 8;
  for (const a of args) {
    switch (a.t) {
      case 'int':
        buf.writeInt32LE(a.v | 0, o);
        o += 4;
        break;
      case 'uint':
      case 'object':
      case 'new_id':
        buf.writeUInt32LE(a.v >>> 0, o);
        o += 4;
        break;
      case 'fixed':
        buf.writeInt32LE(toFixed(a.v), o);
        o += 4;
        break;
      case 'string': {
        if (a.v === null) {
          buf.writeUInt32LE(0, o);
          o += 4;
          break;
        }
        const len = Buffer.byteLength(a.v, 'utf8');
        buf.writeUInt32LE(len + 1, o);
        buf.write(a.v, o + 4, 'utf8');
        o += 4 + pad4(len + 1); // NUL and padding are already zero
        break;
      }
      case 'array':
        buf.writeUInt32LE(a.v.length, o);
        a.v.copy(buf, o + 4);
        o += 4 + pad4(a.v.length);
        break;
      case 'fd':
        break;
    }
  }
  return buf;
}

export interface WireMessage {
  objectId: number;
  opcode: number;
  body: Buffer;
}

/** Splits a byte stream into messages; keeps partial messages until complete. */
export class MessageSplitter {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): WireMessage[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const out: WireMessage[] = [];
    let o = 0;
    while (this.pending.length - o >= 8) {
      const objectId = this.pending.readUInt32LE(o);
      const word = this.pending.readUInt32LE(o + 4);
      const size = word >>> 16;
      if (size < 8) throw new RangeError(`malformed wayland message header (size ${size})`);
      if (this.pending.length - o < size) break;
      out.push({ objectId, opcode: word & 0xffff, body: Buffer.from(this.pending.subarray(o + 8, o + size)) });
      o += size;
    }
    this.pending = o === this.pending.length ? Buffer.alloc(0) : Buffer.from(this.pending.subarray(o));
    return out;
  }

  get buffered(): number {
    return this.pending.length;
  }
}

/** Reads event arguments in order. Throws RangeError on a truncated body. */
export class ArgReader {
  private o = 0;
  constructor(private readonly body: Buffer) {}

  private need(n: number): void {
    if (this.o + n > this.body.length) throw new RangeError('truncated wayland event');
  }

  int(): number {
    this.need(4);
    const v = this.body.readInt32LE(this.o);
    this.o += 4;
    return v;
  }

  uint(): number {
    this.need(4);
    const v = this.body.readUInt32LE(this.o);
    this.o += 4;
    return v;
  }

  fixed(): number {
    return fromFixed(this.int());
  }

  object(): number {
    return this.uint();
  }

  newId(): number {
    return this.uint();
  }

  string(): string | null {
    const len = this.uint();
    if (len === 0) return null;
    this.need(pad4(len));
    const s = this.body.toString('utf8', this.o, this.o + len - 1);
    this.o += pad4(len);
    return s;
  }

  array(): Buffer {
    const len = this.uint();
    this.need(pad4(len));
    const b = Buffer.from(this.body.subarray(this.o, this.o + len));
    this.o += pad4(len);
    return b;
  }
}
