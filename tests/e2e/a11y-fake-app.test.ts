// AtspiAccessibility against synthetic applications registered on the real
// AT-SPI registry of the test desktop: a Chromium-like skeleton, an empty
// window, and an app that stops answering. The fake app is a second
// dbus-next connection in this process that embeds itself in the registry
// (org.a11y.atspi.Socket.Embed) and answers the Accessible calls by hand.
import { createRequire } from 'node:module';
import { HypruseError, scaledMs } from '@hypruse/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AtspiAccessibility } from '../../packages/a11y/src/atspi-accessibility.js';
import { a11yBusAddress, atspiApplications, requireDesktop, waitFor } from '../support/desktop.js';

const desk = await requireDesktop();
const dbus = createRequire(import.meta.url)('dbus-next') as typeof import('dbus-next');

interface FakeNode {
  role: number;
  roleName: string;
  name: string;
  children: string[];
  extents?: [number, number, number, number];
}

const ROOT = '/org/a11y/atspi/accessible/root';

/** A fake accessible application; `silent` makes it stop answering (a hung app). */
class FakeApp {
  silent = false;
  bus!: import('dbus-next').MessageBus;
  constructor(private readonly nodes: Record<string, FakeNode>) {}

  async start(address: string): Promise<void> {
    this.bus = dbus.sessionBus({ busAddress: address });
    this.bus.on('error', () => undefined);
    await new Promise<void>((resolve) => this.bus.once('connect', () => resolve()));
    this.bus.addMethodHandler((msg: import('dbus-next').Message) => this.handle(msg));
    const name = (this.bus as unknown as { name: string }).name;
    await this.bus.call(
      new dbus.Message({
        destination: 'org.a11y.atspi.Registry', path: ROOT, interface: 'org.a11y.atspi.Socket', member: 'Embed',
        signature: '(so)', body: [[name, ROOT]],
      }),
    );
  }

  get busName(): string {
    return (this.bus as unknown as { name: string }).name;
  }

  stop(): void {
    this.bus?.disconnect();
  }

  private handle(msg: import('dbus-next').Message): boolean {
    if (this.silent) return true; // swallow: never reply
    const node = this.nodes[msg.path];
    const reply = (signature = '', body: unknown[] = []) => this.bus.send(dbus.Message.newMethodReturn(msg, signature, body));
    if (!node) {
      this.bus.send(dbus.Message.newError(msg as never, 'org.freedesktop.DBus.Error.UnknownObject', `no object ${msg.path}`));
      return true;
    }
    const key = `${msg.interface}.${msg.member}`;
    switch (key) {
      case 'org.freedesktop.DBus.Properties.Get': {
        const [, prop] = msg.body as [string, string];
        if (prop === 'Name') reply('v', [new dbus.Variant('s', node.name)]);
        else if (prop === 'ChildCount') reply('v', [new dbus.Variant('i', node.children.length)]);
        else this.bus.send(dbus.Message.newError(msg as never, 'org.freedesktop.DBus.Error.UnknownProperty', prop));
        return true;
      }
      case 'org.a11y.atspi.Accessible.GetChildren':
        reply('a(so)', [node.children.map((p) => [this.busName, p])]);
        return true;
      case 'org.a11y.atspi.Accessible.GetRole':
        reply('u', [node.role]);
        return true;
      case 'org.a11y.atspi.Accessible.GetRoleName':
        reply('s', [node.roleName]);
        return true;
      case 'org.a11y.atspi.Accessible.GetState':
        // enabled, sensitive, showing, visible
        reply('au', [[(1 << 8) | (1 << 24) | (1 << 25) | (1 << 30), 0]]);
        return true;
      case 'org.a11y.atspi.Accessible.GetInterfaces':
        reply('as', [node.extents ? ['org.a11y.atspi.Accessible', 'org.a11y.atspi.Component'] : ['org.a11y.atspi.Accessible', 'org.a11y.atspi.Application']]);
        return true;
      case 'org.a11y.atspi.Component.GetExtents':
        reply('(iiii)', [node.extents ?? [0, 0, 0, 0]]);
        return true;
      default:
        // Properties.Set of the Application Id by the registry, and anything else: accept.
        reply();
        return true;
    }
  }
}

function app(frameName: string, below: Record<string, FakeNode>, frameChildren: string[]): Record<string, FakeNode> {
  return {
    [ROOT]: { role: 75, roleName: 'application', name: `fake ${frameName}`, children: ['/frame'] },
    '/frame': { role: 23, roleName: 'frame', name: frameName, children: frameChildren, extents: [0, 0, 800, 600] },
    ...below,
  };
}

