// The cached tree reader (org.a11y.atspi.Cache.GetItems, walking only what the cache lacks) and
// the walk give the same facts on real apps: GTK 3 (gtk3-widget-factory, zenity) and GTK 4 (the
// click-counter fixture). busctl, independent of hypruse, confirms the cache exists where the
// cached reader used it, and the names and roles of what both listed.
import { execFile } from 'node:child_process';
import type { A11yElement, A11yReadResult, A11yWindowQuery } from '@hypruse/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AtspiAccessibility } from '../../packages/a11y/src/atspi-accessibility.js';
import { a11yBusAddress, killFixture, launchFixture, requireDesktop, swayNodes, waitFor, type LaunchedFixture } from '../support/desktop.js';

const desk = await requireDesktop();

function busctl(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('busctl', args, { timeout: 10000, encoding: 'utf8', maxBuffer: 1 << 24 }, (err, stdout, stderr) => (err ? reject(new Error(stderr || err.message)) : resolve(stdout)));
  });
}

async function windowOf(pid: number): Promise<A11yWindowQuery> {
  const node = await waitFor(async () => (await swayNodes()).find((n) => n.pid === pid && n.type === 'con'), 10000, `window of pid ${pid}`);
  return { pid, title: node.name ?? '', width: node.rect.width, height: node.rect.height, class: node.app_id ?? undefined };
}

type Ok = Extract<A11yReadResult, { status: 'ok' }>;

describe.skipIf(!desk)('cached and walking tree readers on real apps', () => {
  const cache = new AtspiAccessibility({ env: { ...desk!.env }, reader: 'cache' });
  const walk = new AtspiAccessibility({ env: { ...desk!.env }, reader: 'walk' });
  const launched: LaunchedFixture[] = [];

  beforeAll(async () => {
    launched.push(await launchFixture('widget-factory', { workspace: '7' }));
    launched.push(await launchFixture('zenity-entry', { workspace: '8' }));
    launched.push(await launchFixture('click-counter', { workspace: '9', args: ['gtk4'] }));
  });
  afterAll(async () => {
    await Promise.all([cache.dispose(), walk.dispose()]);
    for (const app of launched.splice(0)) await killFixture(app.pid).catch(() => undefined);
  });

  /** Both readers on one window, alternating until two reads in a row agree (an app may still be building its tree). */
  async function both(q: A11yWindowQuery, actionableOnly: boolean): Promise<{ a: Ok; b: Ok }> {
    return waitFor(async () => {
      // fresh reads of the cached reader (not an earlier read given again)
      cache.forget();
      const a = await cache.read(q, { actionableOnly });
      const b = await walk.read(q, { actionableOnly });
      cache.forget();
      const a2 = await cache.read(q, { actionableOnly });
      if (a.status !== 'ok' || b.status !== 'ok' || a2.status !== 'ok') return null;
      return JSON.stringify(a) === JSON.stringify(a2) ? { a, b } : null;
    }, 15000, `a settled tree of ${q.class}`);
  }

  async function busName(el: A11yElement, address: string): Promise<{ name: string; role: number }> {
    const name = JSON.parse(await busctl(['--json=short', `--address=${address}`, 'get-property', el.ref.bus, el.ref.path, 'org.a11y.atspi.Accessible', 'Name'])).data as string;
    const role = JSON.parse(await busctl(['--json=short', `--address=${address}`, 'call', el.ref.bus, el.ref.path, 'org.a11y.atspi.Accessible', 'GetRole'])).data[0] as number;
    return { name, role };
  }

  for (const [fixture, index, minElements, cached] of [
    ['gtk3-widget-factory', 0, 40, true],
    ['zenity entry', 1, 3, true],
    ['GTK 4 click-counter', 2, 1, true],
  ] as const) {
    it(`${fixture}: the same elements, values, states and extents from both readers`, async () => {
      const app = launched[index];
      const q = await windowOf(app.pid);
      const address = await a11yBusAddress();
      for (const actionableOnly of [true, false]) {
        const { a, b } = await both(q, actionableOnly);
        expect(a.elements.length, `${fixture} actionableOnly=${actionableOnly}`).toBeGreaterThanOrEqual(minElements);
        // the same listing; `nodes` counts what each reader looked at, and the walk skips what can never
        // be listed (closed menus), so it never looks at more than the cache holds
        const { nodes: cachedNodes, ...listedA } = a;
        const { nodes: walkedNodes, ...listedB } = b;
        expect(listedA).toEqual(listedB);
        expect(walkedNodes).toBeGreaterThan(0);
        expect(walkedNodes).toBeLessThanOrEqual(cachedNodes);
        // busctl agrees on what was listed (a sample: every fifth element)
        for (const el of a.elements.filter((_, i) => i % 5 === 0)) {
          const real = await busName(el, address);
          expect(real.name, el.ref.path).toBe(el.name);
          expect(real.role, el.ref.path).toBe(el.roleId);
        }
      }
      // the cache the cached reader reads is really there (busctl, after the reader asked for it)
      const bus = (await cache.read(q, { actionableOnly: true })) as Ok;
      const items = JSON.parse(await busctl(['--json=short', `--address=${address}`, 'call', bus.elements[0].ref.bus, '/org/a11y/atspi/cache', 'org.a11y.atspi.Cache', 'GetItems'])).data[0] as unknown[];
      expect(items.length > 0).toBe(cached);
    });
  }
});
