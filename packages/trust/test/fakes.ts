import {
  Tokens, defaultConfig, newSession, type Accessibility, type Compositor, type CompositorCapability, type Desktop, type HypruseConfig,
  type Intent, type LayerSurface, type Next, type ToolResult, type TrustCall, type TrustLayer, type Window,
} from '@hypruse/core';

export function win(address: string, cls: string, x: number, y: number, w = 400, h = 300, extra: Partial<Window> = {}): Window {
  return {
    address, class: cls, title: `${cls} window`, pid: 100 + Number.parseInt(address.replace(/\D/g, '') || '0', 10),
    geometry: { x, y, width: w, height: h }, workspace: '1', floating: false, fullscreen: false, visible: true, focused: false, ...extra,
  };
}

export function layer(namespace: string, kind: LayerSurface['kind'], extra: Partial<LayerSurface> = {}): LayerSurface {
  return { namespace, kind, level: 'overlay', monitor: 'HEADLESS-1', geometry: { x: 0, y: 0, width: 1920, height: 1080 }, keyboardInteractive: true, ...extra };
}

export function desktop(windows: Window[], extra: Partial<Desktop> = {}): Desktop {
  return {
    compositor: 'fake',
    monitors: [{ name: 'HEADLESS-1', geometry: { x: 0, y: 0, width: 1920, height: 1080 }, scale: 1, transform: 0, focused: true, activeWorkspace: '1' }],
    workspaces: [
      { id: '1', name: '1', monitor: 'HEADLESS-1', windows: windows.length, visible: true, focused: true },
      { id: '2', name: 'mail', monitor: 'HEADLESS-1', windows: 0, visible: false, focused: false },
    ],
    windows,
    activeWindow: windows.find((w) => w.focused)?.address ?? null,
    activeWorkspace: '1',
    cursor: { x: 10, y: 10, source: 'compositor' },
    layers: [],
    ...extra,
  };
}

export interface FakeCompositor extends Compositor {
  desk: Desktop;
  calls: string[];
  lockedValue: boolean | null | Error;
  snapshotError: Error | null;
}

export function fakeCompositor(desk: Desktop, caps: CompositorCapability[] = ['layers', 'cursor.read', 'lock.read', 'tag', 'notify']): FakeCompositor {
  const c: FakeCompositor = {
    id: 'fake',
    displayName: 'Fake',
    capabilities: new Set(caps),
    desk,
    calls: [],
    lockedValue: false,
    snapshotError: null,
    unsupportedReason: () => 'fake',
    version: async () => '1',
    async snapshot() {
      c.calls.push('snapshot');
      if (c.snapshotError) throw c.snapshotError;
      return structuredClone(c.desk);
    },
    subscribe: async () => { throw new Error('no events'); },
    focusWindow: async (a) => void c.calls.push(`focus ${a}`),
    switchWorkspace: async () => undefined,
    moveToWorkspace: async () => undefined,
    closeWindow: async () => ({ status: 'closed' }),
    toggleFullscreen: async () => undefined,
    toggleFloating: async () => undefined,
    moveCursor: async () => undefined,
    launch: async () => ({ pid: null, window: null }),
    binds: async () => [],
    runBind: async () => '',
    async locked() {
      if (c.lockedValue instanceof Error) throw c.lockedValue;
      return c.lockedValue;
    },
    tagWindow: async (a, t) => void c.calls.push(`tag ${a} ${t}`),
    notify: async (m) => void c.calls.push(`notify ${m}`),
    installMarkRule: async (t) => (c.calls.push(`rule ${t}`), true),
    dispose: async () => undefined,
  };
  return c;
}

export interface CallOptions {
  /** The selected compositor's manifest (registered as Tokens.CompositorManifest). */
  manifest?: import('@hypruse/core').CompositorManifest;
  /** The session environment of the call (default: process.env). */
  env?: NodeJS.ProcessEnv;
  tool?: string;
  kind?: 'act' | 'observe';
  intent?: Intent | null | (() => Promise<Intent | null>);
  config?: Partial<HypruseConfig>;
  compositor?: Compositor;
  a11y?: Partial<Accessibility>;
  rawArgs?: Record<string, unknown>;
  dryRun?: boolean;
  allowAuth?: boolean;
  confirmed?: boolean;
  confirm?: (m: string) => Promise<boolean | null>;
  parent?: TrustCall | null;
  source?: 'mcp' | 'cli' | 'replay';
  session?: TrustCall['session'];
  definition?: TrustCall['definition'];
}

export function config(over: Partial<HypruseConfig> = {}): HypruseConfig {
  return { ...defaultConfig(), ...over };
}

let ids = 1;

export function fakeCall(o: CallOptions = {}): TrustCall {
  const comp = o.compositor ?? fakeCompositor(desktop([]));
  const registry = new Map<symbol, unknown>([[Tokens.Compositor as symbol, comp]]);
  if (o.a11y) registry.set(Tokens.Accessibility as symbol, o.a11y);
  if (o.manifest) registry.set(Tokens.CompositorManifest as symbol, o.manifest);
  registry.set(Tokens.Logger as symbol, { debug() {}, info() {}, warn: (m: string) => logged.push(m), error: (m: string) => logged.push(m) });
  const intent = o.intent;
  return {
    id: ids++,
    tool: o.tool ?? 'pointer',
    kind: o.kind ?? 'act',
    args: o.rawArgs ?? {},
    rawArgs: o.rawArgs ?? {},
    definition: o.definition,
    intent: typeof intent === 'function' ? intent : async () => (intent === undefined ? null : intent),
    config: config(o.config),
    session: o.session ?? newSession(),
    services: {
      get: <T,>(t: symbol) => {
        if (!registry.has(t)) throw new Error(`no service ${String(t)}`);
        return registry.get(t) as T;
      },
      has: (t) => registry.has(t),
    },
    signal: new AbortController().signal,
    env: o.env ?? process.env,
    dryRun: o.dryRun ?? false,
    parent: o.parent ?? null,
    source: o.source ?? 'mcp',
    allowAuth: o.allowAuth ?? false,
    confirmed: o.confirmed ?? false,
    confirm: o.confirm,
    notes: [],
  };
}

/** Lines the fake logger received. */
export const logged: string[] = [];

/** A `next` that counts its calls and returns `result`. */
export function fakeNext(result: ToolResult = { text: ['done'] }): Next & { calls: number } {
  const n = (async () => {
    n.calls++;
    return result;
  }) as Next & { calls: number };
  n.calls = 0;
  return n;
}

/** Run one layer the way the onion does (honouring appliesTo). */
export function run(l: TrustLayer, call: TrustCall, next: Next): Promise<ToolResult> {
  if (l.appliesTo && !l.appliesTo(call)) return next();
  return l.handle(call, next);
}

export async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string; hint?: string; layer?: string; category: string }> {
  try {
    await p;
  } catch (e) {
    return e as { code: string; message: string; hint?: string; layer?: string; category: string };
  }
  throw new Error('expected a refusal, but the call went through');
}
