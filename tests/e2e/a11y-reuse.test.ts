// A window's tree read is reused only while the application provably did not change: a second read
// costs one call, and a change the application makes itself (the click-counter fixture renames its
// button on SIGUSR1, no input involved) is in the very next read. libatspi (tests/support/atspi.ts,
// independent of hypruse) confirms the change happened and what the button is called. Through a
// session, a pointer move between two `ui` calls makes the second one read again.
import { readFileSync } from 'node:fs';
import { Tokens, type A11yReadResult, type A11yWindowQuery } from '@hypruse/core';
import { createSession } from 'hypruse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AtspiAccessibility } from '../../packages/a11y/src/atspi-accessibility.js';
import { atspi } from '../support/atspi.js';
import { a11yBusCall, killFixture, launchFixture, requireDesktop, swayNodes, waitFor, type LaunchedFixture } from '../support/desktop.js';

const desk = await requireDesktop();

type Ok = Extract<A11yReadResult, { status: 'ok' }>;

async function windowOf(pid: number): Promise<A11yWindowQuery> {
  const node = await waitFor(async () => (await swayNodes()).find((n) => n.pid === pid && n.type === 'con'), 10000, `window of pid ${pid}`);
  return { pid, title: node.name ?? '', width: node.rect.width, height: node.rect.height, class: node.app_id ?? undefined, x: node.rect.x, y: node.rect.y };
}

const buttonNames = (r: Ok) => r.elements.filter((e) => e.role === 'push button' || e.role === 'button').map((e) => e.name);