describe.skipIf(!desk)('AtspiAccessibility with synthetic apps on the real registry', () => {
  let address: string;
  let a11y: AtspiAccessibility;
  const fakes: FakeApp[] = [];

  async function register(nodes: Record<string, FakeNode>): Promise<FakeApp> {
    const f = new FakeApp(nodes);
    await f.start(address);
    fakes.push(f);
    await waitFor(async () => (await atspiApplications()).some((a) => a.bus === f.busName), 5000, 'the fake app in the registry');
    return f;
  }

  beforeAll(async () => {
    address = await a11yBusAddress();
    a11y = new AtspiAccessibility({ env: { ...desk!.env }, timeoutMs: 1000, maxNodes: 4000 });
  });
  afterAll(async () => {
    for (const f of fakes) f.stop();
    await a11y?.dispose();
  });

  it('reports a Chromium-like skeleton as no_tree with skeleton: true', async () => {
    const f = await register(
      app('Skeleton Browser', {
        '/panel': { role: 39, roleName: 'panel', name: '', children: ['/filler'], extents: [0, 0, 800, 600] },
        '/filler': { role: 20, roleName: 'filler', name: '', children: [], extents: [0, 0, 800, 600] },
      }, ['/panel']),
    );
    const r = await a11y.read({ pid: process.pid, title: 'Skeleton Browser', width: 800, height: 600, class: 'skeleton' }, { actionableOnly: true });
    expect(r).toMatchObject({ status: 'no_tree', skeleton: true });
    expect(r.status === 'no_tree' && r.reason).toMatch(/skeleton.*screenshot/);
    f.stop();
  });

  it('reports a window without accessible children as no_tree (not a skeleton)', async () => {
    const f = await register(app('Empty Window', {}, []));
    const r = await a11y.read({ pid: process.pid, title: 'Empty Window', width: 800, height: 600, class: 'empty' }, { actionableOnly: false });
    expect(r.status).toBe('no_tree');
    expect(r.status === 'no_tree' && r.skeleton).toBeFalsy();
    f.stop();
  });

  it('reads a synthetic app by title when the pid does not match (multi-process apps)', async () => {
    const f = await register(
      app('Renderer Window', { '/ok': { role: 43, roleName: 'push button', name: 'Go', children: [], extents: [10, 10, 60, 30] } }, ['/ok']),
    );
    const r = await a11y.read({ pid: 1, title: 'Renderer Window', width: 800, height: 600, class: 'browser' }, { actionableOnly: true });
    if (r.status !== 'ok') throw new Error(JSON.stringify(r));
    expect(r.elements).toEqual([expect.objectContaining({ role: 'push button', name: 'Go', extents: { x: 10, y: 10, width: 60, height: 30 }, clickable: true })]);
    expect(r.elements[0].ref).toEqual({ bus: f.busName, path: '/ok' });
    f.stop();
  });

  it('an app that stops answering gives error.a11y within the ceiling, and does not block other lookups', async () => {
    const f = await register(app('Silent App', { '/b': { role: 43, roleName: 'push button', name: 'B', children: [], extents: [1, 1, 9, 9] } }, ['/b']));
    f.silent = true;
    const t0 = performance.now();
    const err = (await a11y.read({ pid: process.pid, title: 'Silent App', width: 800, height: 600, class: 'silent-app' }, { actionableOnly: true }).catch((e: unknown) => e)) as HypruseError;
    const ms = performance.now() - t0;
    expect(err).toBeInstanceOf(HypruseError);
    expect(err.code).toBe('error.a11y');
    expect(err.message).toBe(`silent-app did not answer within ${(s => `${Number.isInteger(s) ? s : s.toFixed(1)} s`)(scaledMs(1000) / 1000)}`);
    expect(ms).toBeLessThan(scaledMs(1600));
    // The title fallback skips the silent app: a window nobody owns is no_app after about one ceiling.
    const t1 = performance.now();
    const none = await a11y.read({ pid: 2, title: 'Nobody has this title', width: 10, height: 10 }, { actionableOnly: true });
    expect(none.status).toBe('no_app');
    expect(performance.now() - t1).toBeLessThan(scaledMs(1600));
    // apps() lists it by bus name
    const apps = await a11y.apps();
    expect(apps).toContainEqual({ name: f.busName, pid: process.pid, bus: f.busName });
    // when it goes away entirely, refresh says gone
    f.stop();
    await waitFor(async () => !(await atspiApplications()).some((a) => a.bus === f.busName), 5000, 'the registry to drop the app');
    expect(await a11y.refresh({ bus: f.busName, path: '/b' })).toBeNull();
  });

  it('re-creates the accessibility bus connection when it dies', async () => {
    const f = await register(app('Reconnect Window', { '/x': { role: 43, roleName: 'push button', name: 'X', children: [], extents: [1, 1, 20, 20] } }, ['/x']));
    expect((await a11y.apps()).some((a) => a.bus === f.busName)).toBe(true);
    // Kill the socket under the backend (what a restarted bus or a dropped connection looks like).
    const link = await (a11y as unknown as { bus: { a11y: Promise<{ stream: { destroy(): void }; dead: boolean }> } }).bus.a11y;
    link.stream.destroy();
    await waitFor(() => link.dead, 2000, 'the link to notice');
    const r = await a11y.read({ pid: process.pid, title: 'Reconnect Window', width: 800, height: 600 }, { actionableOnly: true });
    expect(r.status === 'ok' && r.elements.map((e) => e.name)).toEqual(['X']);
    const again = await (a11y as unknown as { bus: { a11y: Promise<unknown> } }).bus.a11y;
    expect(again).not.toBe(link);
    f.stop();
  });
});
