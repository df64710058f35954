import { describe, expect, it } from 'vitest';
import { UsageError } from '@hypruse/core';
import { firstFailure, parseAddress, quoteMark, quoteWorkspace } from '../src/model/commands.js';

describe('sway command arguments', () => {
  it('accepts con ids and refuses anything else as usage.address', () => {
    expect(parseAddress('42')).toBe(42);
    for (const bad of ['', '0x55', '-1', '4; kill', '0', '99999999999', 'abc']) {
      expect(() => parseAddress(bad)).toThrow(UsageError);
      try {
        parseAddress(bad);
      } catch (e) {
        expect((e as UsageError).code).toBe('usage.address');
      }
    }
  });

  it('quotes plain workspace names, including spaces and unicode', () => {
    expect(quoteWorkspace('3')).toBe('"3"');
    expect(quoteWorkspace('2: web')).toBe('"2: web"');
    expect(quoteWorkspace('code ✓')).toBe('"code ✓"');
  });

  it('refuses names that would break out of the argument or name a keyword (usage.workspace)', () => {
    const bad = ['', ' 3', 'a"; exec rm -rf ~; "', "it's", 'a,b', 'x;y', 'back\\slash', 'new\nline', '[con_id=1]', 'next', 'back_and_forth', '--no-auto-back-and-forth', '__i3_scratch', 'x'.repeat(200)];
    for (const name of bad) {
      let err: unknown = null;
      try {
        quoteWorkspace(name);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(name)).toBeInstanceOf(UsageError);
      expect((err as UsageError).code).toBe('usage.workspace');
    }
  });

  it('validates marks', () => {
    expect(quoteMark('hypruse')).toBe('"hypruse"');
    expect(() => quoteMark('a b')).toThrow(UsageError);
    expect(() => quoteMark('x";kill')).toThrow(UsageError);
  });

  it('finds the first failed command of a RUN_COMMAND reply', () => {
    expect(firstFailure([{ success: true }, { success: true }])).toBeNull();
    expect(firstFailure([{ success: true }, { success: false, error: 'No matching node.' }])).toEqual({ success: false, error: 'No matching node.' });
    expect(firstFailure([])).toMatchObject({ success: false });
  });
});
