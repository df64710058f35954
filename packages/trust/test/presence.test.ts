import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Tokens, type Presence, type TrustCall } from '@hypruse/core';
import { SeatPresence, TakeoverTracker, agentInputLayer, controlPath, lastUncovered, presenceLayer, type IdleSink } from '../src/index.js';
import { fakeCall, fakeNext, refusal, run } from './fakes.js';

const T = 100; // idle granularity
const SLACK = 300;
const WINDOW = 1500;
const tracker = () => {
  const t = new TakeoverTracker({ idleMs: T, windowMs: WINDOW, slackMs: SLACK });
  t.opened(0);
  t.idled(T); // quiet seat: the first idle comes idleMs after opening
  return t;
};

describe('takeover tracker (timing tells the person from the agent)', () => {
  it('a quiet seat is not in use, and the initial "active" state of the idle timer is no input', () => {
    const t = tracker();
    expect(t.isPrimed(T)).toBe(true);
    expect(t.verdict(200)).toEqual({ active: false, retryAfterMs: 0 });
  });

  it('the person moving before the agent acts pauses for takeover_ms after their last input, then not', () => {
    const t = tracker();
    t.resumed(1000);
    t.idled(1400 + T); // last input at 1400
    expect(t.verdict(1500)).toEqual({ active: true, retryAfterMs: 1400 });
    expect(t.verdict(2899).active).toBe(true);
    expect(t.verdict(2901).active).toBe(false);
  });

  it('input that is still going on (no idle yet) counts as now', () => {
    const t = tracker();
    t.resumed(1000);
    const v = t.verdict(5000);
    expect(v.active).toBe(true);
    expect(v.retryAfterMs).toBe(WINDOW - T);
  });

  it('the agent\'s own input (a burst inside its bracket, idle within the slack) is not the person', () => {
    const t = tracker();
    const id = t.agentBegin(1000);
    t.resumed(1010);
    t.agentEnd(id, 1100);
    t.idled(1100 + T + 150); // the idle timer fired 150 ms late
    expect(t.verdict(1400).active).toBe(false);
    expect(t.verdict(1100 + SLACK - 1).active).toBe(false);
  });

  it('the person carrying on after the agent\'s bracket (past the slack) is seen', () => {
    const t = tracker();
    const id = t.agentBegin(1000);
    t.resumed(1010);
    t.agentEnd(id, 1100);
    // the burst goes on: no idle
    expect(t.verdict(1100 + T + SLACK - 10).active).toBe(false);
    expect(t.verdict(1100 + T + SLACK + 50).active).toBe(true);
  });

  it('a burst that started before the agent\'s bracket is the person\'s, even if the agent acted during it', () => {
    const t = tracker();
    t.resumed(900);
    const id = t.agentBegin(1000);
    t.agentEnd(id, 1100);
    t.idled(1100 + T);
    const v = t.verdict(1200);
    expect(v.active).toBe(true);
    expect(v.retryAfterMs).toBe(WINDOW - (1200 - 1000));
  });

  it('a process that opens the watcher while the person moves sees it once idleMs + slack passed without idle', () => {
    const t = new TakeoverTracker({ idleMs: T, windowMs: WINDOW, slackMs: SLACK });
    t.opened(0);
    expect(t.isPrimed(50)).toBe(false);
    expect(t.isPrimed(T + SLACK + 1)).toBe(true);
    expect(t.verdict(T + SLACK + 100).active).toBe(true);
  });

  it('lastUncovered walks back past covers', () => {
    expect(lastUncovered(0, 10, [[5, 12]])).toBeCloseTo(5, 3);
    expect(lastUncovered(6, 10, [[5, 12]])).toBeNull();
    expect(lastUncovered(0, 10, [])).toBe(10);
    expect(lastUncovered(0, 10, [[8, 12], [2, 8.5]])).toBeCloseTo(2, 3);
  });
});

/** An idle source driven by the test, on a fake clock. */
function fakeSource() {
  let sink: IdleSink | null = null;
  let now = 0;
  const presenceOpts = {
    now: () => now,
    idleMs: T,
    slackMs: SLACK,
    openIdle: async (_ms: number, s: IdleSink) => {
      sink = s;
      return { method: 'org_kde_kwin_idle', sees: 'all seat input', blind: 'which device', sync: async () => undefined, close() {} };
    },
  };
  return {
    presenceOpts,
    at(ms: number) {
      now = ms;
    },
    sink: () => sink!,
  };
}

