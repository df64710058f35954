// The Wayland wire codec against hand-written bytes.
import { describe, expect, it } from 'vitest';
import { ArgReader, MessageSplitter, arg, encodeMessage, toFixed } from '../src/input/index.js';

const words = (b: Buffer) => Array.from({ length: b.length / 4 }, (_, i) => b.readUInt32LE(i * 4));

describe('encodeMessage', () => {
  it('writes the header as object id then size << 16 | opcode', () => {
    const m = encodeMessage(1, 0, [arg.newId(3)]); // wl_display.sync(new_id 3)
    expect(words(m)).toEqual([1, (12 << 16) | 0, 3]);
  });

  it('pads strings with their NUL to 4 bytes and counts the NUL in the length', () => {
    // wl_registry.bind(name 7, "wl_seat", version 1, new_id 5)
    const m = encodeMessage(2, 0, [arg.uint(7), arg.string('wl_seat'), arg.uint(1), arg.newId(5)]);
    expect(m.length).toBe(8 + 4 + (4 + 8) + 4 + 4);
    expect(m.readUInt32LE(12)).toBe(8);
    expect(m.subarray(16, 24).toString('latin1')).toBe('wl_seat\0');
    expect(words(m).slice(6)).toEqual([1, 5]);
    const four = encodeMessage(9, 1, [arg.string('abc')]);
    expect(four.length).toBe(16);
    expect(encodeMessage(9, 1, [arg.string('abcd')]).length).toBe(20);
  });

  it('encodes UTF-8 strings by byte length, null strings as length 0', () => {
    const m = encodeMessage(4, 2, [arg.string('é'), arg.string(null)]);
    expect(m.readUInt32LE(8)).toBe(3); // 2 bytes + NUL
    expect(m.readUInt32LE(16)).toBe(0);
  });

  it('encodes fixed as signed 24.8, ints signed, fds out of band', () => {
    const m = encodeMessage(5, 7, [arg.uint(1), arg.uint(0), arg.fixed(-15), arg.int(-1), arg.fd()]);
    expect(m.length).toBe(8 + 16);
    expect(m.readInt32LE(16)).toBe(-15 * 256);
    expect(m.readInt32LE(20)).toBe(-1);
    expect(toFixed(0.5)).toBe(128);
  });

  it('encodes arrays with their byte length and padding', () => {
    const m = encodeMessage(6, 0, [arg.array(Buffer.from([1, 2, 3, 4, 5]))]);
    expect(m.length).toBe(8 + 4 + 8);
    expect(m.readUInt32LE(8)).toBe(5);
  });

  it('refuses a message over the 4096-byte protocol limit', () => {
    expect(() => encodeMessage(1, 0, [arg.string('x'.repeat(5000))])).toThrow(/too large/);
  });
});

describe('MessageSplitter and ArgReader', () => {
  it('splits a stream into messages across arbitrary chunk boundaries', () => {
    const a = encodeMessage(2, 0, [arg.uint(1), arg.string('wl_seat'), arg.uint(7)]);
    const b = encodeMessage(3, 0, [arg.uint(42)]);
    const all = Buffer.concat([a, b]);
    const s = new MessageSplitter();
    const out = [...s.push(all.subarray(0, 5)), ...s.push(all.subarray(5, a.length + 3)), ...s.push(all.subarray(a.length + 3))];
    expect(out.map((m) => [m.objectId, m.opcode, m.body.length])).toEqual([[2, 0, a.length - 8], [3, 0, 4]]);
    expect(s.buffered).toBe(0);
    const r = new ArgReader(out[0].body);
    expect([r.uint(), r.string(), r.uint()]).toEqual([1, 'wl_seat', 7]);
  });

  it('reads wl_display.error (object, code, message)', () => {
    const m = encodeMessage(1, 0, [arg.object(5), arg.uint(3), arg.string('bad things')]);
    const [msg] = new MessageSplitter().push(m);
    const r = new ArgReader(msg.body);
    expect([r.object(), r.uint(), r.string()]).toEqual([5, 3, 'bad things']);
  });

  it('rejects a truncated body and a malformed header', () => {
    expect(() => new ArgReader(Buffer.alloc(2)).uint()).toThrow(RangeError);
    const bad = Buffer.alloc(8);
    bad.writeUInt32LE(1, 0);
    bad.writeUInt32LE(4 << 16, 4);
    expect(() => new MessageSplitter().push(bad)).toThrow(/malformed/);
  });
});
