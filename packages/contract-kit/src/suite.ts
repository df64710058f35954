// The compositor contract suite: every requirement (requirements.ts) against
// every target given. A requirement whose capability the plugin declares must
// pass; one it does not declare must be answered as the requirement's
// `absent` rule says (a typed UnsupportedError, or the contract's honest null).
//
// The suite registers its tests through the test API the caller passes
// (vitest's `describe`, `it`, `expect`, hooks), so this package needs no test
// runner of its own: `contractSuite(await import('vitest'), [target])`.
import type { afterAll as AfterAll, afterEach as AfterEach, beforeAll as BeforeAll, describe as Describe, expect as Expect, it as It } from 'vitest';
import type { Compositor, Desktop, DesktopEvent, EventSubscription, HypruseError, Window } from '@hypruse/core';
import { DesktopModel, awaitDesktopEvent, classifyLayer } from '@hypruse/core';
import type { ContractEnv, ContractTarget } from './target.js';
import { SLOW_LAUNCH_APP, SLOW_LAUNCH_TITLE } from './slow-launch.js';
import { ALL_CAPABILITIES, REQUIREMENT_IDS, REQUIREMENTS, type RequirementId } from './requirements.js';
import { until as pollUntil } from './until.js';

/** The test runner's API the suite registers through (vitest's). */
export interface TestApi {
  describe: typeof Describe;
  it: typeof It;
  expect: typeof Expect;
  beforeAll: typeof BeforeAll;
  afterAll: typeof AfterAll;
  afterEach: typeof AfterEach;
}

export interface SuiteOptions {
  /** Target ids to run (default: every target not marked selectOnly). */
  only?: string[];
  /** A target that is unavailable fails instead of being skipped (default: skipped, with a banner on stderr). */
  requireAll?: boolean;
  /** Stretches every wait (default: HYPRUSE_TIME_SCALE, at least 1). */
  timeScale?: number;
}

/**
 * Registers the contract suite: one `describe` per target with one test per
 * requirement (named by its id), and a coverage test computed from the tests
 * it registered. Call it at the top level of a test file.
 */
