/**
 * The sealed `requestState` of a confirmation asked through a 2026-07-28 multi-round-trip
 * `tools/call`: the client echoes it back with the person's answer, so it is attacker-controlled.
 * It is authenticated (HMAC-SHA256 under a key made for this process and never written anywhere),
 * bound to the tool and a digest of its arguments, expires, and is good for one answer only (its
 * nonce is spent when it is opened). It names the question by digest and the waiting call by its
 * nonce: the call itself stays where it asked, in this process, until the answer comes.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface ConfirmState {
  /** The tool the state was minted for (its listed name). */
  tool: string;
  /** sha256 of the call's arguments, keys sorted. */
  args: string;
  /** Digest of the question this round asks. */
  asking: string;
}

interface Sealed extends ConfirmState {
  v: 1;
  nonce: string;
  /** How long it was good for, ms (the server's confirmTimeoutS when it was issued). */
  ttl?: number;
  /** Expiry, ms since the epoch. */
  exp: number;
}

export type OpenedState = { ok: true; state: ConfirmState; nonce: string } | { ok: false; reason: string };

const b64 = (b: Buffer) => b.toString('base64url');

/** JSON with object keys sorted, so the same arguments give the same digest whatever their order. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export const digest = (s: string): string => b64(createHash('sha256').update(s).digest());
export const argsDigest = (args: Record<string, unknown>): string => digest(canonicalJson(args));

export class RequestStateSeal {
  private readonly key: Buffer;
  /** Spent nonces and their expiry (kept until then: after it the state is refused as expired anyway). */
  private readonly spent = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    opts: { key?: Buffer; now?: () => number } = {},
  ) {
    this.key = opts.key ?? randomBytes(32);
    this.now = opts.now ?? Date.now;
  }
  private readonly now: () => number;

  private mac(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest();
  }

  /** The sealed text and its nonce (which names the waiting call). */
  seal(state: ConfirmState, ttlMs = this.ttlMs): { token: string; nonce: string } {
    const sealed: Sealed = { v: 1, tool: state.tool, args: state.args, asking: state.asking, nonce: b64(randomBytes(12)), exp: this.now() + ttlMs, ttl: ttlMs };
    const body = b64(Buffer.from(JSON.stringify(sealed), 'utf8'));
    return { token: `${body}.${b64(this.mac(body))}`, nonce: sealed.nonce };
  }

  /** Opens a state echoed for `tool` called with `args`; spends it. */
  open(raw: unknown, tool: string, args: Record<string, unknown>): OpenedState {
    if (typeof raw !== 'string' || raw.length > 8192) return { ok: false, reason: 'the requestState is not one this server issued' };
    const dot = raw.indexOf('.');
    const body = dot > 0 ? raw.slice(0, dot) : '';
    const given = Buffer.from(dot > 0 ? raw.slice(dot + 1) : '', 'base64url');
    const want = this.mac(body);
    if (!body || given.length !== want.length || !timingSafeEqual(given, want)) return { ok: false, reason: 'the requestState was altered or not issued by this server (its seal does not verify)' };
    let s: Sealed;
    try {
      s = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Sealed;
    } catch {
      return { ok: false, reason: 'the requestState is not one this server issued' };
    }
    const now = this.now();
    for (const [n, exp] of this.spent) if (exp < now) this.spent.delete(n);
    if (s.v !== 1 || typeof s.exp !== 'number' || typeof s.nonce !== 'string' || typeof s.asking !== 'string') return { ok: false, reason: 'the requestState is not one this server issued' };
    if (s.exp < now) return { ok: false, reason: `the requestState expired ${Math.round((now - s.exp) / 1000)} s ago (a confirmation is good for ${Math.round((typeof s.ttl === 'number' ? s.ttl : this.ttlMs) / 1000)} s)` };
    if (s.tool !== tool) return { ok: false, reason: `the requestState was issued for ${JSON.stringify(s.tool)}, not ${JSON.stringify(tool)}` };
    if (s.args !== argsDigest(args)) return { ok: false, reason: 'the requestState was issued for other arguments than this call has' };
    if (this.spent.has(s.nonce)) return { ok: false, reason: 'the requestState was already answered once (a confirmation is good for one call)' };
    this.spent.set(s.nonce, s.exp);
    return { ok: true, state: { tool: s.tool, args: s.args, asking: s.asking }, nonce: s.nonce };
  }
}
