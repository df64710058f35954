import { describe, expect, it } from 'vitest';
import { isTextType, truncateText } from '../src/capture/index.js';

describe('clipboard text helpers', () => {
  it('counts and truncates by characters, not UTF-16 units', () => {
    expect(truncateText('héllo 👋 world', 7)).toEqual({ kind: 'text', text: 'héllo 👋', truncated: true, totalChars: 13 });
    expect(truncateText('abc', 3)).toEqual({ kind: 'text', text: 'abc', truncated: false, totalChars: 3 });
  });
  it('recognises text MIME types', () => {
    for (const t of ['text/plain;charset=utf-8', 'text/plain', 'TEXT', 'UTF8_STRING', 'STRING', 'text/html']) expect(isTextType(t)).toBe(true);
    for (const t of ['image/png', 'application/x-kde-cutselection', 'x-special/gnome-copied-files']) expect(isTextType(t)).toBe(false);
  });
});