export async function contractSuite(api: TestApi, allTargets: ContractTarget[], opts: SuiteOptions = {}): Promise<void> {
  const { describe, it, expect, beforeAll, afterAll, afterEach } = api;
  allTargets = [...allTargets].sort((a, b) => a.id.localeCompare(b.id));
  const chosen = opts.only ?? [];
  for (const id of chosen) if (!allTargets.some((t) => t.id === id)) throw new Error(`no contract target ${id}; the targets are ${allTargets.map((t) => t.id).join(', ')}`);
  const targets = chosen.length ? allTargets.filter((t) => chosen.includes(t.id)) : allTargets.filter((t) => !t.selectOnly);
  /** Slower machines (the real-compositor guest) stretch every wait by this factor. */
  const SCALE = Math.max(1, opts.timeScale ?? (Number(process.env.HYPRUSE_TIME_SCALE) || 1));
  const requireAll = opts.requireAll ?? false;

  const unavailable = new Map<string, string | null>(await Promise.all(targets.map(async (t) => [t.id, await t.unavailable()] as const)));

  // ------------------------------------------------------------------ helpers

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  const until = <T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 4000 * SCALE): Promise<NonNullable<T>> => pollUntil(what, fn, timeoutMs);

  async function nextMatching(sub: EventSubscription, what: string, pred: (e: DesktopEvent) => boolean, timeoutMs = 6000 * SCALE): Promise<DesktopEvent> {
    const deadline = Date.now() + timeoutMs;
    const seen: string[] = [];
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} event within ${timeoutMs} ms; saw: ${seen.join(', ') || 'nothing'}`);
      const ev = await sub.next(left);
      if (!ev) continue;
      seen.push(ev.type);
      if (pred(ev)) return ev;
    }
  }

  async function expectTyped(p: Promise<unknown>, accept: (e: HypruseError) => boolean, what: string): Promise<HypruseError> {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err, `${what}: expected a typed error, the call succeeded`).not.toBeNull();
    // checked by shape: a third-party plugin's errors come from its own copy of hypruse
    expect(isTyped(err), `${what}: expected a HypruseError (code, category), got ${String(err)}`).toBe(true);
    const he = err as HypruseError;
    expect(accept(he), `${what}: unexpected ${he.code}: ${he.message}`).toBe(true);
    return he;
  }

  const expectUnsupported = (p: Promise<unknown>, what: string) => expectTyped(p, (e) => e.category === 'unsupported', what);

  const wsName = (d: Desktop, id: string | null) => (id === null ? null : (d.workspaces.find((w) => w.id === id)?.name ?? id));
  const activeWsName = (d: Desktop) => wsName(d, d.activeWorkspace);
  const win = (d: Desktop, address: string): Window | undefined => d.windows.find((w) => w.address === address);

  interface Ctx {
    env: ContractEnv;
    c: Compositor;
    /** Open a window outside hypruse; it is closed after the test. */
    spawn(tag: string, opts?: { workspace?: string; appId?: string; title?: string; lateTitle?: string }): Promise<{ pid: number; address: string; title: string; appId: string }>;
    /** Close this window after the test. */
    track(address: string): void;
    /** Run after the test. */
    later(fn: () => Promise<unknown>): void;
  }

  interface Check {
    present(x: Ctx): Promise<void>;
    /** For requirements with a capability: the answer when the plugin does not declare it. */
    absent?(x: Ctx): Promise<void>;
  }

  const restoreWorkspace = async (x: Ctx) => {
    const name = activeWsName(await x.c.snapshot());
    if (name) x.later(() => x.c.switchWorkspace(name));
  };

  // ------------------------------------------------------------------ checks

  const CHECKS: Record<RequirementId, Check> = {
    'C-MANIFEST': {
      async present({ env, c }) {
        const m = env.factory.manifest;
        expect(m, `factory ${env.factory.id} declares no manifest`).toBeDefined();
        expect([m!.id, m!.displayName]).toEqual([env.factory.id, c.displayName]);
        expect(c.id).toBe(m!.id);
        expect(Array.isArray(m!.envVars)).toBe(true);
        expect(m!.bindingSyntax.trim().length, 'bindingSyntax').toBeGreaterThan(0);
        for (const cap of m!.capabilities) expect(ALL_CAPABILITIES as readonly string[], `manifest capability ${cap}`).toContain(cap);
        const undeclared = [...c.capabilities].filter((cap) => !m!.capabilities.includes(cap));
        expect(undeclared, 'capabilities the compositor has but its manifest does not declare').toEqual([]);
      },
    },

    'C-VERSION': {
      async present({ c }) {
        const v = await c.version();
        expect(v.trim().length).toBeGreaterThan(0);
        expect(v.toLowerCase()).toContain(c.id.toLowerCase());
      },
    },

    'C-UNSUPPORTED-REASON': {
      async present({ c }) {
        for (const cap of ALL_CAPABILITIES) {
          if (c.capabilities.has(cap)) continue;
          const reason = c.unsupportedReason(cap);
          expect(typeof reason, cap).toBe('string');
          expect(reason.trim().length, `${cap} has an empty reason`).toBeGreaterThan(5);
          expect(reason.includes('\n'), `${cap}: one line`).toBe(false);
        }
      },
    },

    'C-SNAPSHOT-MONITORS': {
      async present({ c }) {
        const d = await c.snapshot();
        expect(d.compositor).toBe(c.id);
        expect(d.monitors.length).toBeGreaterThan(0);
        const ids = new Set(d.workspaces.map((w) => w.id));
        for (const m of d.monitors) {
          expect(m.geometry.width, m.name).toBeGreaterThan(0);
          expect(m.geometry.height, m.name).toBeGreaterThan(0);
          expect(m.scale, m.name).toBeGreaterThan(0);
          expect(Number.isInteger(m.transform) && m.transform >= 0 && m.transform <= 7, m.name).toBe(true);
          if (m.activeWorkspace !== null) expect(ids.has(m.activeWorkspace), `${m.name} shows unknown workspace ${m.activeWorkspace}`).toBe(true);
          if (m.physical && m.transform % 2 === 0) {
            expect(Math.abs(m.physical.width / m.scale - m.geometry.width), `${m.name} logical width = physical / scale`).toBeLessThanOrEqual(1);
          }
        }
        expect(d.monitors.filter((m) => m.focused)).toHaveLength(1);
        expect(d.activeWorkspace).not.toBeNull();
        expect(ids.has(d.activeWorkspace!)).toBe(true);
      },
    },

    'C-SNAPSHOT-WINDOWS': {
      async present(x) {
        const s = await x.spawn('snapshot');
        const d = await x.c.snapshot();
        const w = win(d, s.address);
        expect(w, `window ${s.address} missing from the snapshot`).toBeDefined();
        // a compositor that reports no process for its windows says why (pidUnknown) and gives null, never a guess
        if (w!.pidUnknown !== undefined) expect([w!.pid, w!.pidUnknown.length > 5]).toEqual([null, true]);
        else expect(w!.pid).toBe(s.pid);
        expect(w!.class).toBe(s.appId);
        expect(w!.title).toBe(s.title);
        // a compositor that cannot say which workspace a window is on says why (workspaceUnknown) and gives null
        if (w!.workspaceUnknown !== undefined) expect([w!.workspace, w!.workspaceUnknown.length > 5]).toEqual([null, true]);
        else expect(d.workspaces.some((ws) => ws.id === w!.workspace)).toBe(true);
        // a compositor that reports neither position nor size (positionUnknown, 0x0) gives nothing to check here
        if (!(w!.positionUnknown !== undefined && w!.geometry.width === 0 && w!.geometry.height === 0)) {
          expect(w!.geometry.width).toBeGreaterThan(0);
          expect(w!.geometry.height).toBeGreaterThan(0);
        }
        if (w!.visible) {
          const cx = w!.geometry.x + w!.geometry.width / 2;
          const cy = w!.geometry.y + w!.geometry.height / 2;
          const on = d.monitors.some((m) => cx >= m.geometry.x && cy >= m.geometry.y && cx < m.geometry.x + m.geometry.width && cy < m.geometry.y + m.geometry.height);
          expect(on, `visible window centre ${cx},${cy} is on no monitor`).toBe(true);
        }
        expect(new Set(d.windows.map((ww) => ww.address)).size).toBe(d.windows.length);
      },
    },

    'C-SNAPSHOT-ACTIVE': {
      async present(x) {
        await x.spawn('active');
        const d = await x.c.snapshot();
        const focused = d.windows.filter((w) => w.focused);
        expect(focused.length).toBeLessThanOrEqual(1);
        expect(d.activeWindow).toBe(focused[0]?.address ?? null);
      },
    },

    'C-EVENTS-OPEN-CLOSE': {
      async present(x) {
        const sub = await x.c.subscribe();
        x.later(async () => sub.close());
        const s = await x.spawn('events');
        await nextMatching(sub, `window_open ${s.address}`, (e) => e.type === 'window_open' && e.address === s.address);
        process.kill(s.pid, 'SIGTERM');
        await nextMatching(sub, `window_close ${s.address}`, (e) => e.type === 'window_close' && e.address === s.address);
      },
      async absent({ c }) {
        await expectUnsupported(c.subscribe(), 'subscribe()');
      },
    },

    'C-EVENTS-RECONNECT': {
      async present(x) {
        if (!x.env.dropEvents) throw new Error('the target declares events but cannot drop the event connection; give it a dropEvents()');
        const sub = await x.c.subscribe();
        x.later(async () => sub.close());
        await x.env.dropEvents();
        const s = await x.spawn('reconnect');
        await nextMatching(sub, `window_open ${s.address} after the drop`, (e) => e.type === 'window_open' && e.address === s.address, 10000 * SCALE);
      },
      async absent({ c }) {
        await expectUnsupported(c.subscribe(), 'subscribe()');
      },
    },

    'C-EVENTS-RESYNC': {
      async present(x) {
        if (!x.env.dropEvents) throw new Error('the target declares events but cannot drop the event connection; give it a dropEvents()');
        const sub = await x.c.subscribe();
        x.later(async () => sub.close());
        await x.env.dropEvents();
        const ev = await nextMatching(sub, 'resync after the drop', (e) => e.type === 'resync' || (e.type === 'other' && /resync|reconnect/i.test(e.name)), 10000 * SCALE);
        expect(ev.type, 'the reconnect marker is the typed resync event').toBe('resync');
        expect((ev as { reason: string }).reason.length).toBeGreaterThan(5);
        const s = await x.spawn('after-resync');
        const seen: string[] = [];
        await nextMatching(sub, `window_open ${s.address}`, (e) => (seen.push(e.type), e.type === 'window_open' && e.address === s.address), 10000 * SCALE);
        expect(seen.filter((t) => t === 'resync'), 'one resync per reconnect').toEqual([]);
      },
      async absent({ c }) {
        await expectUnsupported(c.subscribe(), 'subscribe()');
      },
    },

    'C-WAIT-CLOSE-BY-TITLE': {
      async present(x) {
        const other = await x.spawn('close-other');
        const s = await x.spawn('close-by-title');
        const sub = await x.c.subscribe();
        x.later(async () => sub.close());
        const model = new DesktopModel(await x.c.snapshot());
        const waiting = awaitDesktopEvent(sub, model, () => x.c.snapshot(), { event: 'window_close', match: s.title, timeoutMs: 8000 * SCALE });
        process.kill(other.pid, 'SIGTERM');
        await sleep(150);
        const t0 = Date.now();
        process.kill(s.pid, 'SIGTERM');
        const hit = await waiting;
        expect(hit, `no window_close matched "${s.title}"`).not.toBeNull();
        expect(hit).toMatchObject({ event: 'window_close', address: s.address, title: s.title, class: s.appId });
        expect(Date.now() - t0, 'ended on the close event, well inside the timeout').toBeLessThan(4000 * SCALE);
      },
      async absent({ c }) {
        await expectUnsupported(c.subscribe(), 'subscribe()');
      },
    },

    'C-WAIT-OPEN-LATE-TITLE': {
      async present(x) {
        const late = `contract named late ${Date.now() % 100000}`;
        const sub = await x.c.subscribe();
        x.later(async () => sub.close());
        const model = new DesktopModel(await x.c.snapshot());
        const waiting = awaitDesktopEvent(sub, model, () => x.c.snapshot(), { event: 'window_open', match: late, timeoutMs: 10000 * SCALE });
        const t0 = Date.now();
        const s = await x.spawn('late-title', { lateTitle: late });
        expect(win(await x.c.snapshot(), s.address)?.title, 'the window opened under another title').not.toBe(late);
        const hit = await waiting;
        expect(hit, `no window_open matched "${late}"`).not.toBeNull();
        expect(hit).toMatchObject({ event: 'window_open', address: s.address, title: late });
        expect(Date.now() - t0, 'ended on the title event, well inside the timeout').toBeLessThan(6000 * SCALE);
      },
      async absent({ c }) {
        await expectUnsupported(c.subscribe(), 'subscribe()');
      },
    },

    'C-WAIT-RESYNC': {
      async present(x) {
        if (!x.env.dropEvents) throw new Error('the target declares events but cannot drop the event connection; give it a dropEvents()');
        const s = await x.spawn('gap-close');
        const sub = await x.c.subscribe();
        x.later(async () => sub.close());
        const model = new DesktopModel(await x.c.snapshot());
        // the window goes while the connection is down: its close event is never delivered
        await x.env.dropEvents();
        process.kill(s.pid, 'SIGTERM');
        const hit = await awaitDesktopEvent(sub, model, () => x.c.snapshot(), { event: 'window_close', match: s.title, timeoutMs: 10000 * SCALE });
        expect(hit, `the wait for the close of "${s.title}" did not end`).not.toBeNull();
        expect(hit).toMatchObject({ event: 'window_close', address: s.address, title: s.title });
      },
      async absent({ c }) {
        await expectUnsupported(c.subscribe(), 'subscribe()');
      },
    },

    'C-FOCUS': {
      async present(x) {
        const a = await x.spawn('focus-a');
        const b = await x.spawn('focus-b');
        await x.c.focusWindow(a.address);
        await until(`${a.address} active`, async () => (await x.c.snapshot()).activeWindow === a.address);
        await x.c.focusWindow(b.address);
        await until(`${b.address} active`, async () => (await x.c.snapshot()).activeWindow === b.address);
      },
      async absent(x) {
        const a = await x.spawn('focus');
        await expectUnsupported(x.c.focusWindow(a.address), 'focusWindow()');
      },
    },

    'C-WORKSPACE': {
      async present(x) {
        const before = activeWsName(await x.c.snapshot());
        await restoreWorkspace(x);
        await x.c.switchWorkspace(x.env.spareWorkspace);
        await until(`workspace ${x.env.spareWorkspace} active`, async () => activeWsName(await x.c.snapshot()) === x.env.spareWorkspace);
        await x.c.switchWorkspace(before!);
        await until(`workspace ${before} active again`, async () => activeWsName(await x.c.snapshot()) === before);
      },
      async absent(x) {
        await expectUnsupported(x.c.switchWorkspace(x.env.spareWorkspace), 'switchWorkspace()');
      },
    },

    'C-MOVE-SILENT': {
      async present(x) {
        const a = await x.spawn('move');
        const before = await x.c.snapshot();
        await x.c.moveToWorkspace(a.address, x.env.spareWorkspace, true);
        const d = await until(`${a.address} on ${x.env.spareWorkspace}`, async () => {
          const s = await x.c.snapshot();
          const w = win(s, a.address);
          return w && wsName(s, w.workspace) === x.env.spareWorkspace ? s : null;
        });
        expect(activeWsName(d)).toBe(activeWsName(before));
      },
      async absent(x) {
        const a = await x.spawn('move');
        await expectUnsupported(x.c.moveToWorkspace(a.address, x.env.spareWorkspace, true), 'moveToWorkspace()');
      },
    },

    'C-CLOSE-AWAIT': {
      async present(x) {
        const a = await x.spawn('close');
        const t0 = Date.now();
        const out = await x.c.closeWindow(a.address, 4000 * SCALE);
        expect(out.status).toBe('closed');
        expect(Date.now() - t0).toBeLessThan(4000 * SCALE);
        expect(win(await x.c.snapshot(), a.address)).toBeUndefined();
      },
      async absent(x) {
        const a = await x.spawn('close');
        await expectUnsupported(x.c.closeWindow(a.address, 1000 * SCALE), 'closeWindow()');
      },
    },

    'C-FULLSCREEN': {
      async present(x) {
        const a = await x.spawn('fullscreen');
        await x.c.toggleFullscreen(a.address);
        await until('fullscreen on', async () => win(await x.c.snapshot(), a.address)?.fullscreen === true);
        await x.c.toggleFullscreen(a.address);
        await until('fullscreen off', async () => win(await x.c.snapshot(), a.address)?.fullscreen === false);
      },
      async absent(x) {
        const a = await x.spawn('fullscreen');
        await expectUnsupported(x.c.toggleFullscreen(a.address), 'toggleFullscreen()');
      },
    },

    'C-FLOATING': {
      async present(x) {
        const a = await x.spawn('floating');
        const before = win(await x.c.snapshot(), a.address)!.floating;
        await x.c.toggleFloating(a.address);
        await until('floating flipped', async () => win(await x.c.snapshot(), a.address)?.floating === !before);
        await x.c.toggleFloating(a.address);
        await until('floating restored', async () => win(await x.c.snapshot(), a.address)?.floating === before);
      },
      async absent(x) {
        const a = await x.spawn('floating');
        await expectUnsupported(x.c.toggleFloating(a.address), 'toggleFloating()');
      },
    },

    'C-CURSOR-SET': {
      async present({ c }) {
        const d = await c.snapshot();
        for (const m of d.monitors) {
          const p = { x: Math.round(m.geometry.x + m.geometry.width / 3), y: Math.round(m.geometry.y + m.geometry.height / 3) };
          await c.moveCursor(p);
          const cur = (await c.snapshot()).cursor;
          expect(cur, `cursor after moving to ${p.x},${p.y} on ${m.name}`).not.toBeNull();
          expect(Math.abs(cur!.x - p.x)).toBeLessThanOrEqual(1);
          expect(Math.abs(cur!.y - p.y)).toBeLessThanOrEqual(1);
          expect(cur!.source).toBe(c.capabilities.has('cursor.read') ? 'compositor' : 'hypruse');
        }
      },
      async absent({ c }) {
        await expectUnsupported(c.moveCursor({ x: 10, y: 10 }), 'moveCursor()');
      },
    },

    'C-CURSOR-READ': {
      async present({ c }) {
        const cur = (await c.snapshot()).cursor;
        expect(cur).not.toBeNull();
        expect(cur!.source).toBe('compositor');
      },
      async absent({ c }) {
        const cur = (await c.snapshot()).cursor;
        expect(cur === null || cur.source === 'hypruse', `a compositor that cannot read the cursor reported ${JSON.stringify(cur)}`).toBe(true);
      },
    },

    'C-LAUNCH-OWN-WINDOW': {
      async present(x) {
        await restoreWorkspace(x);
        const launching = x.c.launch(x.env.launchCommand, { workspace: x.env.spareWorkspace, timeoutMs: 12000 * SCALE });
        // a stranger window opening at the same time must not be taken for the launched one
        const decoy = await x.spawn('decoy');
        const res = await launching;
        expect(res.pid).toEqual(expect.any(Number));
        expect(res.window, res.note ?? 'no window').not.toBeNull();
        x.track(res.window!.address);
        expect(res.window!.address).not.toBe(decoy.address);
        const d = await until('launched window on the spare workspace', async () => {
          const s = await x.c.snapshot();
          const w = win(s, res.window!.address);
          return w && wsName(s, w.workspace) === x.env.spareWorkspace ? s : null;
        });
        expect(win(d, res.window!.address)!.pid).not.toBe(decoy.pid);
      },
      async absent({ c, env }) {
        await expectUnsupported(c.launch(env.launchCommand, { timeoutMs: 1000 * SCALE }), 'launch()');
      },
    },

    'C-LAUNCH-UNSEEN': {
      async present(x) {
        await restoreWorkspace(x);
        const before = await x.c.snapshot();
        const res = await x.c.launch(x.env.launchCommand, { unseen: true, timeoutMs: 12000 * SCALE });
        expect(res.window, res.note ?? 'no window').not.toBeNull();
        x.track(res.window!.address);
        expect(res.unseen?.workspace).toEqual(expect.any(String));
        const after = await x.c.snapshot();
        expect(wsName(after, win(after, res.window!.address)!.workspace)).toBe(res.unseen!.workspace);
        expect(after.activeWorkspace).toBe(before.activeWorkspace);
        expect(after.activeWindow).toBe(before.activeWindow);
      },
      async absent({ c, env }) {
        await expectUnsupported(c.launch(env.launchCommand, { unseen: true, timeoutMs: 1000 * SCALE }), 'launch()');
      },
    },

    'C-LAUNCH-UNSEEN-LATER': {
      async present(x) {
        await restoreWorkspace(x);
        const before = await x.c.snapshot();
        const known = new Set(before.windows.map((w) => w.address));
        // one launched shell, two windows: the first from a child, the second from the shell itself 2 s later
        const res = await x.c.launch(`${x.env.launchCommand} & sleep ${2 * SCALE}; exec ${x.env.launchCommand}`, { unseen: true, timeoutMs: 12000 * SCALE });
        expect(res.window, res.note ?? 'no window').not.toBeNull();
        x.track(res.window!.address);
        known.add(res.window!.address);
        const later = await pollUntil('the window the launched process opens later', async () => (await x.c.snapshot()).windows.find((w) => !known.has(w.address)), 12000 * SCALE);
        x.track(later.address);
        const after = await x.c.snapshot();
        expect(wsName(after, win(after, later.address)!.workspace), 'the later window on the agent workspace').toBe(res.unseen!.workspace);
        expect(after.activeWorkspace).toBe(before.activeWorkspace);
        expect(after.activeWindow).toBe(before.activeWindow);
      },
      async absent({ c }) {
        // a property of how the compositor places windows: the missing capability says why, in one line
        const why = c.unsupportedReason('launch.unseen.later');
        expect(why).not.toMatch(/is supported/);
        expect(why.length).toBeGreaterThan(20);
      },
    },

    'C-LAUNCH-SAME-CLASS-DECOY': {
      async present(x) {
        // the launched program opens its window late, so the decoy (same class and title, named like the program, another process) is listed first
        const launching = x.c.launch(x.env.slowLaunchCommand, { timeoutMs: 12000 * SCALE });
        const decoy = await x.spawn('same-class-decoy', { appId: SLOW_LAUNCH_APP, title: SLOW_LAUNCH_TITLE });
        const listedFirst = win(await x.c.snapshot(), decoy.address);
        expect(listedFirst, 'the decoy window is listed while the launch waits').toBeDefined();
        expect(listedFirst!.class).toBe(SLOW_LAUNCH_APP);
        const res = await launching;
        expect(res.window, res.note ?? 'no window').not.toBeNull();
        x.track(res.window!.address);
        expect(res.window!.address, 'launch took the decoy').not.toBe(decoy.address);
        expect(res.window!.class).toBe(SLOW_LAUNCH_APP);
        expect(res.window!.pid).not.toBe(decoy.pid);
      },
      async absent({ c, env }) {
        await expectUnsupported(c.launch(env.launchCommand, { timeoutMs: 1000 * SCALE }), 'launch()');
      },
    },

    'C-LAUNCH-TIMEOUT': {
      async present(x) {
        const t0 = Date.now();
        const res = await x.c.launch('sleep 4', { timeoutMs: 700 });
        const ms = Date.now() - t0;
        if (res.pid) x.later(async () => {
          try {
            process.kill(-res.pid!, 'SIGTERM');
          } catch {
            /* already gone */
          }
        });
        expect(res.window).toBeNull();
        expect(ms).toBeGreaterThanOrEqual(600);
        expect(ms).toBeLessThan(3000 * SCALE);
      },
      async absent({ c }) {
        await expectUnsupported(c.launch('sleep 1', { timeoutMs: 500 }), 'launch()');
      },
    },

    'C-BINDS': {
      async present({ c }) {
        const binds = await c.binds();
        expect(Array.isArray(binds)).toBe(true);
        expect(binds.length, 'the target desktop configures key bindings').toBeGreaterThan(0);
        for (const b of binds) {
          expect(typeof b.combo === 'string' && b.combo.length > 0, JSON.stringify(b)).toBe(true);
          expect(typeof b.action, JSON.stringify(b)).toBe('string');
          expect(typeof b.arg, JSON.stringify(b)).toBe('string');
        }
      },
      async absent({ c }) {
        await expectUnsupported(c.binds(), 'binds()');
      },
    },

    'C-RUN-BIND': {
      async present(x) {
        await restoreWorkspace(x);
        await x.c.switchWorkspace(x.env.spareWorkspace).catch(() => {});
        const before = activeWsName(await x.c.snapshot());
        const own = x.c.capabilities.has('binds') ? (await x.c.binds()).find((b) => b.action === 'workspace' && !b.lua && !b.mode) : undefined;
        const bind = own ?? { combo: 'contract', action: 'workspace', arg: '1' };
        const out = await x.c.runBind(bind);
        expect(typeof out).toBe('string');
        await until(`workspace to change from ${before} after running ${bind.combo}`, async () => activeWsName(await x.c.snapshot()) !== before);
      },
      async absent({ c }) {
        await expectUnsupported(c.runBind({ combo: 'contract', action: 'workspace', arg: '1' }), 'runBind()');
      },
    },

    'C-LOCK-READ': {
      async present({ c }) {
        expect(typeof (await c.locked())).toBe('boolean');
      },
      async absent({ c }) {
        const v = await c.locked().catch((e: unknown) => (isTyped(e) && e.category === 'unsupported' ? null : Promise.reject(e)));
        expect(v).toBeNull();
      },
    },

    'C-LAYERS': {
      async present(x) {
        // a locker and a launcher on the overlay: listed, with the kind the one layer table gives (the layer guard refuses by it)
        const opened: Array<[string, string]> = [['gtklock', 'lock'], ['bemenu', 'launcher']];
        if (x.env.openLayer) for (const [ns] of opened) x.later(await x.env.openLayer(ns));
        const layers = (await x.c.snapshot()).layers;
        expect(Array.isArray(layers)).toBe(true);
        if (x.env.openLayer) for (const [ns, kind] of opened) expect(layers!.find((l) => l.namespace === ns), `layer ${ns}`).toMatchObject({ kind, level: 'overlay' });
        for (const l of layers!) {
          expect(typeof l.namespace).toBe('string');
          expect(l.kind, `kind of ${l.namespace}`).toBe(classifyLayer(l.namespace, l.level));
        }
      },
      async absent({ c }) {
        expect((await c.snapshot()).layers).toBeNull();
      },
    },

    'C-TAG': {
      async present(x) {
        const a = await x.spawn('tag');
        await x.c.tagWindow(a.address, 'hypruse-contract');
        await until('tag visible in extra', async () => JSON.stringify(win(await x.c.snapshot(), a.address)?.extra ?? {}).includes('hypruse-contract'));
      },
      async absent(x) {
        const a = await x.spawn('tag');
        await expectUnsupported(x.c.tagWindow(a.address, 'hypruse-contract'), 'tagWindow()');
      },
    },

    'C-NOTIFY': {
      async present({ c }) {
        await c.notify('hypruse contract test', 500);
      },
      async absent({ c }) {
        await expectUnsupported(c.notify('hypruse contract test', 500), 'notify()');
      },
    },

    'C-BAD-ADDRESS': {
      async present(x) {
        let t0 = Date.now();
        await expectTyped(x.c.focusWindow('not an address!'), (e) => e.code === 'usage.address', 'malformed address');
        expect(Date.now() - t0).toBeLessThan(2000 * SCALE);
        const a = await x.spawn('gone');
        await x.c.closeWindow(a.address, 3000 * SCALE).catch(() => process.kill(a.pid, 'SIGTERM'));
        await until(`${a.address} gone`, async () => !win(await x.c.snapshot(), a.address));
        t0 = Date.now();
        const method = x.c.capabilities.has('focus') ? x.c.focusWindow(a.address) : x.c.closeWindow(a.address, 500);
        await expectTyped(method, (e) => e.code === 'not_found.window' || e.category === 'unsupported', 'closed window');
        expect(Date.now() - t0).toBeLessThan(2000 * SCALE);
      },
    },

    'C-BAD-WORKSPACE': {
      async present(x) {
        const bad = 'bad"\n; name';
        const ok = (e: HypruseError) => e.category === 'usage' || e.code === 'not_found.workspace' || e.category === 'unsupported';
        const t0 = Date.now();
        const before = activeWsName(await x.c.snapshot());
        await expectTyped(x.c.switchWorkspace(bad), ok, 'switchWorkspace(bad)');
        const a = await x.spawn('badws');
        await expectTyped(x.c.moveToWorkspace(a.address, bad, true), ok, 'moveToWorkspace(bad)');
        expect(Date.now() - t0).toBeLessThan(8000 * SCALE);
        const d = await x.c.snapshot();
        expect(d.workspaces.some((w) => w.name.includes('bad'))).toBe(false);
        expect(activeWsName(d)).toBe(before);
      },
    },
  };

  // ------------------------------------------------------------------ registration

  for (const t of targets) {
    const reason = unavailable.get(t.id) ?? null;
    if (reason) {
      if (requireAll) {
        it(`contract target ${t.id} is available`, () => {
          throw new Error(`the ${t.id} contract target is required, but it is unavailable: ${reason}`);
        });
      } else {
        const bar = '!'.repeat(78);
        process.stderr.write(`\n${bar}\n!! SKIPPING the ${t.id} compositor contract: ${reason}\n${bar}\n\n`);
      }
    }

    describe.skipIf(reason !== null)(`contract: ${t.id}`, () => {
      let env: ContractEnv | null = null;
      let cleanups: Array<() => Promise<unknown>> = [];
      let seq = 0;

      beforeAll(async () => {
        env = await t.start();
      }, 60000 * SCALE);
      afterAll(async () => {
        await env?.stop();
      }, 60000 * SCALE);
      afterEach(async () => {
        for (const fn of cleanups.reverse()) {
          try {
            await fn();
          } catch {
            /* best effort */
          }
        }
        cleanups = [];
      }, 30000 * SCALE);

      const ctx = (): Ctx => {
        const e = env!;
        const track = (address: string) => cleanups.push(() => e.compositor.closeWindow(address, 1500 * SCALE).catch(() => undefined));
        return {
          env: e,
          c: e.compositor,
          track,
          later: (fn) => cleanups.push(fn),
          async spawn(tag, opts = {}) {
            const n = ++seq;
            const appId = opts.appId ?? `hypruse.contract.${tag}`;
            const title = opts.title ?? `contract ${tag} ${n}`;
            const s = await e.spawnWindow({ appId, title, ...(opts.workspace ? { workspace: opts.workspace } : {}), ...(opts.lateTitle ? { lateTitle: opts.lateTitle } : {}) });
            cleanups.push(async () => {
              await e.compositor.closeWindow(s.address, 1500 * SCALE).catch(() => undefined);
              try {
                process.kill(s.pid, 0);
                process.kill(s.pid, 'SIGTERM');
              } catch {
                /* gone */
              }
            });
            return { ...s, appId, title };
          },
        };
      };

      for (const r of REQUIREMENTS) {
        const check = CHECKS[r.id];
        it(`${r.id} ${r.description}`, async () => {
          const x = ctx();
          const declared = r.capability === null || x.c.capabilities.has(r.capability);
          if (declared) {
            await check.present(x);
          } else {
            expect(check.absent, `${r.id} has no absent-capability check`).toBeDefined();
            await check.absent!(x);
          }
        }, 45000 * SCALE);
      }
    });
  }

  describe('contract suite', () => {
    it('coverage: every requirement id is cited by a test of every target, and every cited id is a requirement', ({ task }) => {
      expect(targets.length).toBeGreaterThan(0);
      // computed from the tests registered in this file, not from the list they were made from
      type Node = { name: string; type: string; tasks?: Node[] };
      const suites = (task.file.tasks as Node[]).filter((t) => t.type === 'suite' && t.name !== 'contract suite');
      expect(suites.length, 'one suite per target').toBe(targets.length);
      for (const suite of suites) {
        const ids = new Set((suite.tasks ?? []).map((t) => /^(C-[A-Z0-9-]+) /.exec(t.name)?.[1]).filter((id): id is string => !!id));
        expect([...ids].sort(), suite.name).toEqual([...REQUIREMENT_IDS].sort());
      }
      for (const id of REQUIREMENT_IDS) expect(CHECKS[id], id).toBeDefined();
      for (const r of REQUIREMENTS) if (r.capability !== null) expect(CHECKS[r.id].absent, `${r.id} needs an absent-capability check`).toBeDefined();
    });
  });
}

/** A hypruse typed error, by shape: a plugin's errors may come from its own copy of hypruse (another class). */
function isTyped(e: unknown): e is HypruseError {
  return e instanceof Error && typeof (e as { code?: unknown }).code === 'string' && typeof (e as { category?: unknown }).category === 'string';
}
