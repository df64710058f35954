import { describe, expect, it } from 'vitest';
import { Tokens, type ToolServices } from '../src/index.js';
import { inputForgettingServices } from '../src/pipeline/input-forget.js';

/** Services with recording fakes of the input, compositor and accessibility backends. */
function fakes(settleMs = 0) {
  const log: string[] = [];
  const input = {
    click: async () => void log.push('click'),
    describe: async () => (log.push('describe'), { pointer: 'p', keyboard: 'k' }),
    releaseAll: async () => void log.push('releaseAll'),
  };
  const compositor = {
    id: 'fake',
    snapshot: async () => (log.push('snapshot'), {}),
    moveCursor: async () => void log.push('moveCursor'),
    focusWindow: async () => {
      log.push('focusWindow');
      throw new Error('no such window');
    },
  };
  const a11y = {
    forget: () => void log.push('forget'),
    read: async function (this: { marker?: string }) {
      log.push(`read${this === a11y ? '' : ' (wrong this)'}`);
      return { status: 'no_app', reason: '' };
    },
    doAction: async () => (log.push('doAction'), true),
  };
  const map = new Map<symbol, unknown>([
    [Tokens.Input, input],
    [Tokens.Compositor, compositor],
    [Tokens.Accessibility, a11y],
  ]);
  const inner: ToolServices = { has: (t) => map.has(t), get: <T,>(t: symbol) => map.get(t) as T };
  return { log, services: inputForgettingServices(inner, () => settleMs) };
}

/** Services whose click ends only when the test releases it. */
function slowClick(settleMs: number) {
  let release = () => {};
  const input = { click: () => new Promise<void>((r) => (release = r)) };
  const a11y = { forget() {}, read: async () => ({ status: 'no_app', reason: '' }) };
  const inner: ToolServices = { has: () => true, get: <T,>(t: symbol) => (t === Tokens.Input ? input : t === Tokens.Accessibility ? a11y : {}) as T };
  return { services: inputForgettingServices(inner, () => settleMs), release: () => release() };
}

describe('input drops reusable accessibility reads', () => {
  it('a click, a cursor move and an element action forget before they start and once they settled', async () => {
    const { log, services } = fakes();
    await services.get(Tokens.Input).click('left', 1);
    await services.get(Tokens.Compositor).moveCursor({ x: 1, y: 2 });
    await services.get(Tokens.Accessibility).doAction({ bus: ':1.2', path: '/o' }, 0);
    expect(log).toEqual(['forget', 'click', 'forget', 'forget', 'moveCursor', 'forget', 'forget', 'doAction', 'forget']);
  });

  it('a failing acting call forgets too', async () => {
    const { log, services } = fakes();
    await expect(services.get(Tokens.Compositor).focusWindow('w')).rejects.toThrow('no such window');
    expect(log).toEqual(['forget', 'focusWindow', 'forget']);
  });

  it('observing calls and releaseAll do not forget, and keep their receiver', async () => {
    const { log, services } = fakes();
    await services.get(Tokens.Input).describe();
    await services.get(Tokens.Compositor).snapshot();
    await services.get(Tokens.Accessibility).read({ pid: 1, title: '', width: 0, height: 0 }, { actionableOnly: true });
    await services.get(Tokens.Input).releaseAll();
    expect(services.get(Tokens.Compositor).id).toBe('fake');
    expect(log).toEqual(['describe', 'snapshot', 'read', 'releaseAll']);
  });
});

describe('a tree read right after input waits for the application to handle it', () => {
  it('a read sent at once after a click starts only once the click is the settle time old; a later one at once', async () => {
    const { log, services } = fakes(120);
    const a11y = services.get(Tokens.Accessibility);
    await a11y.read({ pid: 1, title: '', width: 0, height: 0 }, { actionableOnly: true });
    const clicked = performance.now();
    await services.get(Tokens.Input).click('left', 1);
    await a11y.read({ pid: 1, title: '', width: 0, height: 0 }, { actionableOnly: true });
    expect(performance.now() - clicked).toBeGreaterThanOrEqual(120);
    expect(log).toEqual(['read', 'forget', 'click', 'forget', 'read']);
  });

  it('once a tool saw the input handled (inputHandled), the next read does not wait; input still on its way keeps the wait', async () => {
    const { log, services } = fakes(10_000);
    const a11y = services.get(Tokens.Accessibility);
    const q = { pid: 1, title: '', width: 0, height: 0 };
    await services.get(Tokens.Input).click('left', 1);
    a11y.inputHandled!();
    const t0 = performance.now();
    await a11y.read(q, { actionableOnly: true });
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(log).toEqual(['forget', 'click', 'forget', 'read']);

    // a click still on its way when inputHandled comes: the read after it waits all the same
    const slow = slowClick(40);
    const clicking = slow.services.get(Tokens.Input).click('left', 1);
    slow.services.get(Tokens.Accessibility).inputHandled!();
    const released = performance.now();
    slow.release();
    await clicking;
    await slow.services.get(Tokens.Accessibility).read(q, { actionableOnly: true });
    expect(performance.now() - released).toBeGreaterThanOrEqual(40);
  });

  it('an aborted read waiting for the settle rejects with the abort', async () => {
    const { services } = fakes(10_000);
    await services.get(Tokens.Input).click('left', 1);
    const ac = new AbortController();
    const p = services.get(Tokens.Accessibility).read({ pid: 1, title: '', width: 0, height: 0 }, { actionableOnly: true, signal: ac.signal });
    ac.abort(new Error('cancelled'));
    await expect(p).rejects.toThrow('cancelled');
  });
});
