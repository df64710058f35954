import { describe, expect, it } from 'vitest';
import { HypruseError } from '@hypruse/core';
import { buildBatch, decodeBatch, decodeJsonValues } from '../src/ipc/batch.js';

describe('[[BATCH]] requests', () => {
  it('joins commands with ; and escapes ; and \\ inside a command', () => {
    expect(buildBatch(['j/monitors', 'j/clients'])).toBe('[[BATCH]]j/monitors;j/clients');
    expect(buildBatch(['notify -1 100 rgb(ff5555) a;b\\c', 'j/version'])).toBe('[[BATCH]]notify -1 100 rgb(ff5555) a\\;b\\\\c;j/version');
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
