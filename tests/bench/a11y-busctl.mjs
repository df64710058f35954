/**
 * The baseline: walk an app's accessibility tree the way hypruse 0.9.3 did,
 * one `busctl` process per attribute, serially (HYPRUSE-BEHAVIOR.md §4.3),
 * reading the same attributes AtspiAccessibility.read() reads.
 *
 *   node tests/bench/a11y-busctl.mjs PID     (prints nodes, processes, ms)
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const TEXT_ROLES = new Set([61, 79]);
const VALUE_ROLES = new Set([42, 48, 51, 52, 103]);

/** The accessibility bus address: org.a11y.Bus.GetAddress on the session bus, else $XDG_RUNTIME_DIR/at-spi/bus. */
export async function a11yBusAddress(env) {
  try {
    const { stdout } = await run('busctl', ['--json=short', '--user', 'call', 'org.a11y.Bus', '/org/a11y/bus', 'org.a11y.Bus', 'GetAddress'], { env, timeout: 10000 });
    return JSON.parse(stdout).data[0];
  } catch {
    return `unix:path=${env.XDG_RUNTIME_DIR}/at-spi/bus`;
  }
}

/** The AT-SPI bus name of the app with this pid. */
export async function appBusName(address, pid) {
  const busctl = async (...args) => JSON.parse((await run('busctl', ['--json=short', `--address=${address}`, ...args], { timeout: 10000 })).stdout).data;
  const [apps] = await busctl('call', 'org.a11y.atspi.Registry', '/org/a11y/atspi/accessible/root', 'org.a11y.atspi.Accessible', 'GetChildren');
  for (const [bus] of apps) {
    const [p] = await busctl('call', 'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'GetConnectionUnixProcessID', 's', bus);
    if (p === pid) return bus;
  }
  throw new Error(`no accessible app with pid ${pid}`);
}

/**
 * GTK 3's bridge (at-spi2-atk) publishes /org/a11y/atspi/cache only once a client asked the app for
 * its bus address, as screen readers do first (and hypruse's reader does): ask it once before timing GetItems.
 */
export async function busctlActivateCache(address, bus) {
  await run('busctl', [`--address=${address}`, 'call', bus, '/org/a11y/atspi/accessible/root', 'org.a11y.atspi.Application', 'GetApplicationBusAddress'], { timeout: 10000 });
}

/** One `busctl` process calling org.a11y.atspi.Cache.GetItems on the app: the floor of reading a tree. Returns the item count. */
export async function busctlGetItems(address, bus) {
  const { stdout } = await run('busctl', ['--json=short', `--address=${address}`, 'call', bus, '/org/a11y/atspi/cache', 'org.a11y.atspi.Cache', 'GetItems'], { timeout: 10000, maxBuffer: 1 << 26 });
  return JSON.parse(stdout).data[0].length;
}

/** Walk the first window of the app with this pid; returns { nodes, calls }. */
export async function busctlWalk(address, pid) {
  let calls = 0;
  const busctl = async (...args) => {
    calls++;
    const { stdout } = await run('busctl', ['--json=short', `--address=${address}`, ...args], { timeout: 10000 });
    return JSON.parse(stdout).data;
  };
  const call = (dest, path, iface, member, ...rest) => busctl('call', dest, path, `org.a11y.atspi.${iface}`, member, ...rest);
  const prop = (dest, path, iface, name) => busctl('get-property', dest, path, `org.a11y.atspi.${iface}`, name);

  const [apps] = await busctl('call', 'org.a11y.atspi.Registry', '/org/a11y/atspi/accessible/root', 'org.a11y.atspi.Accessible', 'GetChildren');
  let app;
  for (const [bus, path] of apps) {
    const [p] = await busctl('call', 'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'GetConnectionUnixProcessID', 's', bus);
    if (p === pid) app = [bus, path];
  }
  if (!app) throw new Error(`no accessible app with pid ${pid}`);
  const [frames] = await call(app[0], app[1], 'Accessible', 'GetChildren');
  if (!frames.length) throw new Error('the app has no windows');
  const stack = [frames[0]];
  let nodes = 0;
  while (stack.length) {
    const [bus, path] = stack.pop();
    nodes++;
    await prop(bus, path, 'Accessible', 'Name');
    const [children] = await call(bus, path, 'Accessible', 'GetChildren');
    const [role] = await call(bus, path, 'Accessible', 'GetRole');
    await call(bus, path, 'Accessible', 'GetRoleName');
    await call(bus, path, 'Accessible', 'GetState');
    const [ifaces] = await call(bus, path, 'Accessible', 'GetInterfaces');
    const has = (n) => ifaces.includes(`org.a11y.atspi.${n}`);
    if (has('Component')) await call(bus, path, 'Component', 'GetExtents', 'u', '1');
    if (has('Action')) await call(bus, path, 'Action', 'GetActions');
    if (has('Value') && VALUE_ROLES.has(role)) {
      for (const n of ['CurrentValue', 'MinimumValue', 'MaximumValue']) await prop(bus, path, 'Value', n);
    }
    if (has('Text') && TEXT_ROLES.has(role)) {
      const count = await prop(bus, path, 'Text', 'CharacterCount');
      await call(bus, path, 'Text', 'GetText', 'ii', '0', String(Math.min(count, 200)));
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return { nodes, calls };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const pid = Number(process.argv[2]);
  const address = await a11yBusAddress(process.env);
  const t0 = performance.now();
  const r = await busctlWalk(address, pid);
  console.log(`busctl walk: ${r.nodes} nodes, ${r.calls} processes, ${(performance.now() - t0).toFixed(0)} ms`);
}
