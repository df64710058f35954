import { describe, expect, it } from 'vitest';
import { digestText } from '@hypruse/trust';
import { formatRecord } from '../src/commands/journal.js';

describe('hypruse journal lines', () => {
  const base = { v: 1, seq: 7, ts: '2026-01-01T10:00:00.000Z', kind: 'act' as const, tool: 'keyboard', outcome: 'ok' as const, ms: 12 };

  it('shows the facts of a record kept with journal.text off, digests as their length, then the notes', () => {
    const line = formatRecord({ ...base, facts: { action: 'type', chars: 5, window: '42', verified: false, field: digestText('secret') }, notes: ['NOTE: the session is locked'] }, false);
    expect(line).toMatch(/keyboard\s+ok\s+12ms  action=type chars=5 window=42 verified=false field=<6 chars>; NOTE: the session is locked$/);
    expect(line).not.toContain('secret');
  });

  it('shows the headline of a record kept with journal.text on', () => {
    expect(formatRecord({ ...base, result: 'typed 5 characters into 42 (verified)' }, false)).toMatch(/12ms  typed 5 characters into 42 \(verified\)$/);
  });
});