function presenceCall(p: Presence, o: Parameters<typeof fakeCall>[0] = {}): TrustCall {
  const call = fakeCall(o);
  const inner = call.services;
  return { ...call, services: { get: <T,>(t: symbol) => (t === Tokens.Presence ? (p as T) : inner.get<T>(t)), has: (t) => t === Tokens.Presence || inner.has(t) } };
}

describe('seat presence and the presence layer', () => {
  const env = () => ({ XDG_RUNTIME_DIR: mkdtempSync(join(tmpdir(), 'hypruse-presence-')) });

  it('the stop state lives in one control file shared by every process of the session, until resume', async () => {
    const e = env();
    const a = new SeatPresence({ env: e, takeoverMs: 0 });
    const b = new SeatPresence({ env: e, takeoverMs: 0 });
    expect((await b.verdict()).state).toBe('running');
    a.stop('the stop chord (super+alt+Escape)');
    const v = await b.verdict();
    expect(v).toMatchObject({ state: 'stopped', by: 'the stop chord (super+alt+Escape)' });
    expect(JSON.parse(readFileSync(controlPath(e), 'utf8')).state).toBe('stopped');
    a.pause('the monitor page'); // a stop outranks a pause
    expect((await b.verdict()).state).toBe('stopped');
    expect(b.resume('the agent (resume)').state).toBe('stopped');
    expect((await a.verdict()).state).toBe('running');
    await a.dispose();
    await b.dispose();
  });

  it('refuses a call while the person uses the seat: typed, retryable, nothing sent; fine again after takeover_ms', async () => {
    const src = fakeSource();
    const p = new SeatPresence({ env: env(), takeoverMs: WINDOW, eager: true, ...src.presenceOpts });
    await p.open();
    src.at(T);
    src.sink().idle();
    src.at(1000);
    src.sink().resumed();
    src.at(1200);
    src.sink().idle();
    const next = fakeNext();
    const e = (await refusal(run(presenceLayer, presenceCall(p, { tool: 'keyboard' }), next))) as unknown as { code: string; message: string; data: Record<string, unknown> };
    expect(e.code).toBe('refused.paused');
    expect(e.message).toMatch(/^paused: the person is using the seat/);
    expect(e.data).toMatchObject({ retryable: true, retry_after_ms: 1500 - (1200 - 1100) });
    expect(next.calls).toBe(0);
    src.at(1100 + WINDOW + 1);
    await run(presenceLayer, presenceCall(p, { tool: 'keyboard' }), next);
    expect(next.calls).toBe(1);
    expect(p.takeover()).toMatchObject({ method: 'org_kde_kwin_idle', active: true });
    await p.dispose();
  });

  it('the agent\'s own input, bracketed by the agent-input layer, does not pause the next call', async () => {
    const src = fakeSource();
    const p = new SeatPresence({ env: env(), takeoverMs: WINDOW, eager: true, ...src.presenceOpts });
    await p.open();
    src.at(T);
    src.sink().idle();
    src.at(1000);
    await run(agentInputLayer, presenceCall(p, { tool: 'keyboard' }), async () => {
      src.at(1010);
      src.sink().resumed();
      src.at(1050);
      return { text: ['typed'] };
    });
    src.at(1050 + T + 40);
    src.sink().idle();
    const next = fakeNext();
    await run(presenceLayer, presenceCall(p, { tool: 'keyboard' }), next);
    expect(next.calls).toBe(1);
    await p.dispose();
  });

  it('a stopped session refuses every acting call, a plan\'s step as interrupted, and lets resume through only directly', async () => {
    const p = new SeatPresence({ env: env(), takeoverMs: 0 });
    p.stop('the stop chord (super+alt+Escape)');
    const next = fakeNext();
    const direct = await refusal(run(presenceLayer, presenceCall(p, { tool: 'wm' }), next));
    expect(direct.code).toBe('refused.stopped');
    expect(direct.message).toMatch(/^stopped by the person: the stop chord/);
    const seq = presenceCall(p, { tool: 'sequence' });
    const step = await refusal(run(presenceLayer, presenceCall(p, { tool: 'keyboard', parent: seq }), next));
    expect(step.code).toBe('refused.interrupted');
    const nestedResume = await refusal(run(presenceLayer, presenceCall(p, { tool: 'resume', parent: seq }), next));
    expect(nestedResume.code).toBe('refused.stopped');
    expect(next.calls).toBe(0);
    await run(presenceLayer, presenceCall(p, { tool: 'resume' }), next);
    expect(next.calls).toBe(1);
    // observations are never refused
    await run(presenceLayer, presenceCall(p, { tool: 'desktop', kind: 'observe' }), next);
    expect(next.calls).toBe(2);
    await p.dispose();
  });
});
