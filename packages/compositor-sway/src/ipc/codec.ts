/**
 * i3-ipc framing: magic `i3-ipc` (6 bytes), u32 payload length, u32 type,
 * then the payload; native byte order (little-endian on every platform sway
 * runs on that Node supports here). No domain logic lives here.
 */
import { MAX_REPLY_BYTES } from '@hypruse/core';

export const MAGIC = Buffer.from('i3-ipc', 'ascii');
export const HEADER_SIZE = 14;
/** Refuse frames larger than the kit's reply cap: a corrupt length must not make us buffer forever. */
export const MAX_PAYLOAD = MAX_REPLY_BYTES;

export interface Frame {
  type: number;
  payload: Buffer;
}

export class FrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FrameError';
  }
}

export function encodeFrame(type: number, payload: string | Buffer = ''): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const header = Buffer.alloc(HEADER_SIZE);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(body.length, 6);
  header.writeUInt32LE(type >>> 0, 10);
  return Buffer.concat([header, body]);
}

/** Incremental decoder: push chunks as they arrive, take out complete frames. */
export class FrameDecoder {
  private buf: Buffer = Buffer.alloc(0);

  /** Append a chunk and return every complete frame it finished. Throws FrameError on a corrupt stream. */
  push(chunk: Buffer): Frame[] {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    const frames: Frame[] = [];
    while (this.buf.length >= HEADER_SIZE) {
      if (!this.buf.subarray(0, 6).equals(MAGIC)) {
        throw new FrameError(`bad i3-ipc magic: ${JSON.stringify(this.buf.subarray(0, 6).toString('latin1'))}`);
      }
      const length = this.buf.readUInt32LE(6);
      if (length > MAX_PAYLOAD) throw new FrameError(`i3-ipc frame of ${length} bytes exceeds the ${MAX_PAYLOAD}-byte limit`);
      const type = this.buf.readUInt32LE(10);
      if (this.buf.length < HEADER_SIZE + length) break;
      frames.push({ type, payload: this.buf.subarray(HEADER_SIZE, HEADER_SIZE + length) });
      this.buf = this.buf.subarray(HEADER_SIZE + length);
    }
    if (this.buf.length === 0) this.buf = Buffer.alloc(0);
    return frames;
  }

  /** Bytes received but not yet part of a complete frame. */
  get pending(): number {
    return this.buf.length;
  }
}
