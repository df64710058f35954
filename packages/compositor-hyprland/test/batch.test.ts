import { describe, expect, it } from 'vitest';
import { HypruseError } from '@hypruse/core';
import { buildBatch, decodeBatch, decodeJsonValues } from '../src/ipc/batch.js';
import { HyprlandRequestClient, avoidBlockingLength } from '../src/ipc/request-client.js';
import { socketsFor } from '../src/ipc/socket-paths.js';
import { HyprlandSimulator } from '../../../tests/simulators/hyprland/index.js';

describe('[[BATCH]] requests', () => {
  it('joins commands with ; and refuses ; or \\ inside a command (escapes exist only after 0.56)', () => {
    expect(buildBatch(['j/monitors', 'j/clients'])).toBe('[[BATCH]]j/monitors;j/clients');
    expect(() => buildBatch(['notify -1 100 rgb(ff5555) a;b', 'j/version'])).toThrow(/Hyprland <= 0.56 splits a batch on every ";" and has no escapes/);
    expect(() => buildBatch(['notify -1 100 rgb(ff5555) a\\b'])).toThrow(/send it alone/);
  });

  it('decodes successive JSON values regardless of separators, with blank lines inside strings', () => {
    const text = '{"a": "x\\n\\n\\ny"}\n\n\n[1, {"b": "}]"}]\n\n\n{}\n\n\n{"x": 812, "y": 433}';
    expect(decodeJsonValues(text, 'test')).toEqual([{ a: 'x\n\n\ny' }, [1, { b: '}]' }], {}, { x: 812, y: 433 }]);
    // no separator at all (a hyprctl that concatenates) and bare scalars
    expect(decodeJsonValues('{"a":1}{"b":2}true null "s"', 'test')).toEqual([{ a: 1 }, { b: 2 }, true, null, 's']);
  });

  it('requires exactly one value per command', () => {
    expect(() => decodeBatch('{}\n\n\n{}', ['j/a', 'j/b', 'j/c'])).toThrowError(/returned 2 results for 3 batched commands/);
    expect(decodeBatch('{}\n\n\n[]', ['j/a', 'j/b'])).toEqual([{}, []]);
  });

  it('turns non-JSON replies into typed compositor errors carrying Hyprland\'s text', () => {
    let err: unknown;
    try {
      decodeBatch('[]\n\n\nunknown request', ['j/clients', 'j/status']);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HypruseError);
    expect((err as HypruseError).code).toBe('error.compositor');
    expect((err as HypruseError).message).toContain('unknown request');
    expect(() => decodeJsonValues('{"a": [1, 2}', 'j/x')).toThrowError(HypruseError);
    expect(() => decodeJsonValues('{"unterminated": ', 'j/x')).toThrowError(/not JSON/);
  });
});

describe('requests of exactly k x 1023 bytes (block Hyprland <= 0.56 until the write side closes)', () => {
  it('get one harmless byte more: an empty flag block, the first flag twice, or the first batched command padded', () => {
    const plain = `dispatch ${'x'.repeat(1023 - 9)}`;
    expect(plain.length).toBe(1023);
    expect(avoidBlockingLength(plain)).toBe(`/${plain}`);
    const flagged = `j/${'y'.repeat(2046 - 2)}`;
    expect(avoidBlockingLength(flagged)).toBe(`j${flagged}`);
    const batch = `[[BATCH]]j/monitors;${'z'.repeat(1023 - 20)}`;
    expect(batch.length).toBe(1023);
    expect(avoidBlockingLength(batch)).toBe(`[[BATCH]]jj/monitors;${'z'.repeat(1023 - 20)}`);
    // multi-byte text counts in bytes
    const wide = `dispatch ${'é'.repeat(507)}`;
    expect(Buffer.byteLength(wide)).toBe(1023);
    expect(avoidBlockingLength(wide)).toBe(`/${wide}`);
    expect(avoidBlockingLength('j/clients')).toBe('j/clients');
  });

  it('a 1023-byte request to a 0.56 instance is answered at once', async () => {
    const sim = await new HyprlandSimulator({ version: '0.56', processes: 'fake' }).start();
    try {
      const client = new HyprlandRequestClient(socketsFor(sim.runtimeDir, sim.signature).request, 1500);
      const req = `j/version${' '.repeat(1023 - 9)}`;
      const t0 = Date.now();
      const v = JSON.parse(await client.request(req));
      expect(v.version).toMatch(/^0\.56/);
      expect(Date.now() - t0).toBeLessThan(1000);
      expect(sim.requests.at(-1)).toBe(`j${req}`);
    } finally {
      await sim.stop();
    }
  });
});
