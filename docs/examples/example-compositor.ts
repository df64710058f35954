// A worked example of a hypruse compositor plugin (docs/plugins.md).
//
// It drives a made-up compositor, "examplewm", whose IPC is one JSON request
// per line on a Unix socket named by $EXAMPLEWM_SOCKET, answered by one JSON
// line: {"cmd":"version"} -> {"ok":true,"version":"1.0"}, {"cmd":"desktop"}
// -> {"ok":true,"desktop":{...}} in hypruse's Desktop shape, {"cmd":"focus",
// "address":"..."} and {"cmd":"workspace","name":"..."} -> {"ok":true}; a
// refusal is {"ok":false,"error":"...","missing":"window"} when the window is gone.
// Everything examplewm cannot do is left out of `capabilities`, so hypruse
// answers those calls with a typed "not supported on examplewm" error.
//
// Use it from a config file:   plugins: ['./example-compositor.ts']
import { connect } from 'node:net';
import {
  definePlugin, HypruseError, PLUGIN_API_VERSION, Tokens, UnsupportedError,
  type Compositor, type CompositorFactory, type CompositorManifest, type Desktop,
} from 'hypruse';

type Capability = Compositor['capabilities'] extends ReadonlySet<infer C> ? C : never;
const CAPABILITIES: ReadonlySet<Capability> = new Set<Capability>(['focus', 'workspace']);
const TIMEOUT_MS = 2000;
/** Window addresses are `w` and a number; workspace names are plain words (checked before anything is sent). */
const ADDRESS = /^w[0-9]+$/;
const WORKSPACE = /^[A-Za-z0-9 ._-]{1,64}$/;

/** What the rest of hypruse knows of examplewm: how it is found, what it can do, how its bindings are written. */
const MANIFEST: CompositorManifest = {
  id: 'examplewm',
  displayName: 'examplewm',
  envVars: ['EXAMPLEWM_SOCKET'],
  sockets: 'none found by discovery: EXAMPLEWM_SOCKET names it',
  capabilities: [...CAPABILITIES],
  bindingSyntax: 'bind Super+Return spawn foot (in ~/.config/examplewm/config)',
  addressExample: 'w1',
};

/** One request, one answer line; bounded by a timeout, never hangs. */
function request(socket: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const conn = connect(socket);
    let buf = '';
    const fail = (message: string) => {
      conn.destroy();
      reject(new HypruseError('error.compositor', `examplewm: ${message}`, { hint: 'is examplewm running? check $EXAMPLEWM_SOCKET' }));
    };
    const timer = setTimeout(() => fail(`no answer to ${String(body.cmd)} within ${TIMEOUT_MS} ms`), TIMEOUT_MS);
    conn.on('error', (err) => {
      clearTimeout(timer);
      fail(err.message);
    });
    conn.on('connect', () => conn.write(`${JSON.stringify(body)}\n`));
    conn.on('data', (d) => {
      buf += d.toString('utf8');
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      conn.end();
      const reply = JSON.parse(buf.slice(0, nl)) as Record<string, unknown>;
      if (reply.missing === 'window') return reject(new HypruseError('not_found.window', `examplewm: ${String(reply.error)}`, { hint: 'list the windows with desktop' }));
      if (reply.ok !== true) return reject(new HypruseError('error.compositor', `examplewm refused ${String(body.cmd)}: ${String(reply.error)}`));
      resolve(reply);
    });
  });
}

class ExampleCompositor implements Compositor {
  readonly id = 'examplewm';
  readonly displayName = 'examplewm';
  readonly capabilities = CAPABILITIES;
  constructor(private readonly socket: string) {}

  unsupportedReason(cap: Capability): string {
    return `examplewm's IPC has no ${cap} request`;
  }
  private unsupported(cap: Capability): never {
    throw new UnsupportedError(this.displayName, cap, this.unsupportedReason(cap));
  }

  async version() {
    return `examplewm ${String((await request(this.socket, { cmd: 'version' })).version)}`;
  }
  async snapshot() {
    return (await request(this.socket, { cmd: 'desktop' })).desktop as Desktop;
  }
  async focusWindow(address: string) {
    if (!ADDRESS.test(address)) throw new HypruseError('usage.address', `"${address}" is not an examplewm window address (w and a number, e.g. w1)`);
    await request(this.socket, { cmd: 'focus', address });
  }
  async switchWorkspace(name: string) {
    if (!WORKSPACE.test(name)) throw new HypruseError('usage.workspace', `${JSON.stringify(name)} is not a workspace name examplewm accepts (letters, digits, space, . _ -; at most 64)`);
    await request(this.socket, { cmd: 'workspace', name });
  }
  subscribe = async () => this.unsupported('events');
  moveToWorkspace = async () => this.unsupported('move');
  closeWindow = async () => this.unsupported('close');
  toggleFullscreen = async () => this.unsupported('fullscreen');
  toggleFloating = async () => this.unsupported('floating');
  moveCursor = async () => this.unsupported('cursor.set');
  launch = async () => this.unsupported('launch');
  binds = async () => this.unsupported('binds');
  runBind = async () => this.unsupported('bind.run');
  locked = async () => null;
  tagWindow = async () => this.unsupported('tag');
  notify = async () => this.unsupported('notify');
  installMarkRule = async () => false;
  dispose = async () => undefined;
}

/** Detection is cheap and never throws: it says why not, in one line. */
const factory: CompositorFactory = {
  id: 'examplewm',
  manifest: MANIFEST,
  detect({ env }) {
    return env.EXAMPLEWM_SOCKET ? { ok: true, detail: `examplewm IPC at ${env.EXAMPLEWM_SOCKET}` } : { ok: false, reason: 'EXAMPLEWM_SOCKET is not set' };
  },
  create({ env }) {
    if (!env.EXAMPLEWM_SOCKET) throw new HypruseError('unsupported.compositor', 'examplewm is not running (EXAMPLEWM_SOCKET is not set)');
    return new ExampleCompositor(env.EXAMPLEWM_SOCKET);
  },
};

export default definePlugin({
  name: 'examplewm',
  apiVersion: PLUGIN_API_VERSION,
  register(container) {
    container.register(Tokens.CompositorFactory, { useValue: factory });
  },
});