describe.skipIf(!desk)('reusing a tree read', () => {
  const a11y = new AtspiAccessibility({ env: { ...desk!.env } });
  const launched: LaunchedFixture[] = [];

  beforeAll(async () => {
    launched.push(await launchFixture('click-counter', { workspace: '7', args: ['gtk3'] }));
    launched.push(await launchFixture('click-counter', { workspace: '8', args: ['gtk4'] }));
  });
  afterAll(async () => {
    await a11y.dispose();
    for (const app of launched.splice(0)) await killFixture(app.pid).catch(() => undefined);
  });

  for (const [kit, index] of [['GTK 3', 0], ['GTK 4', 1]] as const) {
    it(`${kit}: a second read is the first one again for one call; the app renaming its button is in the next read`, async () => {
      const app = launched[index];
      const q = await windowOf(app.pid);
      const read = async () => {
        const r = await a11y.read(q, { actionableOnly: false });
        expect(r.status, JSON.stringify(r)).toBe('ok');
        return r as Ok;
      };
      // the app may still be settling after its window mapped (focus, state events): until a read is reused
      const { first, again, calls } = await waitFor(async () => {
        a11y.forget();
        const first = await read();
        const before = a11y.calls;
        const again = await read();
        return again.reused ? { first, again, calls: a11y.calls - before } : null;
      }, 15000, `a reused read of the ${kit} counter`);
      expect(first.reused).toBeUndefined();
      const { reused: _r, ...same } = again;
      expect(same).toEqual(first);
      // one call: the window is still there (which also brings every signal the app sent before it)
      expect(calls).toBe(1);
      expect(buttonNames(again)).toEqual(['count']);

      // input sent by this process: never reused
      a11y.forget();
      expect((await read()).reused).toBeUndefined();

      // the app renames its button by itself; libatspi sees it, and so does the next read
      const n = (readFileSync(app.stdout, 'utf8').match(/relabelled/g) ?? []).length + 1;
      expect((await read()).reused).toBe(true);
      process.kill(app.pid, 'SIGUSR1');
      await waitFor(() => readFileSync(app.stdout, 'utf8').includes(`relabelled ${n}`), 10000, 'the app to rename its button');
      await waitFor(async () => (await atspi(app.pid)).some((node) => node.name === `relabelled ${n}`), 10000, 'libatspi to see the new name');
      const after = await read();
      expect(after.reused).toBeUndefined();
      expect(buttonNames(after)).toEqual([`relabelled ${n}`]);
    });
  }

  it('an idle reader listens to nothing: 2 s after a read its match rule on the app and its registered events are gone; the next read listens again and is reused', async () => {
    const app = launched[0];
    const q = await windowOf(app.pid);
    // what the bus daemon and the registry hold, asked with busctl (not through our package)
    const busctl = <T>(...args: string[]) => a11yBusCall<T>(args);
    const rulesOn = async (bus: string) => {
      const [all] = await busctl<[Record<string, string[]>]>('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.Debug.Stats', 'GetAllMatchRules');
      return Object.values(all).flat().filter((r) => r.includes(`sender='${bus}'`));
    };
    const events = async () => (await busctl<[Array<[string, string]>]>('org.a11y.atspi.Registry', '/org/a11y/atspi/registry', 'org.a11y.atspi.Registry', 'GetRegisteredEvents'))[0];

    const r = await a11y.read(q, { actionableOnly: false });
    expect(r.status, JSON.stringify(r)).toBe('ok');
    const bus = (r as Ok).elements[0].ref.bus;
    expect(await rulesOn(bus)).toHaveLength(1);
    expect((await events()).length).toBeGreaterThan(0);
    expect(a11y.listened).toContain(bus);

    await waitFor(async () => (await rulesOn(bus)).length === 0 && (await events()).length === 0, 15000, 'the match rule and the events to be given back');
    expect(a11y.listened).toEqual([]);
    // nothing of the app reaches us any more (its spinner-free window sends nothing anyway: this is
    // the bus's word, the counter only has to stay put across a round trip to the app)
    const signals = a11y.signals;
    expect(await a11y.exists((r as Ok).elements[0].ref)).toBe(true);
    expect(a11y.signals).toBe(signals);

    // reading again listens again, and a read right after it is reused
    await waitFor(async () => {
      a11y.forget();
      const first = await a11y.read(q, { actionableOnly: false });
      const again = await a11y.read(q, { actionableOnly: false });
      return first.status === 'ok' && again.status === 'ok' && again.reused === true;
    }, 15000, 'a reused read after listening again');
    expect(await rulesOn(bus)).toHaveLength(1);
    expect((await events()).length).toBeGreaterThan(0);
  });

  it('through a session: a second ui of the unchanged window is reused, and a pointer move (input) makes the next one read again', async () => {
    const app = launched[0];
    const node = await waitFor(async () => (await swayNodes()).find((n) => n.pid === app.pid && n.type === 'con'), 10000, 'the GTK 3 counter window');
    const session = await createSession({
      source: 'mcp',
      noFile: true,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', LANG: process.env.LANG || 'C.UTF-8', HYPRUSE_TAKEOVER_MS: '0', HYPRUSE_INDICATOR: '0', ...desk!.env },
    });
    try {
      const backend = session.services.get(Tokens.Accessibility) as AtspiAccessibility;
      const ui = async () => {
        // errors throw; a read lists the button
        const r = await session.pipeline.call('ui', { window: String(node.id) });
        expect(JSON.stringify(r.data?.elements), r.text.join('\n')).toMatch(/count|relabelled/);
      };
      await waitFor(async () => {
        await session.pipeline.call('pointer', { action: 'move', x: node.rect.x + 5, y: node.rect.y + 5 });
        await ui();
        const before = backend.reusedReads;
        await ui();
        return backend.reusedReads === before + 1;
      }, 15000, 'a reused ui read');
      const before = backend.reusedReads;
      const calls = backend.calls;
      await session.pipeline.call('pointer', { action: 'move', x: node.rect.x + 9, y: node.rect.y + 9 });
      await ui();
      expect(backend.reusedReads).toBe(before);
      // a fresh read: the registry, the app's cache and the window's details, not one call
      expect(backend.calls - calls).toBeGreaterThan(3);
    } finally {
      await session.dispose();
    }
  });
});
