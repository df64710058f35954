import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameDecoder, FrameError, HEADER_SIZE } from '../src/ipc/codec.js';
import { eventName, isEvent, SwayEvent } from '../src/ipc/message-types.js';

describe('i3-ipc codec', () => {
  it('encodes GET_TREE exactly as sway-ipc(7) shows it', () => {
    expect(encodeFrame(4).toString('hex')).toBe('69332d697063' + '00000000' + '04000000');
  });

  it('encodes a payload with its byte length (UTF-8)', () => {
    const f = encodeFrame(0, 'workspace "é"');
    expect(f.readUInt32LE(6)).toBe(Buffer.byteLength('workspace "é"'));
    expect(f.subarray(HEADER_SIZE).toString('utf8')).toBe('workspace "é"');
  });

  it('decodes frames split at every byte boundary and several frames in one chunk', () => {
    const a = encodeFrame(1, '[1,2]');
    const b = encodeFrame(SwayEvent.window, '{"change":"new"}');
    const all = Buffer.concat([a, b]);
    for (let cut = 1; cut < all.length; cut++) {
      const d = new FrameDecoder();
      const frames = [...d.push(all.subarray(0, cut)), ...d.push(all.subarray(cut))];
      expect(frames.map((f) => [f.type >>> 0, f.payload.toString()])).toEqual([
        [1, '[1,2]'],
        [0x80000003, '{"change":"new"}'],
      ]);
      expect(d.pending).toBe(0);
    }
  });

  it('rejects a stream with a bad magic', () => {
    expect(() => new FrameDecoder().push(Buffer.from('i3-ipX\0\0\0\0\0\0\0\0'))).toThrow(FrameError);
  });

  it('rejects an absurd length instead of buffering forever', () => {
    const h = encodeFrame(4);
    h.writeUInt32LE(0xfffffff0, 6);
    expect(() => new FrameDecoder().push(h)).toThrow(/exceeds/);
  });

  it('recognises events by bit 31 and names them', () => {
    expect(isEvent(0x80000003)).toBe(true);
    expect(isEvent(4)).toBe(false);
    expect(eventName(0x80000006)).toBe('shutdown');
    expect(eventName(4)).toBeNull();
  });
});
