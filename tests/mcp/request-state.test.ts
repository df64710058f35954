// The sealed requestState of a 2026-07-28 confirmation, alone: it opens only for the tool and the
// arguments it was issued for, once, before it expires, and only as this process sealed it.
import { describe, expect, it } from 'vitest';
import { RequestStateSeal, argsDigest, canonicalJson, digest } from '@hypruse/core/mcp';

const state = (tool = 'click_ui', args: Record<string, unknown> = { name: 'Delete', window: '7' }) => ({ tool, args: argsDigest(args), asking: digest('Allow it?') });

describe('requestState seal', () => {
  it('opens once for its tool and arguments (in any key order), naming the waiting call by its nonce', () => {
    const seal = new RequestStateSeal(60_000);
    const { token: s, nonce } = seal.seal(state());
    const opened = seal.open(s, 'click_ui', { window: '7', name: 'Delete' });
    expect(opened).toEqual({ ok: true, state: state(), nonce });
    expect(seal.open(s, 'click_ui', { window: '7', name: 'Delete' })).toEqual({ ok: false, reason: expect.stringMatching(/already answered once/) });
  });

  it('refuses an altered, forged, foreign-key, other-tool, other-arguments or expired state', () => {
    let now = 1_000_000;
    const seal = new RequestStateSeal(60_000, { now: () => now });
    const s = seal.seal(state()).token;
    const [body, mac] = s.split('.');
    const forgedBody = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), tool: 'act' })).toString('base64url');
    const args = { name: 'Delete', window: '7' };
    expect(seal.open(`${forgedBody}.${mac}`, 'click_ui', args)).toMatchObject({ ok: false, reason: expect.stringMatching(/altered/) });
    expect(seal.open(`${body}.${mac.slice(0, -2)}AA`, 'click_ui', args)).toMatchObject({ ok: false, reason: expect.stringMatching(/altered/) });
    expect(seal.open('nonsense', 'click_ui', args)).toMatchObject({ ok: false });
    expect(seal.open(42, 'click_ui', args)).toMatchObject({ ok: false });
    expect(new RequestStateSeal(60_000, { now: () => now }).open(s, 'click_ui', args)).toMatchObject({ ok: false, reason: expect.stringMatching(/altered or not issued/) });
    expect(seal.open(s, 'act', args)).toMatchObject({ ok: false, reason: expect.stringMatching(/issued for "click_ui", not "act"/) });
    expect(seal.open(s, 'click_ui', { ...args, window: '8' })).toMatchObject({ ok: false, reason: expect.stringMatching(/other arguments/) });
    now += 60_001;
    expect(seal.open(s, 'click_ui', args)).toMatchObject({ ok: false, reason: expect.stringMatching(/expired 0 s ago \(a confirmation is good for 60 s\)/) });
  });

  it('canonical JSON sorts keys at every depth and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[1,{"y":2,"z":1}]},"b":1}');
  });
});
